"""The extractor registry: extractors by the short spec names the CLI uses, plus plugins.

Plugins register in the entry-point group ``factscope.extractors`` (see factscope.core.registry); a factory is
called as ``factory(argument, llm=client_or_None, **options)``. ``EXTRACTOR_SPECS`` is the registry's help text,
made on first access so that plugins are listed and imported only when someone asks.
"""

from __future__ import annotations

from typing import Any

from factscope.claims.base import Extractor
from factscope.core.registry import Entry, Registry


def _rules(argument: None, **_: Any) -> Extractor:
    from factscope.claims.rule_triplets import RuleTripletExtractor

    return RuleTripletExtractor()


def _sentences(argument: None, **_: Any) -> Extractor:
    from factscope.claims.sentences import SentenceExtractor

    return SentenceExtractor()


def _facts(argument: None, **_: Any) -> Extractor:
    from factscope.claims.clause_facts import ClauseFactExtractor

    return ClauseFactExtractor()


def _llm_triplets(argument: None, *, llm: Any, **_: Any) -> Extractor:
    from factscope.claims.llm_triplets import TripletExtractor

    return TripletExtractor(llm)


def _llm_claims(argument: None, *, llm: Any, **_: Any) -> Extractor:
    from factscope.claims.llm_triplets import AtomicClaimExtractor

    return AtomicClaimExtractor(llm)


def _llm_facts(argument: None, *, llm: Any, **_: Any) -> Extractor:
    from factscope.claims.llm_facts import LLMFactExtractor

    return LLMFactExtractor(llm)


EXTRACTORS: Registry[Extractor] = Registry(
    "extractor",
    "factscope.extractors",
    [
        Entry("rules", "offline spaCy claim-triplets, default", _rules),
        Entry("sentences", "one claim per sentence", _sentences),
        Entry("facts", "offline spaCy atomic facts", _facts),
        Entry("llm", "claim-triplets by an LLM", _llm_triplets, needs_llm=True),
        Entry("llm-claims", "sub-sentence atomic claims by an LLM", _llm_claims, needs_llm=True),
        Entry("llm-facts", "atomic facts by an LLM, Truly Ground style", _llm_facts, needs_llm=True),
    ],
)


def __getattr__(name: str) -> str:
    """``EXTRACTOR_SPECS``: the registry's help text, plugins included."""
    if name == "EXTRACTOR_SPECS":
        return EXTRACTORS.help_text()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make_extractor(spec: str = "rules", *, llm: Any = None, **options: Any) -> Extractor:
    """An Extractor for ``spec``; the LLM ones need a client (``llm``); ``options`` go to the factory."""
    return EXTRACTORS.build(spec, llm=llm, **options)
