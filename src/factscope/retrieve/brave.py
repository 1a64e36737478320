"""Web results through the Brave Search API (https://api.search.brave.com), whose index is Brave's own, not
Google's: a second, independent view of the web beside Serper."""

from __future__ import annotations

from factscope.retrieve.web_client import WebClient
from factscope.retrieve.web_search import (
    SearchAnswer,
    SearchHit,
    WebSearchAPI,
    api_key,
    items_at,
    rejected,
)

BRAVE_URL = "https://api.search.brave.com"
KEY_VARIABLE = "BRAVE_API_KEY"


class BraveSearch(WebSearchAPI):
    """``web:brave``: GET {base_url}/res/v1/web/search with the key from BRAVE_API_KEY in the
    X-Subscription-Token header."""

    name = "web:brave"
    key_variable: str | None = KEY_VARIABLE

    default_url = BRAVE_URL

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
