"""Fake search services and web pages on 127.0.0.1 for tests of web retrieval (never the real web).

One server plays every part: Serper (POST ``/search``), Brave Search (GET ``/res/v1/web/search``), Wikipedia's
MediaWiki API (GET ``/w/api.php``), a site's ``/robots.txt`` and its pages (GET ``/pages/NAME``). Searches
answer with the pages of ``results`` (by the first word of the query found in its keys, else ``default``).

``script(path, [item, ...])`` queues answers for requests whose path starts with ``path``, served before the
normal answer: an HTTP status (429 comes with ``Retry-After: 0``), ``"hang"`` (waits ``hang_seconds`` first),
or ``"malformed"`` (a 200 whose body is not JSON). Every request is recorded in ``requests`` as
``{"method", "path", "headers", "body"}``.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlparse

from loopback import LoopbackHTTPServer, QuietHandler

CURIE_HTML = """<!doctype html><html><head><meta charset="utf-8"><title>Marie Curie - Science Lives</title>
<script>var tracker = "Marie Curie was born in Berlin"; document.write(tracker);</script>
<style>body { font-family: serif; }</style></head>
<body><nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/shop">Shop</a></nav>
<article><h1>Marie Curie</h1>
<p>Marie Salomea Skłodowska-Curie was a Polish and naturalised-French physicist and chemist who conducted
pioneering research on radioactivity.</p>
<p>She was born in Warsaw, in what was then the Kingdom of Poland, on 7 November 1867.</p>
<p>She shared the 1903 Nobel Prize in Physics with Pierre Curie and Henri Becquerel, and she won the 1911 Nobel
Prize in Chemistry on her own.</p></article>
<footer>Cookie settings. Subscribe to our newsletter.</footer></body></html>"""

PARIS_LATIN1 = """<html><head><title>Curie à Paris</title></head><body><main>
<p>Marie Curie a vécu à Paris, où elle a étudié à la Sorbonne et fondé l'Institut du Radium.</p>
<p>Elle est morte en 1934 à Passy, en Haute-Savoie, d'une anémie aplasique.</p></main></body></html>"""

ACME_HTML = """<html><head><title>Acme Corporation</title></head><body><article>
<p>Acme Corporation is a fictional company that appears in many cartoons, best known from Looney Tunes.</p>
<p>No one can predict the price of a stock next year; analysts publish forecasts that are often wrong.</p>
</article></body></html>"""

WIKI_PAGES = {
    "Marie Curie": "Marie Salomea Skłodowska-Curie (7 November 1867 – 4 July 1934) was a Polish and "
    "naturalised-French physicist and chemist. She was born in Warsaw. She shared the 1903 Nobel Prize in Physics "
    "with Pierre Curie and Henri Becquerel.\n\nShe won the 1911 Nobel Prize in Chemistry.",
    "Pierre Curie": "Pierre Curie was a French physicist, a pioneer in crystallography and magnetism.",
}

ROBOTS = "User-agent: *\nDisallow: /pages/private\n"


