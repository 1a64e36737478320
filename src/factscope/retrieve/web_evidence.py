"""Evidence for claims from a search service (Serper, Brave, Wikipedia), RefChecker's zero-context retrieval
done for every claim: queries written from each response or claim, searched, the pages read and cut into
passages by the shared segmenter, and the passages of a record ranked for each of its claims by a corpus
retriever (BM25 by default, as RefChecker ranks them), the top k kept.

Every search and page read goes through the SQLite web cache, so a rerun or a resumed run sends nothing it has
sent before (within the cache's age). A record's ``RetrievalCost`` counts what it needed.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from factscope.core.errors import ConfigError
from factscope.core.files.user_dirs import cache_home
from factscope.core.text import segment_spans
from factscope.retrieve.corpus import Corpus, Document, Hit, make_retriever, tokenize
from factscope.retrieve.passage_source import PassageSource, RetrievalCost
from factscope.retrieve.search_queries import QueryRequest, QueryWriter
from factscope.retrieve.web_cache import CachedEntry, WebCache, web_cache_key
from factscope.retrieve.web_client import WebClient
from factscope.retrieve.web_search import PageRead, SearchAnswer, SearchHit, SearchService, api_key
from factscope.retrieve.web_settings import WebSettings

if TYPE_CHECKING:
    from factscope.hf.encoders import TextEncoder
    from factscope.llm.client import LLMClient


@dataclass(frozen=True)
class EvidenceRequest:
    """A record to find evidence for: its question, its response and the texts of its claims."""

    response: str
    claims: Sequence[str]
    question: str | None = None


@dataclass
class RecordEvidence:
    """A record's retrieved passages with their sources, for each claim the indices of its top passages (best
    first) and their ranker scores, the requests it cost and the reasons of those that failed."""

    passages: list[str] = field(default_factory=list)
    sources: list[PassageSource] = field(default_factory=list)
    per_claim: list[list[int]] = field(default_factory=list)
    scores: list[list[float]] = field(default_factory=list)
    cost: RetrievalCost = field(default_factory=RetrievalCost)
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Fetched:
    """A cached or fresh answer: its body, fetch time and whether the cache gave it."""

    body: Any
    fetched: float
    cached: bool
    error: str | None = None


class WebEvidence:
    """Finds evidence on the web or in Wikipedia through ``service`` (see the module)."""

    def __init__(
        self,
        service: SearchService,
        settings: WebSettings | None = None,
        *,
        k: int = 5,
        llm: LLMClient | None = None,
        encoder: TextEncoder | None = None,
        client: WebClient | None = None,
    ) -> None:
        self.service = service
        self.settings = settings or WebSettings()
        self.k = k
        self.name = service.name
        self.queries = QueryWriter(llm)
        self.encoder = encoder
        self.cache = WebCache(self.settings.cache_path or cache_home() / "web.sqlite",
                              max_age_days=self.settings.cache_max_age_days)
        self.client = client or WebClient(self.settings, cache=self.cache)

    def result_settings(self) -> dict[str, Any]:
        """What decides the passages (for a results file's fingerprint): the service, the settings, k and the
        query writer; never a key, the cache or politeness."""
        return {"service": self.name, "k": self.k, **self.settings.result_settings(),
                "query_writer": self.queries.result_settings()}

    def preflight(self) -> None:
        """Raise a ConfigError before any work when the service's key is unset or its host cannot be reached."""
        if self.service.key_variable is not None:
            api_key(self.service.key_variable, self.name)
        parts = urlsplit(self.service.base_url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            socket.create_connection((parts.hostname or "", port), timeout=self.settings.timeout).close()
        except OSError as error:
            raise ConfigError(
                f"the {self.name} retriever needs the network, and {parts.hostname}:{port} cannot be reached "
                f"({type(error).__name__}); connect this machine, or retrieve from a corpus instead"
            ) from error

    def gather(self, requests: Sequence[EvidenceRequest]) -> list[RecordEvidence]:
        """Each record's evidence: queries written, searched and the pages read (at most ``concurrency`` at a
        time, each once per batch), then each claim's top ``k`` passages of its record."""
        evidence = [RecordEvidence() for _ in requests]
        asked = self._queries(requests, evidence)
        unique_queries = list(dict.fromkeys(q for queries in asked for q in queries))
        searched = dict(zip(unique_queries, self._map(self._search, unique_queries)))
        charged: set[str] = set()
        hits_of: list[list[tuple[SearchHit, str]]] = []
        for record, queries in zip(evidence, asked):
            unique: dict[str, tuple[SearchHit, str]] = {}
            for query in queries:
                answer = searched[query]
                _charge(record.cost, answer, "search" + query, charged, fresh="searches", cached="cached_searches")
                if answer.error is not None:
                    record.problems.append(f"search {query!r}: {answer.error}")
                    continue
                for hit in _hits(answer.body):
                    unique.setdefault(hit.url, (hit, query))
            hits_of.append(list(unique.values()))
            record.cost.pages_found += len(unique)
        to_read = list({hit.url: hit for found in hits_of for hit, _ in found if hit.text is None}.values())
        read = dict(zip((hit.url for hit in to_read), self._map(self._read, to_read)))
        for request, record, hits in zip(requests, evidence, hits_of):
            pages = []
            for hit, query in hits:
                if hit.text is not None:
                    pages.append((hit.url, hit.title, hit.title, hit.text, searched[query].fetched, query))
                    continue
                answer = read[hit.url]
                _charge(record.cost, answer, "page" + hit.url, charged, fresh="page_fetches", cached="cached_pages")
                if answer.error is not None:
                    record.problems.append(f"{hit.url}: {answer.error}")
                    continue
                body = answer.body
                pages.append((body["url"], body["title"], hit.title, body["text"], answer.fetched, query))
            self._rank(request, record, pages)
        return evidence

    def search(self, query: str, k: int = 5) -> list[Hit]:
        """The ``k`` best passages for ``query`` (searched, read and ranked as a claim of its own), so that web
        evidence serves wherever a corpus retriever does; a hit's id is its page's address."""
        return self.search_many([query], k)[0]

    def search_many(self, queries: Sequence[str], k: int = 5) -> list[list[Hit]]:
        """``search`` for each query, the searches and page reads of the batch sent together."""
        kept, self.k = self.k, k
        try:
            found = self.gather([EvidenceRequest(query, [query]) for query in queries])
        finally:
            self.k = kept
        return [
            [Hit(record.sources[i].url, record.passages[i], score, record.sources[i].title)
             for i, score in zip(record.per_claim[0], record.scores[0])]
            for record in found
        ]

    def close(self) -> None:
        """Close the connections and the cache."""
        self.client.close()
        self.cache.close()

    def _queries(self, requests: Sequence[EvidenceRequest], evidence: Sequence[RecordEvidence]) -> list[list[str]]:
        """The queries of each record: one for its response, or one per claim; none for a record without claims.
        A query the LLM failed to write is a problem of its record (the rule's query is searched instead)."""
        per_claim = self.settings.queries == "claims"
        wanted = [
            [QueryRequest(claim, r.question) for claim in r.claims] if per_claim
            else [QueryRequest(r.response, r.question)] if r.claims else []
            for r in requests
        ]
        written = iter(self.queries.write([q for queries in wanted for q in queries], claims=per_claim))
        asked = []
        for record, queries in zip(evidence, wanted):
            mine = [next(written) for _ in queries]
            record.problems.extend(f"query for {q.query!r} written by rule: {q.error}" for q in mine if q.error)
            asked.append(list(dict.fromkeys(q.query for q in mine)))
        return asked

    def _search(self, query: str) -> _Fetched:
        settings = {"count": self.settings.results_per_query, "language": self.settings.language}
        key = web_cache_key("search", f"{self.name} {self.service.base_url}", query, settings)

        def ask() -> tuple[Any, str | None, bool]:
            answer: SearchAnswer = self.service.search(self.client, query, self.settings.results_per_query)
            return [[h.url, h.title, h.text] for h in answer.hits], answer.error, False

        return self._cached(key, "search", ask)

    def _read(self, hit: SearchHit) -> _Fetched:
        settings = {"max_page_bytes": self.settings.max_page_bytes, "robots": self.settings.robots}
        key = web_cache_key("page", self.name, hit.url, settings)

        def ask() -> tuple[Any, str | None, bool]:
            page: PageRead = self.service.read(self.client, hit)
            return {"url": page.url, "title": page.title or hit.title, "text": page.text}, page.error, page.lasting

        return self._cached(key, "page", ask)

    def _cached(self, key: str, kind: str, ask: Callable[[], tuple[Any, str | None, bool]]) -> _Fetched:
        """The cache's entry of ``key``, else ``ask``'s answer, stored when it succeeded or failed for a lasting
        reason (a transient failure is asked again next time)."""
        entry = self.cache.get(key)
        if entry is not None:
            if isinstance(entry.body, dict) and "failed" in entry.body:
                return _Fetched(None, entry.fetched, cached=True, error=entry.body["failed"])
            return _Fetched(entry.body, entry.fetched, cached=True)
        body, error, lasting = ask()
        if error is not None:
            if lasting:
                self.cache.put(key, kind, {"failed": error})
            return _Fetched(None, 0.0, cached=False, error=error)
        stored: CachedEntry = self.cache.put(key, kind, body)
        return _Fetched(stored.body, stored.fetched, cached=False)

    def _map(self, work: Callable[[Any], _Fetched], items: Sequence[Any]) -> list[_Fetched]:
        if len(items) <= 1:
            return [work(item) for item in items]
        with ThreadPoolExecutor(max_workers=self.settings.concurrency) as pool:
            return list(pool.map(work, items))

    def _rank(self, request: EvidenceRequest, record: RecordEvidence,
              pages: Sequence[tuple[str, str, str, str, float, str]]) -> None:
        """Cut the pages into passages (a passage seen on an earlier page is left out: a redirect or a mirror) and
        keep each claim's top k (their union is the record's passages)."""
        documents: list[Document] = []
        sources: list[PassageSource] = []
        seen: set[str] = set()
        for url, title, search_title, text, fetched, query in pages:
            source = PassageSource(url=url, title=title, search_title=search_title, fetched_at=_iso(fetched),
                                   retriever=self.name, query=query)
            for span in segment_spans(text, _word_count, self.settings.passage_words):
                passage = text[span.start:span.end]
                if passage in seen:
                    continue
                seen.add(passage)
                documents.append(Document(str(len(documents)), passage, title))
                sources.append(source)
        if not documents or not request.claims:
            record.per_claim = [[] for _ in request.claims]
            record.scores = [[] for _ in request.claims]
            return
        ranker = make_retriever(self.settings.ranker, Corpus(documents), self.encoder)
        chosen: dict[int, int] = {}
        for hits in ranker.search_many(list(request.claims), self.k):
            indices = []
            for hit in hits:
                position = int(hit.doc_id)
                if position not in chosen:
                    chosen[position] = len(record.passages)
                    record.passages.append(documents[position].text)
                    record.sources.append(sources[position])
                indices.append(chosen[position])
            record.per_claim.append(indices)
            record.scores.append([hit.score for hit in hits])


def _charge(cost: RetrievalCost, answer: _Fetched, key: str, charged: set[str], *, fresh: str, cached: str) -> None:
    """Count a request for a record: sent (the first record of the batch that needed it, when the cache did not
    answer), answered by the cache (or by an earlier record of the batch), or failed."""
    if answer.error is not None:
        if key not in charged:
            cost.failures += 1
            charged.add(key)
        return
    name = cached if answer.cached or key in charged else fresh
    setattr(cost, name, getattr(cost, name) + 1)
    charged.add(key)


def _hits(body: Any) -> list[SearchHit]:
    return [SearchHit(url, title, text) for url, title, text in body]


def _word_count(text: str) -> int:
    return len(tokenize(text))


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="seconds")
