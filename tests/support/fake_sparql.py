"""A fake SPARQL endpoint on 127.0.0.1 for tests of the Wikidata client (never the real Wikidata).

It answers GET ``/sparql?query=...`` from a small in-memory graph, recognising the three query shapes the
client sends (find by label / alias, labels of a qid, direct properties of a qid). ``script([status, ...])``
queues HTTP statuses to answer before serving normally (429 comes with ``Retry-After: <retry_after>``, "0"
unless set); every request is recorded in ``requests`` as ``{"query": str, "user_agent": str}``.
"""

from __future__ import annotations

import json
import re
from collections import deque
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlparse

from loopback import LoopbackHTTPServer, QuietHandler

ENTITY = "http://www.wikidata.org/entity/"


class FakeSPARQLServer(LoopbackHTTPServer):
    """Serves ``entities``: qid -> {"label", "aliases": [...], "properties": {relation: [values]}}."""

    def __init__(self, entities: dict[str, dict[str, Any]]) -> None:
        self.entities = entities
        self.requests: list[dict[str, str]] = []
        self.retry_after = "0"
        self._statuses: deque[int] = deque()
        super().__init__()

    @property
    def endpoint(self) -> str:
        return f"{self.origin}/sparql"

    def script(self, statuses: list[int]) -> None:
        self._statuses.extend(statuses)

    def answer(self, query: str) -> list[dict[str, dict[str, str]]]:
        found = re.search(r'rdfs:label "((?:[^"\\]|\\.)*)"@en', query)
        if found:
            name = found.group(1).replace('\\"', '"')
            return [{"item": _uri(qid), "itemLabel": _literal(data["label"])}
                    for qid, data in self.entities.items() if name in [data["label"], *data.get("aliases", [])]]
        qid = re.search(r"wd:(Q\d+)", query)
        data = self.entities.get(qid.group(1), {}) if qid else {}
        if "skos:altLabel ?alias" in query:
            rows = [{"label": _literal(data["label"])}] if data else []
            return rows + [{"alias": _literal(alias)} for alias in data.get("aliases", [])]
        return [{"propLabel": _literal(relation), "valueLabel": _literal(value)}
                for relation, values in data.get("properties", {}).items() for value in values]

    def handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                query = parse_qs(urlparse(self.path).query).get("query", [""])[0]
                server.requests.append({"query": query, "user_agent": self.headers.get("User-Agent", "")})
                if server._statuses:
                    status = server._statuses.popleft()
                    self.send_response(status)
                    if status == 429:
                        self.send_header("Retry-After", server.retry_after)
                    self.end_headers()
                    self.wfile.write(b"slow down")
                    return
                body = json.dumps({"head": {"vars": []}, "results": {"bindings": server.answer(query)}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/sparql-results+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler


def _uri(qid: str) -> dict[str, str]:
    return {"type": "uri", "value": ENTITY + qid}


def _literal(text: str) -> dict[str, str]:
    return {"type": "literal", "value": text, "xml:lang": "en"}