class FakeWebServer(LoopbackHTTPServer):
    """See the module. ``results``: query word -> page names; ``huge_bytes``: the size of ``/pages/huge``."""

    def __init__(self) -> None:
        self.results: dict[str, list[str]] = {
            "curie": ["curie", "latin1", "old-curie", "report.pdf", "private"],
            "acme": ["acme", "huge", "scripts-only"],
        }
        self.default: list[str] = ["curie"]
        self.requests: list[dict[str, Any]] = []
        self.hang_seconds = 1.5
        self.huge_bytes = 3_000_000
        self.answer_box: str | None = None
        self._scripts: dict[str, deque[int | str]] = {}
        self._lock = threading.Lock()
        super().__init__()

    @property
    def base_url(self) -> str:
        return self.origin

    @property
    def wikipedia_url(self) -> str:
        return f"{self.base_url}/w/api.php"

    def script(self, path: str, items: list[int | str]) -> None:
        with self._lock:
            self._scripts.setdefault(path, deque()).extend(items)

    def paths(self, prefix: str = "") -> list[str]:
        """The paths asked so far that start with ``prefix``, in order."""
        return [r["path"] for r in self.requests if r["path"].startswith(prefix)]

    def _scripted(self, path: str) -> int | str | None:
        with self._lock:
            for prefix, queue in self._scripts.items():
                if path.startswith(prefix) and queue:
                    return queue.popleft()
        return None

    def pages_for(self, query: str) -> list[str]:
        words = query.lower().split()
        for word, pages in self.results.items():
            if any(word in w for w in words):
                return pages
        return self.default

    def handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                self._serve("GET", b"")

            def do_POST(self) -> None:
                self._serve("POST", self.rfile.read(int(self.headers.get("Content-Length", 0))))

            def _serve(self, method: str, body: bytes) -> None:
                url = urlparse(self.path)
                server.requests.append(
                    {"method": method, "path": self.path, "headers": dict(self.headers), "body": body.decode()}
                )
                item = server._scripted(url.path)
                if item == "hang":
                    time.sleep(server.hang_seconds)
                elif item == "malformed":
                    return self._write(200, b'{"organic": [ not json', "application/json")
                elif isinstance(item, int):
                    headers = {"Retry-After": "0"} if item == 429 else {}
                    return self._write(item, b"try again later", "text/plain", headers)
                query = parse_qs(url.query)
                if url.path == "/search" and method == "POST":
                    return self._json(server._serper(json.loads(body)))
                if url.path == "/res/v1/web/search":
                    return self._json(server._brave(query["q"][0], int(query.get("count", ["3"])[0])))
                if url.path == "/w/api.php":
                    return self._json(server._wikipedia(query))
                if url.path == "/robots.txt":
                    return self._write(200, ROBOTS.encode(), "text/plain")
                if url.path.startswith("/pages/"):
                    return self._page(url.path.removeprefix("/pages/"))
                self._write(404, b"not found", "text/plain")

            def _page(self, name: str) -> None:
                if name == "curie" or name == "private":
                    return self._write(200, CURIE_HTML.encode(), "text/html; charset=utf-8")
                if name == "latin1":
                    return self._write(200, PARIS_LATIN1.encode("iso-8859-1"), "text/html; charset=ISO-8859-1")
                if name == "old-curie":
                    return self._write(302, b"", "text/html", {"Location": "/pages/curie"})
                if name == "report.pdf":
                    return self._write(200, b"%PDF-1.4 Marie Curie was born in Paris", "application/pdf")
                if name == "acme":
                    return self._write(200, ACME_HTML.encode(), "text/html")
                if name == "scripts-only":
                    return self._write(200, b"<html><body><script>var a = 'Acme is real';</script></body></html>",
                                       "text/html")
                if name == "huge":
                    filler = b"<p>" + b"Acme sells anvils and rockets to coyotes. " * 50 + b"</p>\n"
                    page = b"<html><body><article>" + filler * (server.huge_bytes // len(filler) + 1)
                    return self._write(200, page[: server.huge_bytes], "text/html")
                self._write(404, b"not found", "text/plain")

            def _json(self, payload: Any) -> None:
                self._write(200, json.dumps(payload).encode(), "application/json")

            def _write(self, status: int, body: bytes, kind: str, headers: dict[str, str] | None = None) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(body)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    return

        return Handler

    def _link(self, name: str) -> str:
        return f"{self.base_url}/pages/{name}"

    def _serper(self, request: dict[str, Any]) -> dict[str, Any]:
        pages = self.pages_for(request["q"])[: int(request.get("num", 10))]
        payload: dict[str, Any] = {
            "searchParameters": {"q": request["q"]},
            "organic": [{"title": f"Result {name}", "link": self._link(name), "snippet": "..."} for name in pages],
        }
        if self.answer_box:
            payload["answerBox"] = {"answer": self.answer_box, "link": self._link("curie"), "title": "Answer"}
        return payload

    def _brave(self, query: str, count: int) -> dict[str, Any]:
        pages = self.pages_for(query)[:count]
        return {"web": {"results": [{"title": f"Brave {name}", "url": self._link(name)} for name in pages]}}

    def _wikipedia(self, query: dict[str, list[str]]) -> dict[str, Any]:
        if query.get("list") == ["search"]:
            words = query["srsearch"][0].lower()
            found = [title for title in WIKI_PAGES if any(w in words for w in title.lower().split())]
            return {"query": {"search": [{"title": title} for title in found][: int(query["srlimit"][0])]}}
        title = query["titles"][0]
        if title not in WIKI_PAGES:
            return {"query": {"pages": [{"title": title, "missing": True}]}}
        return {"query": {"pages": [{"title": title, "extract": WIKI_PAGES[title],
                                     "fullurl": f"https://en.wikipedia.org/wiki/{title.replace(' ', '_')}"}]}}
