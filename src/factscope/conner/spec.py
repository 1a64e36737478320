"""What a knowledge-scoring run is made of and set to (``KnowledgeSpec``): the one place its options and their
defaults are declared, which the Python API, the command line and the server take theirs from. Light to import:
the types of ready components are named for the type checker only."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from factscope.checkers.checker_rules import FAST_MODE
from factscope.checkers.defaults import DEFAULT_CHECKER, DEFAULT_MODE
from factscope.core.options.metadata import about
from factscope.core.options.validation import ValidatedOptions
from factscope.core.seeds import SEED_MAX
from factscope.retrieve.web_settings import WebSettings

if TYPE_CHECKING:
    from factscope.checkers.base import Checker
    from factscope.checkers.options import CheckMode
    from factscope.conner.coherence import ParagraphCoherence
    from factscope.conner.evaluator import KnowledgeEvaluator
    from factscope.conner.relevance import RelevanceModel
    from factscope.hf.causal_lm import TokenLogProbs
    from factscope.metrics.conner import Aggregation, EvidenceAggregation, SentenceRanking
    from factscope.retrieve.web_retrievers import EvidenceRetrieverName

KNOWLEDGE_BATCH_SIZE = 16
"""The default batch of a run: records per scoring batch."""

DEFAULT_Q_KNOW_WEIGHTS = "0.25,0.25,0.25,0.25"
"""Q_know's weights of factuality, relevance, coherence and informativeness: equal, as in CONNER."""

DEFAULT_RELEVANCE_MODEL = "bi-encoder"
"""The relevance model of a run that names none: a bi-encoder's cosine of query and knowledge."""

DEFAULT_COHERENCE_MODEL = "proxy"
"""The paragraph coherence of a run that names none: the adjacent-sentence similarity proxy."""


Q_KNOW_WEIGHTS = 4
"""How many weights Q_know takes: factuality, relevance, coherence, informativeness."""


def check_weights(value: str) -> None:
    """Refuse Q_know weights that are not four comma-separated finite numbers of 0 or more."""
    try:
        weights = [float(part.strip()) for part in value.split(",")]
    except ValueError:
        weights = []
    if len(weights) != Q_KNOW_WEIGHTS or not all(math.isfinite(w) and w >= 0 for w in weights):
        raise ValueError(
            f"{value!r}: give four comma-separated finite numbers of 0 or more "
            f"(factuality,relevance,coherence,informativeness), e.g. {DEFAULT_Q_KNOW_WEIGHTS}"
        )


@dataclass(frozen=True)
class KnowledgeSpec(ValidatedOptions):
    """The evaluator of a knowledge-scoring run: a ready ``evaluator``, or the parts
    ``factscope.conner.evaluator_setup.make_evaluator`` builds it from (``corpus`` enables factuality and
    open-ended validity, and its fingerprint goes into the manifest; ``lm``, a causal LM or 'endpoint', enables
    sentence coherence, informativeness and helpfulness; ``mode`` 'fast' is deprecated for the checker (it
    warns and scores as exact mode); ``checker``,
    ``relevance``, ``coherence`` and ``lm`` are each a name or a ready object). ``pool``: the knowledge texts the
    helpfulness baselines are drawn from (settled by ``prepare`` when a causal LM is configured). A ``retriever``
    that searches the web or Wikipedia ('web:serper', 'web:brave', 'wikipedia') needs no corpus: it searches as
    ``web`` says."""

    evaluator: KnowledgeEvaluator | None = None
    corpus: Path | None = field(default=None, metadata=about(
        "evidence corpus (factuality, dialogue validity): JSONL of {id, title?, text} or a folder of .txt"
    ))
    retriever: EvidenceRetrieverName = field(default="bm25", metadata=about(
        "evidence retriever: bm25, dense or hybrid over `corpus`; web:serper, web:brave or wikipedia search for "
        "each sentence", recorded_by="evaluator"
    ))
    evidence_k: int = field(default=5, metadata=about(
        "l: evidence passages per sentence", flag="--evidence-k", min=1, recorded_by="evaluator"
    ))
    aggregate: Aggregation = field(default="min", metadata=about(
        "how factuality aggregates the sentences (eq. 1: min)", recorded_by="evaluator"
    ))
    evidence_aggregate: EvidenceAggregation = field(default="max", metadata=about(
        "how factuality aggregates a sentence's evidence passages (eq. 1: max, the best-entailing one)",
        recorded_by="evaluator",
    ))
    rank_by: SentenceRanking = field(default="entailment", metadata=about(
        "how `aggregate` min / max rank sentences: entailment probability (eq. 1) or argmax label, contradiction "
        "< neutral < entailment (CONNER's released scripts)", recorded_by="evaluator"
    ))
    hard: bool = field(default=False, metadata=about(
        "count each sentence by its argmax label", flag="--hard-factuality", recorded_by="evaluator"
    ))
    checker: str | Checker = field(default=DEFAULT_CHECKER, metadata=about(
        "NLI checker (factuality, dialogue validity; qa validity of records with a gold_answer): embedded, "
        "nli:MODEL, path:DIR, llm, similarity", option_type=str, recorded_by="evaluator"
    ))
    relevance: str | RelevanceModel = field(default=DEFAULT_RELEVANCE_MODEL, metadata=about(
        "relevance's ranking cross-encoder (name or folder); 'bi-encoder' the packaged fallback; 'none'",
        flag="--relevance-model", option_type=str, recorded_by="evaluator",
    ))
    coherence: str | ParagraphCoherence = field(default=DEFAULT_COHERENCE_MODEL, metadata=about(
        "paragraph coherence's classifier (name or folder); 'proxy' offline (adjacent-sentence similarity); "
        "'none'", flag="--coherence-model", option_type=str, recorded_by="evaluator",
    ))
    lm: str | TokenLogProbs | None = field(default=None, metadata=about(
        "causal LM (sentence coherence, informativeness, helpfulness): 'embedded' (SmolLM2-135M via llama.cpp, "
        "the default when factscope\\[lm] is installed), a hub name or folder, a .gguf file, 'endpoint' for the "
        "--llm-* completions endpoint, or 'none'",
        flag="--lm", option_type=str | None,
    ))
    baselines: int = field(default=3, metadata=about(
        "u: random other knowledge texts for the helpfulness baseline", min=1, recorded_by="evaluator"
    ))
    weights: str = field(default=DEFAULT_Q_KNOW_WEIGHTS, metadata=about(
        "gamma of Q_know: four comma-separated numbers of 0 or more, factuality,relevance,coherence,informativeness",
        check=check_weights, recorded_by="evaluator",
    ))
    seed: int = field(default=0, metadata=about(
        "random seed (baselines, demonstrations, sampling)", min=0, max=SEED_MAX
    ))
    mode: CheckMode = field(default=DEFAULT_MODE, metadata=about(
        "model checkers: exact (every segment of every evidence passage is scored) or fast (each sentence only "
        "against the most relevant segments of each passage, stopping at a confident entailment; a sentence whose "
        "label pruning could change is scored exactly)", recorded_by="evaluator", counts_when=FAST_MODE
    ))
    pool: tuple[str, ...] | None = None
    web: WebSettings = field(default_factory=WebSettings)
