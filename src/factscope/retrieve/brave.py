"""Web results through the Brave Search API (https://api.search.brave.com), whose index is Brave's own, not
Google's: a second, independent view of the web beside Serper."""

from __future__ import annotations

from factscope.retrieve.web_client import WebClient
from factscope.retrieve.web_search import (
    PageRead,
    SearchAnswer,
    SearchHit,
    api_key,
    items_at,
    read_web_page,
    rejected,
)

BRAVE_URL = "https://api.search.brave.com"
KEY_VARIABLE = "BRAVE_API_KEY"


class BraveSearch:
    """``web:brave``: GET {base_url}/res/v1/web/search with the key from BRAVE_API_KEY in the
    X-Subscription-Token header."""

    name = "web:brave"
    key_variable: str | None = KEY_VARIABLE

    def __init__(self, base_url: str | None = None, *, language: str = "en") -> None:
        self.base_url = (base_url or BRAVE_URL).rstrip("/")
        self.language = language

    def search(self, client: WebClient, query: str, count: int) -> SearchAnswer:
        """The first ``count`` web results."""
        headers = {"X-Subscription-Token": api_key(KEY_VARIABLE, "web:brave"), "Accept": "application/json"}
        reply = client.request_json(
            "GET",
            f"{self.base_url}/res/v1/web/search",
            params={"q": query, "count": count, "search_lang": self.language},
            headers=headers,
        )
        rejected(reply, "Brave Search", KEY_VARIABLE)
        if reply.error is not None:
            return SearchAnswer(error=reply.error)
        results = items_at(reply.body, "web", "results")
        if results is None:
            return SearchAnswer(error="Brave's answer has no list of web results")
        return SearchAnswer(tuple(
            SearchHit(str(item["url"]), str(item.get("title", "")))
            for item in results if isinstance(item.get("url"), str)
        )[:count])

    def read(self, client: WebClient, hit: SearchHit) -> PageRead:
        """The result's page, fetched and extracted."""
        return read_web_page(client, hit.url, hit.title)
