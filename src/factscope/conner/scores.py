"""One record's CONNER scores (the row of a results file): the six metrics, Q_know, each knowledge sentence's
evidence, why a metric was not computed, and whether the row records a failed call."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, Field

from factscope.core.display.notebook import ShownAsHtml
from factscope.core.files.result_tables import probability_columns
from factscope.core.schema import LABELS


class SentenceEvidence(BaseModel):
    """One knowledge sentence, its best-entailing evidence and the sentence's NLI vector (E, N, C): that evidence's
    vector, or with evidence aggregated by mean, the mean over its passages."""

    sentence: str
    evidence: str | None = None
    doc_id: str | None = None
    probs: tuple[float, float, float] | None = None
    failed_checks: int = 0


class Factuality(BaseModel):
    """The three-dimensional factuality score of eq. 1."""

    consistent: float
    non_verified: float
    inconsistent: float


class KnowledgeScores(ShownAsHtml, BaseModel):
    """CONNER's scores for one record; a metric left as None is explained in ``not_computed``."""

    id: str
    factuality: Factuality | None = None
    relevance: float | None = None
    coherence_sentence: float | None = None
    coherence_paragraph: float | None = None
    informativeness: float | None = None
    helpfulness: float | None = None
    validity: float | None = None
    q_know: float | None = None
    not_computed: dict[str, str] = Field(default_factory=dict)
    sentences: list[SentenceEvidence] = Field(default_factory=list)

    item_level: ClassVar[str] = "sentences"
    item_fields: ClassVar[tuple[str, ...]] = ("sentences",)

    def item_rows(self) -> list[dict[str, Any]]:
        """One table row per knowledge sentence, numbered from 1 (``factscope.core.files.result_tables``): its text,
        the label of its largest probability (None: unchecked), the probabilities, its best evidence and how many
        of its checks failed."""
        return [
            {"id": self.id, "sentence": number, "text": judged.sentence,
             "label": LABELS[max(range(3), key=judged.probs.__getitem__)].value if judged.probs else None,
             **probability_columns(judged.probs), "evidence": judged.evidence, "doc_id": judged.doc_id,
             "failed_checks": judged.failed_checks}
            for number, judged in enumerate(self.sentences, start=1)
        ]

    def value(self, metric: str) -> float | None:
        """A metric as one number (factuality: its factual-consistent dimension)."""
        if metric == "factuality":
            return self.factuality.consistent if self.factuality else None
        if metric in ("factual_consistent", "non_verified", "factual_inconsistent"):
            if self.factuality is None:
                return None
            return {"factual_consistent": self.factuality.consistent, "non_verified": self.factuality.non_verified,
                    "factual_inconsistent": self.factuality.inconsistent}[metric]
        return getattr(self, metric)


VALIDITY_CHECKS_FAILED = "the checker failed on every premise"
"""The ``not_computed`` reason of a validity whose every check failed."""


LM_FAILED = "the causal LM failed"
"""How the ``not_computed`` reason of a metric starts when the causal LM's call failed."""

NOT_SCORED = "the record could not be scored"
"""How the ``not_computed`` reason of every metric starts when the record could not be scored at all."""


def knowledge_failed(row: KnowledgeScores) -> bool:
    """Whether a row records a failure a rerun should retry: a failed evidence check of a knowledge
    sentence, a validity whose every check failed, a failed causal-LM call, or a record not scored at all."""
    return (
        any(sentence.failed_checks for sentence in row.sentences)
        or row.not_computed.get("validity") == VALIDITY_CHECKS_FAILED
        or any(reason.startswith((LM_FAILED, NOT_SCORED)) for reason in row.not_computed.values())
    )
