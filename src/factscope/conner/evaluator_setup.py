"""Assembling a KnowledgeEvaluator from component names, as the CLI and the Python API name them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from factscope.conner.evaluator import KnowledgeEvaluator, KnowledgeSettings
from factscope.conner.spec import DEFAULT_COHERENCE_MODEL, DEFAULT_RELEVANCE_MODEL, KnowledgeSpec
from factscope.core.errors import ConfigError
from factscope.hf.embedded_lm import EXTRA_HINT

GivenLM = TypeVar("GivenLM")
"""A causal LM as a run is given it: a name, or a ready model."""

LLAMACPP_PREFIX = "llamacpp:"
"""``lm`` names starting with it run a GGUF file with llama.cpp."""

if TYPE_CHECKING:
    from factscope.conner.coherence import ParagraphCoherence
    from factscope.conner.relevance import RelevanceModel
    from factscope.hf.causal_lm import TokenLogProbs
    from factscope.llm.client import LLMClient
    from factscope.retrieve.corpus import Retriever
    from factscope.retrieve.web_evidence import WebEvidence
    from factscope.retrieve.web_settings import WebSettings


def parse_weights(text: str) -> tuple[float, float, float, float]:
    """Q_know's gamma from "f,r,c,i" (factuality, relevance, coherence, informativeness)."""
    try:
        values = tuple(float(part) for part in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 4:
        raise ConfigError(
            f"`weights` takes four comma-separated numbers (factuality,relevance,coherence,informativeness), "
            f"got {text!r}"
        )
    return values[0], values[1], values[2], values[3]


def make_evaluator(spec: KnowledgeSpec | None = None, *, llm: LLMClient | None = None) -> KnowledgeEvaluator:
    """The KnowledgeEvaluator of ``spec`` (default: ``KnowledgeSpec()``): its ready ``evaluator``, else one built
    from its parts, whose models load only for the metrics they serve.

    ``corpus`` (evidence passages), or a ``retriever`` that searches the web or Wikipedia ('web:serper',
    'web:brave', 'wikipedia', as ``web`` says), enables factuality and open-ended validity; ``lm`` (a causal LM name or
    folder, 'embedded' for the embedded SmolLM2 (the ``lm`` extra), a ``.gguf`` file run by transformers,
    'llamacpp:FILE.gguf' or 'llamacpp:embedded' run by llama.cpp (the ``llamacpp`` extra), or 'endpoint' for the
    completions endpoint of ``llm``) enables sentence coherence,
    informativeness and helpfulness; 'none' switches the checker, relevance or coherence model off. ``mode``
    'fast' is deprecated for the checker: it warns and scores as exact mode. The checker, relevance, coherence and LM parts are each a name
    (built here) or a ready object (used as it is).
    """
    from factscope.checkers.options import CheckerOptions
    from factscope.checkers.registry import make_checker
    from factscope.conner.coherence import AdjacentSimilarityCoherence, ClassifierCoherence
    from factscope.conner.relevance import BiEncoderRelevance, CrossEncoderRelevance

    spec = spec or KnowledgeSpec()
    if spec.evaluator is not None:
        return spec.evaluator
    settings = KnowledgeSettings(
        evidence_k=spec.evidence_k, aggregate=spec.aggregate, evidence_aggregate=spec.evidence_aggregate,
        rank_by=spec.rank_by, hard_factuality=spec.hard, baselines=spec.baselines, seed=spec.seed,
        weights=parse_weights(spec.weights),
    )
    relevance, coherence, checker, lm = spec.relevance, spec.coherence, spec.checker, spec.lm
    ranker: RelevanceModel | None = (
        relevance if not isinstance(relevance, str) else None if relevance == "none"
        else BiEncoderRelevance() if relevance == DEFAULT_RELEVANCE_MODEL else CrossEncoderRelevance(relevance)
    )
    paragraph: ParagraphCoherence | None = (
        coherence if not isinstance(coherence, str) else None if coherence == "none"
        else AdjacentSimilarityCoherence() if coherence == DEFAULT_COHERENCE_MODEL else ClassifierCoherence(coherence)
    )
    return KnowledgeEvaluator(
        checker=(
            checker if not isinstance(checker, str) else make_checker(checker, options=CheckerOptions(mode=spec.mode), llm=llm)
            if checker != "none" else None
        ),
        retriever=_retriever(spec.retriever, spec.corpus, spec.evidence_k, spec.web),
        relevance=ranker,
        coherence=paragraph,
        lm=lm if lm is None or not isinstance(lm, str) else _causal_lm(lm, llm),
        settings=settings,
    )


def _retriever(
    name: str, corpus: str | Path | None, k: int, web: WebSettings | None
) -> Retriever | WebEvidence | None:
    """The evidence retriever: a search service (checked for its key and network before any work), else the
    named retriever over ``corpus``, else none."""
    from factscope.retrieve.corpus import Corpus, make_retriever
    from factscope.retrieve.web_retrievers import is_web_retriever, make_web_evidence

    if is_web_retriever(name):
        evidence = make_web_evidence(name, web, k=k)
        evidence.preflight()
        return evidence
    return make_retriever(name, Corpus.from_path(corpus)) if corpus else None


def spec_missing_parts(spec: KnowledgeSpec) -> list[str]:
    """What the evaluator of ``spec`` will not compute for want of a part (``missing_parts``), told without
    building it: no corpus nor web retriever, no causal LM."""
    from factscope.retrieve.web_retrievers import is_web_retriever

    if spec.evaluator is not None:
        return missing_parts(spec.evaluator)
    return missing_parts_of(
        has_retriever=spec.corpus is not None or is_web_retriever(spec.retriever), has_lm=uses_lm(spec)
    )


def uses_lm(spec: KnowledgeSpec) -> bool:
    """Whether ``spec`` scores with a causal LM (whose helpfulness baselines need the pool of all records)."""
    return spec.evaluator.lm is not None if spec.evaluator is not None else spec.lm not in (None, "", "none")


def missing_parts(evaluator: KnowledgeEvaluator) -> list[str]:
    """What the evaluator cannot compute for want of a part, as notes that say which option supplies it."""
    return missing_parts_of(has_retriever=evaluator.retriever is not None, has_lm=evaluator.lm is not None)


def missing_parts_of(*, has_retriever: bool, has_lm: bool) -> list[str]:
    """What an evaluator with or without an evidence retriever and a causal LM cannot compute, as notes that say
    which option supplies the part."""
    notes = []
    if not has_retriever:
        notes.append(
            "no `corpus` or web retriever: open-ended validity is not computed, nor factuality but for records "
            "that carry their own 'evidence' passages"
        )
    if not has_lm:
        notes.append(
            "no `lm`: sentence coherence, informativeness and helpfulness are not computed "
            f"(pass `lm='embedded'` after {EXTRA_HINT}, `lm='gpt2'`, a local folder, or `lm='endpoint'`)"
        )
    return notes


def default_lm(spec: GivenLM | None) -> GivenLM | str | None:
    """The causal LM a run uses: the one given (a name or a ready model), else the embedded LM when the ``lm``
    extra is installed (`lm='none'` turns the LM off)."""
    from factscope.hf.embedded_lm import embedded_lm_available

    if spec is None:
        return "embedded" if embedded_lm_available() else None
    return spec


def _causal_lm(spec: str, llm: LLMClient | None) -> TokenLogProbs | None:
    """The causal LM named by ``spec`` ('embedded', a ``.gguf`` file, 'llamacpp:' and either, 'endpoint':
    ``llm``'s completions endpoint, a Hugging Face name or folder; '' or 'none': none)."""
    if not spec or spec == "none":
        return None
    if spec == "embedded":
        from factscope.hf.embedded_lm import shared_embedded_lm

        return shared_embedded_lm()
    if spec.startswith(LLAMACPP_PREFIX):
        from factscope.hf.llama_cpp_lm import LlamaCppLM

        model = spec.removeprefix(LLAMACPP_PREFIX)
        return LlamaCppLM(None if model == "embedded" else model)
    if spec.endswith(".gguf"):
        from factscope.hf.embedded_lm import EmbeddedLM

        return EmbeddedLM(spec)
    if spec == "endpoint":
        from factscope.hf.causal_lm import EndpointCausalLM

        if llm is None:
            raise ConfigError("`lm='endpoint'` needs the completions endpoint: pass `llm`")
        return EndpointCausalLM(llm)
    from factscope.hf.causal_lm import HFCausalLM

    return HFCausalLM(spec)
