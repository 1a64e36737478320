"""The settings of evidence retrieval from the web and Wikipedia: what is searched and ranked (they change the
results, so a results file's fingerprint records them) and how politely the services are asked (they do not).
Each offered setting's help, range and flag are declared in its field's metadata."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

from factscope.core.errors import ConfigError
from factscope.core.options.metadata import about
from factscope.core.options.rules import CountsWhen
from factscope.core.options.validation import ValidatedOptions
from factscope.retrieve.corpus import RetrieverName
from factscope.retrieve.retriever_names import names_search_service

QuerySource = Literal["response", "claims"]
"""Where search queries come from: one per response (RefChecker) or one per claim (SAFE, VeriScore)."""

USER_AGENT = "factscope (+https://github.com/factscope/factscope; fact checking)"
"""How factscope names itself to the services it asks and in robots.txt look-ups."""

SEARCHING = CountsWhen(
    lambda values: names_search_service(values["retriever"]),
    "with `retriever` web:serper, web:brave or wikipedia",
)
"""The rule of every offered setting: it counts only when the run searches the web or Wikipedia."""


def check_language(value: str) -> None:
    """Refuse a language that is not a Wikipedia language code."""
    if not value.replace("-", "").isalnum():
        raise ConfigError(f"give a Wikipedia language code such as 'en', not {value!r}")


@dataclass(frozen=True)
class WebSettings(ValidatedOptions):
    """How evidence is found on the web or in Wikipedia.

    ``queries``: one query per response or per claim; ``results_per_query``: the search results (pages) read per
    query; ``language``: Wikipedia's language edition (``en``, ``de``, ...); ``ranker`` ranks a record's passages
    for each claim; ``passage_words``: the most words of one passage (the segmenter cuts pages at sentence ends
    within it). ``search_url`` replaces the search service's base URL (a proxy, a test server). Politeness:
    at most ``concurrency`` requests at a time, ``timeout`` seconds each, ``max_retries`` retries on 429 / 5xx
    (Retry-After respected), pages cut at ``max_page_bytes``, robots.txt obeyed when ``robots``. Every search and
    page is kept in the SQLite file ``cache_path`` (default ``~/.cache/factscope/web.sqlite``) and read from it
    while younger than ``cache_max_age_days`` (0: always ask again).
    """

    queries: QuerySource = field(default="response", metadata=about(
        "one search per response (RefChecker) or per claim (claims, SAFE)", flag="--search-queries", counts_when=SEARCHING
    ))
    results_per_query: int = field(default=3, metadata=about(
        "pages read per search", flag="--search-results", min=1, max=20, counts_when=SEARCHING
    ))
    language: str = field(default="en", metadata=about(
        "language of the searches and of Wikipedia's edition (en, de, fr, ...)", check=check_language,
        counts_when=SEARCHING,
    ))
    ranker: RetrieverName = field(default="bm25", metadata=about(
        "bm25, dense or hybrid: ranks the fetched passages per claim (--top-k kept)", flag="--passage-ranker",
        counts_when=SEARCHING,
    ))
    passage_words: int = field(default=120, metadata=about(
        "most words per passage", min=8, counts_when=SEARCHING
    ))
    search_url: str | None = field(default=None, metadata=about(
        "the search service's base URL (a proxy or a local stand-in); Wikipedia's may hold {language}",
        counts_when=SEARCHING,
    ))
    concurrency: int = field(default=4, metadata=about(
        "requests in flight at once", flag="--web-concurrency", min=1, max=64, counts_when=SEARCHING
    ))
    timeout: float = field(default=10.0, metadata=about(
        "seconds per request", flag="--web-timeout", min=0.1, counts_when=SEARCHING
    ))
    max_retries: int = field(default=3, metadata=about(
        "retries on 429/5xx/timeout", flag="--web-retries", min=0, max=10,
        counts_when=SEARCHING,
    ))
    backoff_max: float = 30.0
    max_page_bytes: int = field(default=2_000_000, metadata=about(
        "bytes read of a page", min=1024, counts_when=SEARCHING
    ))
    robots: bool = True
    cache_path: Path | None = field(default=None, metadata=about(
        "SQLite cache of searches and pages (default ~/.cache/factscope/web.sqlite)", flag="--web-cache",
        counts_when=SEARCHING,
    ))
    cache_max_age_days: float = field(default=30.0, metadata=about(
        "days a cached search or page is reused; 0 asks again every time", flag="--cache-max-age", min=0.0,
        counts_when=SEARCHING,
    ))

    def result_settings(self) -> dict[str, str | int | None]:
        """The settings that change which passages a claim gets (for a results file's fingerprint)."""
        chosen = asdict(self)
        return {name: chosen[name] for name in ("queries", "results_per_query", "language", "ranker",
                                                  "passage_words", "search_url", "max_page_bytes")} | {
            "robots": int(self.robots)
        }
