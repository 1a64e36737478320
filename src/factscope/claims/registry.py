"""Building an extractor from a short spec string, as the CLI names them."""

from __future__ import annotations

from typing import Any

from factscope.claims.base import Extractor
from factscope.core.errors import ConfigError

EXTRACTOR_SPECS = (
    "rules (offline spaCy claim-triplets, default), sentences (one claim per sentence), "
    "facts (offline spaCy atomic facts), llm (claim-triplets by an LLM), "
    "llm-claims (sub-sentence atomic claims by an LLM), llm-facts (atomic facts by an LLM, seed 003 style)"
)


def make_extractor(spec: str = "rules", *, llm: Any = None) -> Extractor:
    """An Extractor for ``spec``; the LLM ones need a client."""
    if spec == "rules":
        from factscope.claims.rule_triplets import RuleTripletExtractor

        return RuleTripletExtractor()
    if spec == "sentences":
        from factscope.claims.sentences import SentenceExtractor

        return SentenceExtractor()
    if spec == "facts":
        from factscope.claims.clause_facts import ClauseFactExtractor

        return ClauseFactExtractor()
    if spec in {"llm", "llm-claims", "llm-facts"}:
        if llm is None:
            raise ConfigError(
                f"the {spec} extractor needs a chat model: pass --llm-base-url and --llm-model "
                "(or set FACTSCOPE_LLM_BASE_URL and FACTSCOPE_LLM_MODEL)"
            )
        from factscope.claims.llm_facts import LLMFactExtractor
        from factscope.claims.llm_triplets import AtomicClaimExtractor, TripletExtractor

        choices = {"llm": TripletExtractor, "llm-claims": AtomicClaimExtractor, "llm-facts": LLMFactExtractor}
        return choices[spec](llm)
    raise ConfigError(f"unknown extractor '{spec}'; use one of: {EXTRACTOR_SPECS}")
