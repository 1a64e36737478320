"""What a knowledge-scoring run is made of and set to (``KnowledgeSpec``): the one place its options and their
defaults are declared, which the Python API, the command line and the server take theirs from. Light to import:
the types of ready components are named for the type checker only."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from factscope.checkers.defaults import DEFAULT_CHECKER
from factscope.retrieve.web_settings import WebSettings

if TYPE_CHECKING:
    from factscope.checkers.base import Checker
    from factscope.checkers.segmented import CheckMode
    from factscope.conner.coherence import ParagraphCoherence
    from factscope.conner.evaluator import KnowledgeEvaluator
    from factscope.conner.relevance import RelevanceModel
    from factscope.hf.causal_lm import TokenLogProbs
    from factscope.metrics.conner import Aggregation, EvidenceAggregation, SentenceRanking
    from factscope.retrieve.web_retrievers import EvidenceRetrieverName

DEFAULT_Q_KNOW_WEIGHTS = "0.25,0.25,0.25,0.25"
"""Q_know's weights of factuality, relevance, coherence and informativeness: equal, as in CONNER."""

DEFAULT_RELEVANCE_MODEL = "bi-encoder"
"""The relevance model of a run that names none: a bi-encoder's cosine of query and knowledge."""

DEFAULT_COHERENCE_MODEL = "proxy"
"""The paragraph coherence of a run that names none: the adjacent-sentence similarity proxy."""


@dataclass(frozen=True)
class KnowledgeSpec:
    """The evaluator of a knowledge-scoring run: a ready ``evaluator``, or the parts
    ``factscope.conner.evaluator_setup.make_evaluator`` builds it from (``corpus`` enables factuality and
    open-ended validity, and its fingerprint goes into the manifest; ``lm``, a causal LM or 'endpoint', enables
    sentence coherence, informativeness and helpfulness; ``mode`` 'fast' has a model checker score each
    knowledge sentence only against the most relevant segments of each evidence passage; ``checker``,
    ``relevance``, ``coherence`` and ``lm`` are each a name or a ready object). ``pool``: the knowledge texts the
    helpfulness baselines are drawn from (settled by ``prepare`` when a causal LM is configured). A ``retriever``
    that searches the web or Wikipedia ('web:serper', 'web:brave', 'wikipedia') needs no corpus: it searches as
    ``web`` says."""

    evaluator: KnowledgeEvaluator | None = None
    corpus: Path | None = None
    retriever: EvidenceRetrieverName = "bm25"
    evidence_k: int = 5
    aggregate: Aggregation = "min"
    evidence_aggregate: EvidenceAggregation = "max"
    rank_by: SentenceRanking = "entailment"
    hard: bool = False
    checker: str | Checker = DEFAULT_CHECKER
    relevance: str | RelevanceModel = DEFAULT_RELEVANCE_MODEL
    coherence: str | ParagraphCoherence = DEFAULT_COHERENCE_MODEL
    lm: str | TokenLogProbs | None = None
    baselines: int = 3
    weights: str = DEFAULT_Q_KNOW_WEIGHTS
    seed: int = 0
    mode: CheckMode = "exact"
    pool: tuple[str, ...] | None = None
    web: WebSettings = field(default_factory=WebSettings)
