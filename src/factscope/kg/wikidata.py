"""A polite Wikidata SPARQL client: entities by name or alias, one-hop subgraphs, on-disk cache.

Politeness: a User-Agent naming factscope (Wikidata's policy asks for one), at most one request per
``min_interval`` seconds, retries through the toolkit's one policy (``factscope.llm.retry``: timeouts,
connection errors, 429 / 5xx, Retry-After honoured), and a cache so a question set is fetched once.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from factscope.core.errors import BackendError
from factscope.kg.graph import Entity
from factscope.kg.loaders import local_name
from factscope.llm.retry import RetryPolicy, is_transient

WIKIDATA_SPARQL = "https://query.wikidata.org/sparql"
USER_AGENT = "factscope/0.1 (knowledge-graph attribution; https://github.com/factscope/factscope)"

FIND_QUERY = """SELECT DISTINCT ?item ?itemLabel WHERE {{
  {{ ?item rdfs:label {literal} }} UNION {{ ?item skos:altLabel {literal} }}
  SERVICE wikibase:label {{ bd:serviceParam wikibase:language "{language}". }}
}} LIMIT {limit}"""

SUBGRAPH_QUERY = """SELECT ?propLabel ?valueLabel WHERE {{
  wd:{qid} ?direct ?value .
  ?prop wikibase:directClaim ?direct ; wikibase:propertyType ?type .
  FILTER(?type NOT IN (wikibase:ExternalId, wikibase:CommonsMedia, wikibase:Url))
  SERVICE wikibase:label {{ bd:serviceParam wikibase:language "{language}". }}
}}"""

LABELS_QUERY = """SELECT ?label ?alias WHERE {{
  OPTIONAL {{ wd:{qid} rdfs:label ?label . FILTER(LANG(?label) = "{language}") }}
  OPTIONAL {{ wd:{qid} skos:altLabel ?alias . FILTER(LANG(?alias) = "{language}") }}
}}"""


_MIDNIGHT = re.compile(r"^(-?\d{4,}-\d\d-\d\d)T00:00:00Z$")


def wikidata_value(text: str) -> str:
    """A value as BioKaLMA writes it: ``1867-11-07T00:00:00Z`` -> ``1867-11-07``; other values unchanged."""
    match = _MIDNIGHT.match(text)
    return match.group(1) if match else text


def sparql_literal(text: str, language: str) -> str:
    """A SPARQL string literal with a language tag, quotes and backslashes escaped."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    return f'"{escaped}"@{language}'


class WikidataClient:
    """Finds entities by name and fetches their one-hop subgraphs through a SPARQL endpoint."""

    def __init__(
        self,
        endpoint: str = WIKIDATA_SPARQL,
        *,
        cache_dir: str | Path | None = None,
        language: str = "en",
        min_interval: float = 1.0,
        max_retries: int = 4,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
        timeout: float = 60.0,
        user_agent: str = USER_AGENT,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.endpoint = endpoint
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.language = language
        self.min_interval = min_interval
        self.retry = RetryPolicy(max_retries, backoff_base, backoff_max, sleep)
        self.requests = 0
        self._sleep = sleep
        self._last = 0.0
        self._lock = threading.Lock()
        self._http = httpx.Client(timeout=timeout, headers={
            "User-Agent": user_agent, "Accept": "application/sparql-results+json"})

    def query(self, sparql: str) -> list[dict[str, str]]:
        """Run a SELECT query; rows map variable -> value. Cached on disk by endpoint + query."""
        key = hashlib.sha256(f"{self.endpoint}\n{sparql}".encode()).hexdigest()
        cached = self._cache_path(key)
        if cached is not None and cached.exists():
            return json.loads(cached.read_text(encoding="utf-8"))
        rows = self._fetch(sparql)
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            cached.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
        return rows

    def _cache_path(self, key: str) -> Path | None:
        return self.cache_dir / key[:2] / f"{key}.json" if self.cache_dir is not None else None

    def _fetch(self, sparql: str) -> list[dict[str, str]]:
        delivery = self.retry.send(lambda: self._get(sparql))
        response = delivery.response
        if response is None or is_transient(response):
            failure = (f"{type(delivery.error).__name__}: {delivery.error}" if response is None
                       else f"HTTP {response.status_code}")
            raise BackendError(f"SPARQL endpoint {self.endpoint} failed after {delivery.attempts} attempts "
                               f"({failure}); try again later or raise the pause between queries (`min_interval`)")
        if response.status_code != 200:
            raise BackendError(f"SPARQL endpoint {self.endpoint} answered HTTP {response.status_code}: "
                               f"{response.text[:200]}")
        try:
            bindings = response.json()["results"]["bindings"]
        except (ValueError, KeyError, TypeError):
            raise BackendError(f"SPARQL endpoint {self.endpoint} sent a reply that is not SPARQL JSON: "
                               f"{response.text[:200]}") from None
        return [{name: cell.get("value", "") for name, cell in row.items()} for row in bindings]

    def _get(self, sparql: str) -> httpx.Response:
        """One GET of the endpoint, after waiting for this client's turn."""
        self._wait_turn()
        return self._http.get(self.endpoint, params={"query": sparql, "format": "json"})

    def _wait_turn(self) -> None:
        with self._lock:
            wait = self._last + self.min_interval - time.monotonic()
            if wait > 0:
                self._sleep(wait)
            self._last = time.monotonic()
            self.requests += 1

    def find(self, name: str, limit: int = 10) -> list[str]:
        """Qids of the entities whose label or alias (in ``language``) is exactly ``name``."""
        rows = self.query(FIND_QUERY.format(literal=sparql_literal(name, self.language),
                                            language=self.language, limit=limit))
        return list(dict.fromkeys(local_name(row["item"]) for row in rows if row.get("item")))

    def entity(self, qid: str) -> Entity:
        """The one-hop subgraph of ``qid``: its label, aliases and every direct property with value labels
        (external identifiers, media files and URLs left out; dates at midnight written as YYYY-MM-DD)."""
        labels = self.query(LABELS_QUERY.format(qid=qid, language=self.language))
        entity = Entity(qid, next((r["label"] for r in labels if r.get("label")), ""),
                        list(dict.fromkeys(r["alias"] for r in labels if r.get("alias"))))
        for row in self.query(SUBGRAPH_QUERY.format(qid=qid, language=self.language)):
            if row.get("propLabel") and row.get("valueLabel"):
                entity.add(row["propLabel"], wikidata_value(row["valueLabel"]))
        return entity

    def lookup(self, name: str) -> list[Entity]:
        """Every entity named (or aliased) ``name``, each with its one-hop subgraph."""
        return [self.entity(qid) for qid in self.find(name)]

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

