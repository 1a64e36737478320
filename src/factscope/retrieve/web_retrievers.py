"""The retrievers that find evidence outside the user's files, by name: ``web:serper``, ``web:brave`` and
``wikipedia`` (a plugin may add search services to the entry-point group ``factscope.search_services``). Their
names are declared in ``factscope.retrieve.retriever_names``, which is light to import."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from factscope.core.errors import ConfigError
from factscope.core.registry import Argument, Entry, Registry, parse_spec
from factscope.retrieve.brave import BraveSearch
from factscope.retrieve.retriever_names import EvidenceRetrieverName, RetrieveFor, SearchServiceName
from factscope.retrieve.serper import SerperSearch
from factscope.retrieve.web_evidence import WebEvidence
from factscope.retrieve.web_search import SearchService
from factscope.retrieve.web_settings import WebSettings
from factscope.retrieve.wikipedia import WikipediaSearch

if TYPE_CHECKING:
    from factscope.hf.encoders import TextEncoder
    from factscope.llm.client import LLMClient

__all__ = [
    "SEARCH_SERVICES", "WEB_APIS", "EvidenceRetrieverName", "RetrieveFor", "SearchServiceName", "is_web_retriever",
    "make_web_evidence",
]

WEB_APIS: dict[str, Callable[..., SearchService]] = {"serper": SerperSearch, "brave": BraveSearch}
"""The web search APIs of ``web:API``."""


def _web(argument: str | None, *, settings: WebSettings, **_: Any) -> SearchService:
    api = WEB_APIS.get(argument or "")
    if api is None:
        raise ConfigError(f"unknown web search API '{argument}'; known: {', '.join(WEB_APIS)}")
    return api(settings.search_url, language=settings.language)


def _wikipedia(argument: None, *, settings: WebSettings, **_: Any) -> SearchService:
    return WikipediaSearch(settings.search_url, language=settings.language)


SEARCH_SERVICES: Registry[SearchService] = Registry(
    "search service",
    "factscope.search_services",
    [
        Entry("web", "web search results, fetched and read", _web,
              Argument("API", "serper (Google results, key in SERPER_API_KEY) or brave (key in BRAVE_API_KEY)")),
        Entry("wikipedia", "Wikipedia pages through the MediaWiki API, no key", _wikipedia),
    ],
)

def is_web_retriever(spec: str) -> bool:
    """Whether ``spec`` names a search service rather than a corpus retriever."""
    return parse_spec(spec).name in SEARCH_SERVICES.names()


def make_web_evidence(
    spec: str,
    settings: WebSettings | None = None,
    *,
    k: int = 5,
    llm: LLMClient | None = None,
    encoder: TextEncoder | None = None,
) -> WebEvidence:
    """The web evidence of the search service ``spec`` ('web:serper', 'web:brave', 'wikipedia' or a plugin's)."""
    settings = settings or WebSettings()
    return WebEvidence(SEARCH_SERVICES.build(spec, settings=settings), settings, k=k, llm=llm, encoder=encoder)
