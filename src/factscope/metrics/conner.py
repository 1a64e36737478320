"""CONNER's knowledge-quality formulas (equations 1 to 9 of the paper), as pure functions on model outputs.

Nothing here calls a model: the task layer (``factscope.conner.evaluator``) gathers NLI probabilities,
token log-probabilities and matching scores, and these functions turn them into the paper's scores.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

import numpy as np

Aggregation = Literal["min", "mean", "max"]
"""How the sentence vectors of eq. 1 are aggregated over the knowledge: the outer min (the paper), mean or max."""

EvidenceAggregation = Literal["max", "mean"]
"""How the NLI vectors of a sentence's evidence passages are aggregated: the inner max of eq. 1 (the vector of the
passage that best entails the sentence), or their mean."""

SentenceRanking = Literal["entailment", "label"]
"""How ``min`` and ``max`` rank sentences: by the entailment probability ("along the entailment dimension", eq. 1),
or by the argmax label, contradiction < neutral < entailment, the first sentence winning a tie (CONNER's released
scoring scripts)."""

_LABEL_RANK = (2, 1, 0)
"""The rank of each argmax label (entailment, neutral, contradiction) when sentences are ranked by label."""

Values: TypeAlias = Sequence[float] | np.ndarray
"""A vector of numbers: a list, or a 1-d array as the models give it."""

INTRINSIC_DIMENSIONS: tuple[str, str, str, str] = ("factuality", "relevance", "coherence_paragraph", "informativeness")
"""The order of S_intr in eq. 9: factuality, relevance, paragraph coherence, informativeness."""

DEFAULT_QKNOW_WEIGHTS: tuple[float, float, float, float] = (0.25, 0.25, 0.25, 0.25)
"""gamma of eq. 9. The paper gives no values, so factscope weighs the four intrinsic scores equally."""


@dataclass(frozen=True)
class FactualityScore:
    """The three-dimensional factuality of eq. 1: (factual-consistent, non-verified, factual-inconsistent)."""

    consistent: float
    non_verified: float
    inconsistent: float

    def as_tuple(self) -> tuple[float, float, float]:
        """The score as (consistent, non-verified, inconsistent)."""
        return (self.consistent, self.non_verified, self.inconsistent)


def best_evidence(probs: np.ndarray) -> int:
    """Index of the evidence whose NLI vector has the highest entailment probability (the max_j of eq. 1).

    ``probs`` has one row per evidence passage, columns (entailment, neutral, contradiction).
    """
    probs = _as_matrix(probs)
    return int(np.argmax(probs[:, 0]))


def sentence_factuality(probs: np.ndarray, evidence: EvidenceAggregation = "max") -> np.ndarray:
    """f(s_i, E_i) of eq. 1: the NLI vector of the evidence that best entails the sentence (``max``, the paper), or
    the mean of the evidence vectors (``mean``)."""
    probs = _as_matrix(probs)
    if evidence == "max":
        return probs[best_evidence(probs)].copy()
    if evidence == "mean":
        return probs.mean(axis=0)
    raise ValueError(f"evidence aggregation must be max or mean, not {evidence!r}")


def _pick(vectors: np.ndarray, aggregate: Aggregation, rank_by: SentenceRanking) -> int:
    """The sentence ``min`` or ``max`` keeps, ranked as ``rank_by`` says (the first of equals)."""
    if rank_by == "entailment":
        ranks = vectors[:, 0]
    elif rank_by == "label":
        ranks = np.array([_LABEL_RANK[int(np.argmax(vector))] for vector in vectors], dtype=float)
    else:
        raise ValueError(f"sentence ranking must be entailment or label, not {rank_by!r}")
    return int(np.argmin(ranks)) if aggregate == "min" else int(np.argmax(ranks))


def factuality(
    sentence_evidence_probs: Sequence[np.ndarray],
    aggregate: Aggregation = "min",
    hard: bool = False,
    evidence: EvidenceAggregation = "max",
    rank_by: SentenceRanking = "entailment",
) -> FactualityScore:
    """S_fact of eq. 1 for one knowledge text: min over sentences of max over evidence.

    ``sentence_evidence_probs[i]`` holds the NLI vectors (rows: evidence e_ij; columns: E, N, C) of sentence
    s_i. Each sentence gets one vector from its evidence (``evidence``: ``max`` keeps the vector of the passage
    that best entails it, as eq. 1; ``mean`` averages them). The sentence vectors are then aggregated "along the
    entailment dimension": ``min`` keeps the vector of the least-entailed sentence (eq. 1), ``max`` that of the
    most-entailed one, ``mean`` averages them; ``rank_by`` says whether min and max rank sentences by their
    entailment probability or by their argmax label (contradiction < neutral < entailment, first of equals, as
    CONNER's released scripts do). With ``hard=True`` each sentence vector is first replaced by the one-hot of
    its argmax (a sentence then counts as wholly consistent, non-verified or inconsistent).
    """
    if not sentence_evidence_probs:
        raise ValueError("factuality needs at least one sentence with evidence")
    vectors = np.stack([sentence_factuality(probs, evidence) for probs in sentence_evidence_probs])
    if hard:
        vectors = np.eye(3)[np.argmax(vectors, axis=1)]
    if aggregate in ("min", "max"):
        chosen = vectors[_pick(vectors, aggregate, rank_by)]
    elif aggregate == "mean":
        chosen = vectors.mean(axis=0)
    else:
        raise ValueError(f"aggregate must be min, mean or max, not {aggregate!r}")
    return FactualityScore(float(chosen[0]), float(chosen[1]), float(chosen[2]))


def perplexity(token_logprobs: Values) -> float:
    """PPL = exp(-mean_t ln P(w_t | w_<t)) of one text's scored tokens."""
    values = _nonempty(token_logprobs, "perplexity")
    return math.exp(-float(np.mean(values)))


def sentence_coherence(sentence_token_logprobs: Sequence[Values]) -> float:
    """S_coh_sent of eq. 3: the mean over the m sentences of 1 / PPL(s_i)."""
    if not sentence_token_logprobs:
        raise ValueError("sentence coherence needs at least one sentence")
    return float(np.mean([1.0 / perplexity(values) for values in sentence_token_logprobs]))


def informativeness(knowledge_token_logprobs: Values) -> float:
    """S_info of eq. 5: 1 - exp(mean_t ln P(k_t | k_<t, q)) over the M knowledge tokens."""
    values = _nonempty(knowledge_token_logprobs, "informativeness")
    return 1.0 - math.exp(float(np.mean(values)))


def answer_loss(answer_token_logprobs: Values) -> float:
    """L(q, k, a) of eq. 6: the cross-entropy of the answer tokens, -mean_t ln P(a_t | a_<t, q, k)."""
    values = _nonempty(answer_token_logprobs, "answer loss")
    return -float(np.mean(values))


def helpfulness(loss: float, baseline_losses: Sequence[float]) -> float:
    """S_help of eq. 6: max(0, 1 - L(q, k, a) / ((1/u) sum_i L(q, k_i^-, a))).

    The first line of eq. 6 is followed (mean of the u baseline losses); its second line drops the 1/u.
    """
    if not baseline_losses:
        raise ValueError("helpfulness needs at least one baseline knowledge (u >= 1)")
    baseline = float(np.mean(baseline_losses))
    if baseline <= 0.0:
        return 0.0
    return max(0.0, 1.0 - loss / baseline)


def span_validity(probs: Values) -> float:
    """S_val of eq. 7: the entailment probability of NLI(premise (q, a*), hypothesis (q, a))."""
    return float(np.asarray(probs, dtype=float)[0])


def open_validity(evidence_probs: np.ndarray) -> float:
    """S_val of eq. 8: max over the l evidence passages of the entailment probability of the answer."""
    return float(_as_matrix(evidence_probs)[:, 0].max())


def q_know(scores: Sequence[float], weights: Sequence[float] = DEFAULT_QKNOW_WEIGHTS) -> float:
    """Q_know of eq. 9: gamma^T [S_fact, S_rel, S_coh_para, S_info]."""
    if len(scores) != 4 or len(weights) != 4:
        raise ValueError("Q_know takes 4 scores and 4 weights (factuality, relevance, coherence, informativeness)")
    return float(np.dot(np.asarray(weights, dtype=float), np.asarray(scores, dtype=float)))


def _as_matrix(probs: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
    matrix = np.asarray(probs, dtype=float)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    if matrix.ndim != 2 or matrix.shape[1] != 3 or matrix.shape[0] == 0:
        raise ValueError(f"expected NLI probabilities of shape (n >= 1, 3), got {matrix.shape}")
    return matrix


def _nonempty(values: Values, what: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.size == 0:
        raise ValueError(f"{what} needs at least one scored token")
    return array
