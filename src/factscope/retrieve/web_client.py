"""HTTP for web retrieval, polite to the services asked: at most N requests at a time, retries with backoff on
429 and 5xx (Retry-After respected, by ``factscope.llm.retry``), a timeout on each request, pages read only up
to a size cap, redirects followed a few hops with robots.txt asked at each (RFC 9309: a missing robots.txt allows
everything, an unreachable one allows nothing), and only web pages (HTML, XHTML, plain text) read at all.

Failures come back as values with their reason, never as exceptions, so that one bad page never sinks a batch.
API keys travel in request headers only; no message here ever quotes a header.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import urljoin, urlsplit
from urllib.robotparser import RobotFileParser

import httpx

from factscope.llm.retry import RetryPolicy
from factscope.retrieve.web_cache import WebCache, web_cache_key
from factscope.retrieve.web_settings import USER_AGENT, WebSettings

PAGE_TYPES = ("text/html", "application/xhtml+xml", "text/plain")
"""The content types read as pages; anything else (PDF, images, JSON) is passed over."""

MAX_REDIRECTS = 5

LASTING_STATUS = frozenset({401, 403, 404, 410, 451})
"""Page statuses that asking again soon will not change: forbidden, not found, gone, unavailable for legal
reasons."""


@dataclass(frozen=True)
class JSONReply:
    """A service's decoded JSON answer, or the reason there is none (``status`` is the last HTTP status)."""

    body: Any = None
    error: str | None = None
    status: int | None = None


@dataclass(frozen=True)
class PageReply:
    """A fetched page: its final URL (after redirects), content, content type and charset, or the reason none
    was read. ``truncated`` when the page was cut at the size cap; ``lasting`` when the reason will not change
    on asking again soon (robots.txt, a content type, a 404), so that it may be cached."""

    url: str
    content: bytes = b""
    content_type: str = ""
    charset: str | None = None
    truncated: bool = False
    error: str | None = None
    lasting: bool = False


