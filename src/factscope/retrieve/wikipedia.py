"""Wikipedia through the MediaWiki API, as FActScore retrieves its evidence: full-text search for titles, then
each page's plain text (the TextExtracts API), no key needed, in any language edition."""

from __future__ import annotations

from urllib.parse import quote

from factscope.retrieve.web_client import WebClient
from factscope.retrieve.web_search import PageRead, SearchAnswer, SearchHit, items_at

WIKIPEDIA_URL = "https://{language}.wikipedia.org/w/api.php"
"""The API's address; ``{language}`` is replaced by the language edition."""


class WikipediaSearch:
    """``wikipedia``: the ``language`` edition's search (list=search) and page text (prop=extracts)."""

    name = "wikipedia"
    key_variable: str | None = None

    def __init__(self, base_url: str | None = None, *, language: str = "en") -> None:
        self.language = language
        self.base_url = (base_url or WIKIPEDIA_URL).replace("{language}", language)

    def search(self, client: WebClient, query: str, count: int) -> SearchAnswer:
        """The titles of the first ``count`` pages found for ``query``, with their addresses."""
        reply = client.request_json("GET", self.base_url, params={
            "action": "query", "list": "search", "srsearch": query, "srlimit": count, "srprop": "",
            "format": "json", "formatversion": 2,
        })
        if reply.error is not None:
            return SearchAnswer(error=reply.error)
        found = items_at(reply.body, "query", "search")
        if found is None:
            return SearchAnswer(error="Wikipedia's answer has no list of search results")
        titles = [str(item["title"]) for item in found if isinstance(item.get("title"), str)][:count]
        return SearchAnswer(tuple(SearchHit(self.page_url(title), title) for title in titles))

    def read(self, client: WebClient, hit: SearchHit) -> PageRead:
        """The page's whole plain text."""
        reply = client.request_json("GET", self.base_url, params={
            "action": "query", "prop": "extracts|info", "explaintext": 1, "inprop": "url", "redirects": 1,
            "titles": hit.title, "format": "json", "formatversion": 2,
        })
        if reply.error is not None:
            return PageRead(url=hit.url, error=reply.error)
        pages = items_at(reply.body, "query", "pages")
        if not pages:
            return PageRead(url=hit.url, error="Wikipedia's answer has no page", lasting=True)
        page = pages[0]
        text = page.get("extract")
        if not isinstance(text, str) or not text.strip():
            return PageRead(url=hit.url, error="the page has no text", lasting=True)
        url = page.get("fullurl") if isinstance(page.get("fullurl"), str) else hit.url
        return PageRead(url=str(url), title=str(page.get("title", hit.title)), text=text.strip())

    def page_url(self, title: str) -> str:
        """The reader's address of the page called ``title`` in this language edition."""
        return f"https://{self.language}.wikipedia.org/wiki/{quote(title.replace(' ', '_'))}"
