"""What a search service is to web retrieval: it answers a query with hits (pages, or passages it gives
itself) and reads a hit's text; the web services share ``read_web_page``, Wikipedia reads its own API."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Protocol

from factscope.core.errors import ConfigError
from factscope.retrieve.page_text import page_text
from factscope.retrieve.web_client import JSONReply, WebClient


@dataclass(frozen=True)
class SearchHit:
    """One search result: its address and title, and its ``text`` when the service gave the passage itself (an
    answer box), so that no page need be fetched."""

    url: str
    title: str
    text: str | None = None


@dataclass(frozen=True)
class SearchAnswer:
    """A query's hits, or the reason there are none."""

    hits: tuple[SearchHit, ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class PageRead:
    """A hit's text read from its page (``url`` after redirects), or the reason there is none (``lasting``: a
    reason asking again soon will not change, which the cache may keep)."""

    url: str
    title: str = ""
    text: str = ""
    error: str | None = None
    lasting: bool = False


class SearchService(Protocol):
    """A search API: its spec name, the environment variable of its key (None: it needs none) and its base URL."""

    name: str
    base_url: str

    @property
    def key_variable(self) -> str | None:
        """The environment variable of the service's key; None when it needs none."""
        ...

    def search(self, client: WebClient, query: str, count: int) -> SearchAnswer:
        """The first ``count`` hits for ``query``."""
        ...

    def read(self, client: WebClient, hit: SearchHit) -> PageRead:
        """The text of a hit's page."""
        ...


class WebSearchAPI(ABC):
    """What a keyed web search API shares: its base URL (``default_url`` unless given), the language it asks for,
    a search (the request with its key, then its answer read) and reading a hit's page from the web
    (:func:`read_web_page`)."""

    name: str
    key_variable: str
    default_url: str
    service: str
    """The API's name in messages."""

    def __init__(self, base_url: str | None = None, *, language: str = "en") -> None:
        self.base_url = (base_url or self.default_url).rstrip("/")
        self.language = language

    def search(self, client: WebClient, query: str, count: int) -> SearchAnswer:
        """The first ``count`` hits for ``query`` (``answer``); a ConfigError when the API refuses the key, the
        reply's error when it fails."""
        reply = self.request(client, query, count, api_key(self.key_variable, self.name))
        rejected(reply, self.service, self.key_variable)
        if reply.error is not None:
            return SearchAnswer(error=reply.error)
        return self.answer(reply.body, count)

    @abstractmethod
    def request(self, client: WebClient, query: str, count: int, key: str) -> JSONReply:
        """The API's reply to ``query`` asking for ``count`` results, sent with ``key``."""

    @abstractmethod
    def answer(self, body: Any, count: int) -> SearchAnswer:
        """The first ``count`` hits of a reply's JSON body, or the reason it holds none."""

    def read(self, client: WebClient, hit: SearchHit) -> PageRead:
        """The hit's page, fetched and extracted."""
        return read_web_page(client, hit.url, hit.title)


def read_web_page(client: WebClient, url: str, title: str) -> PageRead:
    """A web page fetched politely (``WebClient.fetch_page``) and its main text extracted (``page_text``)."""
    page = client.fetch_page(url)
    if page.error is not None:
        return PageRead(url=page.url, error=page.error, lasting=page.lasting)
    extracted = page_text(page.content, content_type=page.content_type, charset=page.charset)
    if not extracted.text:
        return PageRead(url=page.url, error="no readable text", lasting=True)
    return PageRead(url=page.url, title=extracted.title or title, text=extracted.text)


def api_key(variable: str, service: str) -> str:
    """The key in the environment variable ``variable``; a ConfigError naming it when it is unset."""
    key = os.environ.get(variable, "").strip()
    if not key:
        raise ConfigError(f"the {service} retriever needs an API key: set the environment variable {variable}")
    return key


def rejected(reply: JSONReply, service: str, variable: str) -> None:
    """Raise a ConfigError when ``service`` refused the key (HTTP 401 / 403): every search would fail."""
    if reply.status in (401, 403):
        raise ConfigError(f"{service} refused the API key (HTTP {reply.status}); check {variable}")


def items_at(body: Any, *path: str) -> list[dict[str, Any]] | None:
    """The list of objects at ``path`` in a JSON body, or None when the body has another shape."""
    for name in path:
        if not isinstance(body, dict):
            return None
        body = body.get(name)
    if not isinstance(body, list):
        return None
    return [item for item in body if isinstance(item, dict)]
