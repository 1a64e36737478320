"""Web results through the Brave Search API (https://api.search.brave.com), whose index is Brave's own, not
Google's: a second, independent view of the web beside Serper."""

from __future__ import annotations

from typing import Any

from factscope.retrieve.web_client import JSONReply, WebClient
from factscope.retrieve.web_search import SearchAnswer, SearchHit, WebSearchAPI, items_at

BRAVE_URL = "https://api.search.brave.com"
KEY_VARIABLE = "BRAVE_API_KEY"


class BraveSearch(WebSearchAPI):
    """``web:brave``: GET {base_url}/res/v1/web/search with the key from BRAVE_API_KEY in the
    X-Subscription-Token header."""

    name = "web:brave"
    key_variable = KEY_VARIABLE
    default_url = BRAVE_URL
    service = "Brave Search"

    def request(self, client: WebClient, query: str, count: int, key: str) -> JSONReply:
        """GET the web search with the key in the X-Subscription-Token header."""
        return client.request_json(
            "GET",
            f"{self.base_url}/res/v1/web/search",
            params={"q": query, "count": count, "search_lang": self.language},
            headers={"X-Subscription-Token": key, "Accept": "application/json"},
        )

    def answer(self, body: Any, count: int) -> SearchAnswer:
        """The first ``count`` web results."""
        results = items_at(body, "web", "results")
        if results is None:
            return SearchAnswer(error="Brave's answer has no list of web results")
        return SearchAnswer(tuple(
            SearchHit(str(item["url"]), str(item.get("title", "")))
            for item in results if isinstance(item.get("url"), str)
        )[:count])
