"""Google results through the Serper API (https://serper.dev), as RefChecker, SAFE, VeriScore and FacTool use it:
organic results are fetched and read; an answer box is a passage of its own (RefChecker puts it first)."""

from __future__ import annotations

from typing import Any

from factscope.retrieve.web_client import JSONReply, WebClient
from factscope.retrieve.web_search import SearchAnswer, SearchHit, WebSearchAPI, items_at

SERPER_URL = "https://google.serper.dev"
KEY_VARIABLE = "SERPER_API_KEY"


class SerperSearch(WebSearchAPI):
    """``web:serper``: POST {base_url}/search with the key from SERPER_API_KEY in the X-API-KEY header."""

    name = "web:serper"
    key_variable = KEY_VARIABLE
    default_url = SERPER_URL
    service = "Serper"

    def request(self, client: WebClient, query: str, count: int, key: str) -> JSONReply:
        """POST the search with the key in the X-API-KEY header."""
        return client.request_json(
            "POST", f"{self.base_url}/search", json={"q": query, "num": count, "hl": self.language},
            headers={"X-API-KEY": key, "Content-Type": "application/json"},
        )

    def answer(self, body: Any, count: int) -> SearchAnswer:
        """The answer box (when there is one) and the first ``count`` organic results."""
        organic = items_at(body, "organic")
        if organic is None:
            return SearchAnswer(error="Serper's answer has no list of organic results")
        hits = [
            SearchHit(str(item["link"]), str(item.get("title", "")))
            for item in organic if isinstance(item.get("link"), str)
        ][:count]
        box = body.get("answerBox")
        if isinstance(box, dict):
            text = box.get("answer") or box.get("snippet") or box.get("snippetHighlighted")
            if isinstance(text, list):
                text = " ".join(str(piece) for piece in text)
            if isinstance(text, str) and text.strip():
                given = box.get("link")
                link = given if isinstance(given, str) else f"{self.base_url}/search"
                hits.insert(0, SearchHit(link, str(box.get("title", "Google answer box")), text=text.strip()))
        return SearchAnswer(tuple(hits))