class WebClient:
    """Sends the requests of web retrieval (see the module); thread-safe. ``sleep`` is injectable for tests."""

    def __init__(
        self,
        settings: WebSettings,
        *,
        cache: WebCache | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.settings = settings
        self.cache = cache
        self._http = httpx.Client(
            timeout=settings.timeout,
            follow_redirects=False,
            headers={"User-Agent": USER_AGENT},
            limits=httpx.Limits(max_connections=settings.concurrency),
            transport=transport,
        )
        self._slots = threading.BoundedSemaphore(settings.concurrency)
        self._retry = RetryPolicy(settings.max_retries, 1.0, settings.backoff_max, sleep)
        self._robots: dict[str, RobotFileParser] = {}
        self._robots_lock = threading.Lock()
        self._count_lock = threading.Lock()
        self.requests = 0

    def request_json(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, str | int] | None = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> JSONReply:
        """A JSON API call with retries; a transport error, an HTTP error or a body that is not JSON is a reply
        with its reason."""
        delivery = self._send(lambda: self._http.request(method, url, params=params, json=json, headers=headers))
        if delivery.error is not None or delivery.response is None:
            return JSONReply(error=f"no answer from {_host(url)}: {_reason(delivery.error)}")
        response = delivery.response
        if response.status_code >= 400:
            return JSONReply(error=f"HTTP {response.status_code} from {_host(url)}", status=response.status_code)
        try:
            return JSONReply(body=response.json(), status=response.status_code)
        except ValueError:
            return JSONReply(error=f"{_host(url)} answered with malformed JSON", status=response.status_code)

    def fetch_page(self, url: str) -> PageReply:
        """A web page, redirects followed (at most five hops, each allowed by its site's robots.txt when the
        settings say so), its body read up to ``max_page_bytes``."""
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            if urlsplit(current).scheme not in ("http", "https"):
                return PageReply(url=current, error="not an http(s) address", lasting=True)
            if self.settings.robots and not self.allowed(current):
                return PageReply(url=current, error="robots.txt disallows it", lasting=True)
            delivery = self._send(partial(self._read_capped, current))
            if delivery.error is not None or delivery.response is None:
                return PageReply(url=current, error=f"no answer: {_reason(delivery.error)}")
            response = delivery.response
            if response.is_redirect and "location" in response.headers:
                current = urljoin(current, response.headers["location"])
                continue
            if response.status_code >= 400:
                return PageReply(url=current, error=f"HTTP {response.status_code}", lasting=response.status_code in LASTING_STATUS)
            kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if kind not in PAGE_TYPES:
                return PageReply(url=current, content_type=kind, error=f"not a web page ({kind or 'no type'})",
                                 lasting=True)
            return PageReply(
                url=current,
                content=response.content,
                content_type=kind,
                charset=response.charset_encoding,
                truncated=response.extensions.get("factscope_truncated", False),
            )
        return PageReply(url=current, error=f"more than {MAX_REDIRECTS} redirects", lasting=True)

    def allowed(self, url: str) -> bool:
        """Whether the site's robots.txt lets factscope fetch ``url`` (read once per site, one site at a time,
        and cached)."""
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        with self._robots_lock:
            rules = self._robots.get(origin)
            if rules is None:
                rules = self._robots[origin] = self._robots_rules(origin)
        return rules.can_fetch(USER_AGENT, url)

    def close(self) -> None:
        """Close the connections."""
        self._http.close()

    def _robots_rules(self, origin: str) -> RobotFileParser:
        rules = RobotFileParser()
        key = web_cache_key("robots", origin, "/robots.txt", {})
        cached = self.cache.get(key) if self.cache is not None else None
        if cached is not None:
            status, text = cached.body
        else:
            delivery = self._send(lambda: self._http.get(f"{origin}/robots.txt", follow_redirects=True))
            response = delivery.response
            status = 599 if response is None else response.status_code
            text = response.text if response is not None and status < 300 else ""
            if self.cache is not None and status < 500:
                self.cache.put(key, "robots", [status, text])
        if status >= 500:
            rules.parse(["User-agent: *", "Disallow: /"])
        elif status >= 400:
            rules.parse([])
        else:
            rules.parse(text.splitlines())
        return rules

    def _read_capped(self, url: str) -> httpx.Response:
        """GET ``url`` and read at most ``max_page_bytes`` of it; a page that is not a web page is not read."""
        cap = self.settings.max_page_bytes
        with self._http.stream("GET", url) as streamed:
            kind = streamed.headers.get("content-type", "").split(";")[0].strip().lower()
            chunks: list[bytes] = []
            size = 0
            truncated = False
            if streamed.status_code < 300 and kind in PAGE_TYPES:
                for chunk in streamed.iter_bytes():
                    chunks.append(chunk)
                    size += len(chunk)
                    if size >= cap:
                        truncated = size > cap
                        break
            body = b"".join(chunks)[:cap]
            headers = [(name, value) for name, value in streamed.headers.items()
                       if name.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
            return httpx.Response(
                streamed.status_code,
                headers=headers,
                content=body,
                request=streamed.request,
                extensions={"factscope_truncated": truncated},
            )

    def _send(self, request: Callable[[], httpx.Response]) -> Any:
        def counted() -> httpx.Response:
            with self._count_lock:
                self.requests += 1
            return request()

        with self._slots:
            return self._retry.send(counted)


def _host(url: str) -> str:
    return urlsplit(url).netloc or url


def _reason(error: BaseException | None) -> str:
    """A transport error in words: its type (a message could quote a header, so it is left out)."""
    if error is None:
        return "no response"
    if isinstance(error, httpx.TimeoutException):
        return "timed out"
    if isinstance(error, httpx.ConnectError):
        return "cannot connect"
    return type(error).__name__
