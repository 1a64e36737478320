"""Typed records shared by every stage: input records, claims, verdicts."""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from factscope.core.display.notebook import ShownAsHtml


class Label(str, Enum):
    """The three-way hallucination label of RefChecker (and NLI)."""

    ENTAILMENT = "Entailment"
    NEUTRAL = "Neutral"
    CONTRADICTION = "Contradiction"

    @classmethod
    def parse(cls, text: str) -> Label:
        """Read a label from free text ('entailment', 'Contradiction', 'neutral.')."""
        key = text.strip().strip(".").strip().lower()
        for label in cls:
            if label.value.lower() == key:
                return label
        raise ValueError(f"not a label: {text!r} (expected Entailment, Neutral or Contradiction)")


LABELS: tuple[Label, Label, Label] = (Label.ENTAILMENT, Label.NEUTRAL, Label.CONTRADICTION)
"""The order of every probability vector in factscope: (Entailment, Neutral, Contradiction)."""

SEVERITY: dict[Label, int] = {Label.ENTAILMENT: 0, Label.NEUTRAL: 1, Label.CONTRADICTION: 2}
"""Max-pooling order of the strict aggregation: Entailment < Neutral < Contradiction."""


class Span(BaseModel):
    """A half-open character range [start, end) in some text."""

    start: int
    end: int


class ClaimSpan(Span):
    """A span of a response that a claim states: character offsets [start, end) and the text they cover."""

    text: str = ""

    @classmethod
    def covering(cls, response: str, start: int, end: int) -> ClaimSpan:
        """The span [start, end) of ``response``, with its text."""
        return cls(start=start, end=end, text=response[start:end])


SpanCover = Literal["words", "sentence"]
"""What a claim's spans cover: its own words in the response, or the whole sentence(s) it came from (a sentence
claim, or a claim an LLM wrote in words the response does not share closely enough to align)."""


class Claim(BaseModel):
    """One checkable unit of a response: a claim-triplet, an atomic fact or a sentence.

    ``spans`` locate the claim in the response; ``spans_cover`` says whether they are the claim's own words
    (subject, predicate and object as written) or its sentence."""

    text: str
    kind: Literal["triplet", "fact", "sentence"] = "fact"
    triplet: tuple[str, str, str] | None = None
    sentence_ids: list[int] = Field(default_factory=list)
    spans: list[ClaimSpan] = Field(default_factory=list)
    spans_cover: SpanCover = "sentence"

    @field_validator("spans", mode="before")
    @classmethod
    def _plain_spans(cls, value: Any) -> Any:
        """Take plain ``Span`` objects too (their text left empty)."""
        if isinstance(value, list):
            return [item.model_dump() if type(item) is Span else item for item in value]
        return value

    def render(self) -> str:
        """The claim as a sentence for NLI: a triplet is joined 'subject predicate object'."""
        if self.triplet is not None:
            return " ".join(part.strip() for part in self.triplet if part.strip())
        return self.text


MismatchKind = Literal["number", "date", "quantity", "entity"]
"""The kinds of value a claim's evidence may fail to bear."""


class Mismatch(BaseModel):
    """A value of a claim (number, date, quantity, named entity) that its aligned evidence does not bear.

    ``evidence_value`` is the evidence's own value of the same slot (the claim is then contradicted), or None
    when the evidence states no such value (the claim is then unsupported). Spans are character offsets: in the
    claim text, and in the original reference.
    """

    kind: MismatchKind
    claim_value: str
    claim_span: Span
    evidence_value: str | None = None
    evidence_span: Span | None = None


Rule = Literal["model", "mismatch", "relevance", "min-confidence", "decision"]
"""What decided a verdict: the model's own label, a mismatch check, the relevance filter, the minimum confidence, or
the claim decision fitted on labelled pairs (``factscope.checkers.claim_decision``)."""


class Verdict(ShownAsHtml, BaseModel):
    """A checker's decision on one claim against a record's references, with what decided it.

    ``evidence_reference`` indexes the deciding reference, ``segment_span`` is the deciding segment in it and
    ``evidence_span`` the evidence sentence (both character offsets in the original reference); ``rule`` says
    what decided the label and ``reason`` says it in words. ``fast_path`` is set by a model checker in fast mode:
    "pruned" when the label came from the windows its pruning kept, "exact" when the claim was escalated and
    decided from every window it counts, as exact mode decides (see ``factscope.checkers.escalation``). Under a
    cascade checker, ``decided_by`` names the checker whose verdict this is and ``escalated`` says whether the first
    checker passed the claim on (both None with a single checker). ``support`` is P(supported) from a claim decision
    (``factscope.checkers.claim_decision``), None without one.
    """

    label: Label | None
    probs: tuple[float, float, float] | None = None
    score: float | None = None
    evidence: str | None = None
    evidence_reference: int | None = None
    evidence_span: Span | None = None
    segment_span: Span | None = None
    rule: Rule | None = None
    reason: str | None = None
    mismatch: Mismatch | None = None
    failed: bool = False
    raw: str | None = None
    error: str | None = None
    decided_by: str | None = None
    escalated: bool | None = None
    fast_path: Literal["pruned", "exact"] | None = None
    support: float | None = None

    def prob(self, label: Label) -> float | None:
        """Probability of one label, or None when the checker gives none."""
        if self.probs is None:
            return None
        return self.probs[LABELS.index(label)]


ContextSetting = Literal["zero", "noisy", "accurate"]
"""RefChecker's three context settings of a record: no reference (zero), retrieved passages (noisy) or the
passage the answer should rest on (accurate)."""


class Record(BaseModel):
    """One input record of the check task (RefChecker's question, response, references)."""

    id: str
    response: str
    question: str | None = None
    references: list[str] = Field(default_factory=list)
    setting: ContextSetting | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


MODEL_FIELD = "model"
"""A record's metadata field naming the model that wrote the response: reports break figures down by it, and a
report of several results files names each file's records by their file where they lack it."""


class Extraction(BaseModel):
    """An extractor's output for one text: its claims, or a recorded failure with the raw reply."""

    claims: list[Claim] = Field(default_factory=list)
    failed: bool = False
    raw: str | None = None
    error: str | None = None
