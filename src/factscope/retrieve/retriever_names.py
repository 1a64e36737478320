"""The names of the retrievers a check can choose and of the records they serve, light to import: a spec's option
takes its choices from them (``factscope.refchecker.spec``) without loading the search services."""

from __future__ import annotations

from typing import Literal, get_args

from factscope.core.registry import parse_spec
from factscope.retrieve.corpus import RetrieverName

SearchServiceName = Literal["web:serper", "web:brave", "wikipedia"]
"""The built-in search services (``factscope.retrieve.web_retrievers.SEARCH_SERVICES``)."""

EvidenceRetrieverName = Literal[RetrieverName, SearchServiceName]
"""Every built-in retriever of a check: the corpus retrievers, then the search services."""

RetrieveFor = Literal["missing", "all"]
"""Which records get retrieved passages: those without references, or every record (added to its own)."""


def names_search_service(retriever: object) -> bool:
    """Whether ``retriever`` names a search service ('web:serper', 'wikipedia', a plugin's) rather than a
    built-in corpus retriever, without importing the search services (for the options' rules, which take a
    plugin's corpus retriever for a search service: they then let its options count); a ready retriever (a spec's
    once its components are built) counts as one, as it may search."""
    if retriever is not None and not isinstance(retriever, str):
        return True
    return isinstance(retriever, str) and parse_spec(retriever).name not in get_args(RetrieverName)
