"""The options of web and Wikipedia retrieval, declared once: ``@web_options`` adds them to a command and hands
it one ``WebOptions``, whose ``settings()`` are the library's ``WebSettings``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.option_groups import Command, add_option_group
from factscope.cli.option_ranges import finite
from factscope.retrieve.corpus import RetrieverName
from factscope.retrieve.web_settings import QuerySource, WebSettings

PANEL = "Web and Wikipedia retrieval (--retriever web:serper, web:brave or wikipedia)"


@dataclass(frozen=True)
class WebOptions:
    """The web retrieval settings given on the command line."""

    search_queries: Annotated[
        QuerySource,
        typer.Option(help="one search per response (RefChecker) or per claim (SAFE)", rich_help_panel=PANEL),
    ] = "response"
    search_results: Annotated[
        int, typer.Option(min=1, max=20, help="search results (pages) read per query", rich_help_panel=PANEL)
    ] = 3
    language: Annotated[
        str, typer.Option(help="language of the searches and of Wikipedia's edition (en, de, fr, ...)",
                          rich_help_panel=PANEL)
    ] = "en"
    passage_ranker: Annotated[
        RetrieverName,
        typer.Option(help="ranks a record's fetched passages for each claim (its --top-k kept)", rich_help_panel=PANEL),
    ] = "bm25"
    passage_words: Annotated[
        int, typer.Option(min=8, help="most words of one passage cut from a page", rich_help_panel=PANEL)
    ] = 120
    search_url: Annotated[
        str | None,
        typer.Option(help="the search service's base URL (a proxy or a local stand-in); Wikipedia's may hold "
                     "{language}", rich_help_panel=PANEL),
    ] = None
    web_concurrency: Annotated[
        int, typer.Option(min=1, max=64, help="requests in flight at once", rich_help_panel=PANEL)
    ] = 4
    web_timeout: Annotated[
        float, typer.Option(min=0.1, callback=finite, help="seconds to wait for one request", rich_help_panel=PANEL)
    ] = 10.0
    web_retries: Annotated[
        int, typer.Option(min=0, max=10, help="retries on 429, 5xx and timeouts (Retry-After respected)",
                          rich_help_panel=PANEL)
    ] = 3
    max_page_bytes: Annotated[
        int, typer.Option(min=1024, help="a fetched page is read up to this many bytes", rich_help_panel=PANEL)
    ] = 2_000_000
    web_cache: Annotated[
        Path | None,
        typer.Option(help="SQLite cache of searches and pages (default ~/.cache/factscope/web.sqlite)",
                     rich_help_panel=PANEL),
    ] = None
    cache_max_age: Annotated[
        float,
        typer.Option(min=0.0, callback=finite, help="days a cached search or page is reused; 0 asks again every time",
                     rich_help_panel=PANEL),
    ] = 30.0

    def settings(self) -> WebSettings:
        """These options as the library's settings."""
        return WebSettings(
            queries=self.search_queries,
            results_per_query=self.search_results,
            language=self.language,
            ranker=self.passage_ranker,
            passage_words=self.passage_words,
            search_url=self.search_url,
            concurrency=self.web_concurrency,
            timeout=self.web_timeout,
            max_retries=self.web_retries,
            max_page_bytes=self.max_page_bytes,
            cache_path=self.web_cache,
            cache_max_age_days=self.cache_max_age,
        )


WEB_PARAMS = tuple(name for name in WebOptions.__dataclass_fields__)
"""The parameter names of the web options (they count only with a web retriever)."""


def web_options(command: Command) -> Command:
    """Give ``command`` the web retrieval options; it receives them as one keyword argument ``web: WebOptions``."""
    return add_option_group(command, WebOptions, "web")
