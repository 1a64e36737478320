"""A response split into labelled spans: which of its words are supported, unsupported, contradicted or unchecked.

Every claim's spans (``Claim.spans``) carry its verdict's label. The response's text is cut at every span's ends
and each piece gets the label of the claims that cover it, by the ``overlap`` rule: ``"worst"`` (the default:
Contradiction over Neutral over Entailment, so a word one claim contradicts is shown as contradicted whatever
other claims say of it) or ``"best"`` (Entailment over Neutral over Contradiction). Text that no checked claim
covers is unchecked (label None). Neighbouring pieces with the same label are joined, so the spans are maximal and
together cover the whole response.

:func:`hallucinated_spans` gives the response in the shape of RAGTruth's response-level labels: whether it
hallucinates, and the spans that do, so that predictions can be scored against RAGTruth's gold spans directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Literal

from pydantic import BaseModel, Field

from factscope.core.schema import SEVERITY, Claim, Label

OverlapRule = Literal["worst", "best"]
"""How the label of text that several claims cover is chosen: the worst of their labels or the best."""

HALLUCINATED: tuple[Label, ...] = (Label.NEUTRAL, Label.CONTRADICTION)
"""The labels a hallucinated span has by default: unsupported (Neutral) or contradicted."""

RAGTRUTH_TYPES: dict[Label, str] = {Label.CONTRADICTION: "Evident Conflict", Label.NEUTRAL: "Evident Baseless Info"}
"""RAGTruth's ``label_type`` of a hallucinated span of each label."""


class LabelledSpan(BaseModel):
    """A maximal piece of a response with one label: [start, end) character offsets, its text, the label (None:
    no checked claim covers it) and the numbers (from 0) of the claims that cover it."""

    start: int
    end: int
    text: str
    label: Label | None = None
    claims: list[int] = Field(default_factory=list)


class HallucinationSpan(BaseModel):
    """A hallucinated span as RAGTruth labels one: character offsets, text and ``label_type``."""

    start: int
    end: int
    text: str
    label_type: str


class ResponseLabels(BaseModel):
    """A response's labels in RAGTruth's shape: whether it hallucinates, and its hallucinated spans."""

    id: str
    response: str
    hallucinated: bool
    labels: list[HallucinationSpan] = Field(default_factory=list)


def _chosen(labels: Sequence[Label], overlap: OverlapRule) -> Label | None:
    if not labels:
        return None
    severity = [SEVERITY[label] for label in labels]
    pick = max(severity) if overlap == "worst" else min(severity)
    return labels[severity.index(pick)]


def span_view(
    response: str, claims: Sequence[Claim], labels: Sequence[Label | None], *, overlap: OverlapRule = "worst"
) -> list[LabelledSpan]:
    """The response split into maximal labelled spans (see the module's description); ``labels`` holds each
    claim's verdict label (None for a claim whose check failed, which labels nothing)."""
    if overlap not in ("worst", "best"):
        raise ValueError(f"`overlap` must be 'worst' or 'best', got {overlap!r}")
    if len(labels) != len(claims):
        raise ValueError(f"got {len(claims)} claims but {len(labels)} labels; give one label per claim")
    events: dict[int, list[tuple[int, int]]] = {0: [], len(response): []}
    for number, claim in enumerate(claims):
        for span in claim.spans:
            start, end = max(0, span.start), min(len(response), span.end)
            if start < end:
                events.setdefault(start, []).append((number, 1))
                events.setdefault(end, []).append((number, -1))
    active: dict[int, int] = {}
    view: list[LabelledSpan] = []
    cuts = sorted(events)
    for start, end in pairwise(cuts):
        for number, step in events[start]:
            active[number] = active.get(number, 0) + step
            if not active[number]:
                del active[number]
        numbers = sorted(active)
        label = _chosen([found for found in (labels[n] for n in numbers) if found is not None], overlap)
        if view and view[-1].label == label:
            last = view[-1]
            last.end, last.text = end, response[last.start : end]
            last.claims = sorted(set(last.claims) | set(numbers))
        else:
            view.append(LabelledSpan(start=start, end=end, text=response[start:end], label=label, claims=numbers))
    return view


def hallucinated_spans(
    record_id: str, response: str, view: Sequence[LabelledSpan], *, hallucinated: Sequence[Label] = HALLUCINATED
) -> ResponseLabels:
    """The response's labels in RAGTruth's shape from its span view: the spans whose label is one of
    ``hallucinated``, trimmed of surrounding whitespace."""
    found = []
    for span in view:
        if span.label is None or span.label not in hallucinated:
            continue
        text = span.text.strip()
        if not text:
            continue
        start = span.start + span.text.index(text)
        found.append(HallucinationSpan(start=start, end=start + len(text), text=text,
                                       label_type=RAGTRUTH_TYPES.get(span.label, span.label.value)))
    return ResponseLabels(id=record_id, response=response, hallucinated=bool(found), labels=found)
