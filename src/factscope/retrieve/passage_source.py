"""Where a retrieved passage came from, and what retrieving it cost: kept with a verdict's evidence."""

from __future__ import annotations

from pydantic import BaseModel


class PassageSource(BaseModel):
    """A retrieved passage's page: its address, title (the page's own, else the search result's), the title the
    search result gave it, when it was fetched (ISO 8601, UTC), the retriever that found it and the query it
    answered."""

    url: str
    title: str = ""
    search_title: str = ""
    fetched_at: str
    retriever: str
    query: str


class RetrievalCost(BaseModel):
    """The requests a record's retrieval needed: searches and page reads sent to the services, those answered by
    the cache instead, and those that failed (their reasons are in the record's retrieval problems); and the pages
    its searches found (each once per record), which it read or failed to read."""

    searches: int = 0
    cached_searches: int = 0
    pages_found: int = 0
    page_fetches: int = 0
    cached_pages: int = 0
    failures: int = 0

    def add(self, other: RetrievalCost) -> None:
        """Count ``other``'s requests too."""
        for name in RetrievalCost.model_fields:
            setattr(self, name, getattr(self, name) + getattr(other, name))
