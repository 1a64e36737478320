"""What the web pages show of one result row of each system, ready for the templates (which escape every text).

- check: the response cut at the claims' spans, each piece coloured by its most severe label with the claims'
  probabilities on hover; the references with each verdict's evidence sentence marked.
- ground: each response fact present or absent in the contexts, each gold fact present or absent in the
  response, with scores.
- attribute: each sentence of the answer with its citations coloured correct / wrong, and [NA] marks.
- knowledge: CONNER's six dimensions (and Q_know), with the reason of any left out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from factscope.conner.task import KnowledgeScores
from factscope.core.schema import LABELS, Verdict
from factscope.grounding.task import FactJudgement, GroundResult
from factscope.kalma.task import AttributionScore
from factscope.refchecker.html_report import Highlight, highlight_pieces, label_name, verdict_class
from factscope.refchecker.task import CheckResult


@dataclass(frozen=True)
class Mark:
    """A run of text: plain (``css`` None) or marked for the claims in ``claims`` with a hover ``title``."""

    text: str
    css: str | None = None
    claims: tuple[int, ...] = ()
    title: str = ""


@dataclass(frozen=True)
class ClaimView:
    """One claim of a check result as the page lists it."""

    number: int
    text: str
    label: str
    css: str
    probs: str
    evidence: str | None
    reference: int | None


@dataclass
class CheckView:
    """A check result: the marked response, the claims, and the marked references."""

    id: str
    question: str | None
    response: list[Mark]
    claims: list[ClaimView]
    references: list[list[Mark]]
    hallucinated: bool


def probabilities(verdict: Verdict) -> str:
    """A verdict's label probabilities in words, for hovering: 'E 0.91 · N 0.06 · C 0.03' (or its score)."""
    if verdict.probs is not None:
        return " · ".join(f"{label.value[0]} {verdict.prob(label):.2f}" for label in LABELS)
    if verdict.score is not None:
        return f"score {verdict.score:.2f}"
    return verdict.error or ""


def _marks(text: str, highlights: list[Highlight], titles: dict[int, str]) -> list[Mark]:
    return [
        Mark(piece.text, piece.css, piece.claims, "; ".join(titles[n] for n in piece.claims))
        for piece in highlight_pieces(text, highlights)
    ]


def check_view(result: CheckResult) -> CheckView:
    """The page's view of one check result."""
    titles = {
        number: f"claim {number}: {label_name(item.verdict)} ({probabilities(item.verdict)})"
        for number, item in enumerate(result.claims, start=1)
    }
    response = [
        Highlight(span, number, item.verdict)
        for number, item in enumerate(result.claims, start=1)
        for span in item.claim.spans
    ]
    references = []
    for index, reference in enumerate(result.references):
        evidence = [
            Highlight(item.verdict.evidence_span, number, item.verdict)
            for number, item in enumerate(result.claims, start=1)
            if item.verdict.evidence_reference == index and item.verdict.evidence_span is not None
        ]
        references.append(_marks(reference, evidence, titles))
    claims = [
        ClaimView(
            number=number,
            text=item.claim.text,
            label=label_name(item.verdict),
            css=verdict_class(item.verdict),
            probs=probabilities(item.verdict),
            evidence=item.verdict.evidence,
            reference=None if item.verdict.evidence_reference is None else item.verdict.evidence_reference + 1,
        )
        for number, item in enumerate(result.claims, start=1)
    ]
    return CheckView(
        id=result.id,
        question=result.question,
        response=_marks(result.response, response, titles),
        claims=claims,
        references=references,
        hallucinated=any(claim.css in ("neutral", "contradiction") for claim in claims),
    )


@dataclass(frozen=True)
class FactView:
    """One atomic fact: present, absent or unjudged, with its presence score."""

    text: str
    css: str
    word: str
    score: str


def _fact(judgement: FactJudgement) -> FactView:
    css = "unjudged" if judgement.present is None else "present" if judgement.present else "absent"
    score = "" if judgement.score is None else f"{judgement.score:.3f}"
    return FactView(judgement.fact, css, css, score)


@dataclass
class GroundView:
    """A grounding result: the figures and both lists of facts."""

    id: str
    question: str
    response: str | None
    figures: list[tuple[str, str]]
    response_facts: list[FactView]
    gold_facts: list[FactView]
    error: str | None


def figure(value: float | bool | None) -> str:
    """A figure as pages print it."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:.3f}"


def ground_view(result: GroundResult) -> GroundView:
    """The page's view of one grounding result."""
    return GroundView(
        id=result.id,
        question=result.question,
        response=result.response,
        figures=[("precision", figure(result.precision)), ("recall", figure(result.recall)),
                 ("F1", figure(result.f1)), ("answer correct", figure(result.answer_correct))],
        response_facts=[_fact(j) for j in result.response_facts],
        gold_facts=[_fact(j) for j in result.gold_facts],
        error=result.error,
    )


@dataclass(frozen=True)
class CitationView:
    """One citation chip: what it cites, and whether it is correct (in the graph) and aligned (entailed)."""

    text: str
    css: str
    title: str


@dataclass
class SentenceView:
    """One sentence of an attributed answer and its citations."""

    text: str
    citations: list[CitationView] = field(default_factory=list)
    na: bool = False


@dataclass
class AttributeView:
    """An attribution result: sentences with citations, the counts, and citations that could not be read."""

    id: str
    sentences: list[SentenceView]
    counts: list[tuple[str, str]]
    issues: list[str]


def attribute_view(result: AttributionScore) -> AttributeView:
    """The page's view of one attribution result."""
    sentences = [SentenceView(text, na=index in result.na_sentences) for index, text in enumerate(result.sentences)]
    for citation in result.citations:
        aligned = {True: "entailed by its sentence", False: "not entailed by its sentence",
                   None: "alignment not decided"}[citation.entailed]
        chip = CitationView(
            text=", ".join(part for part in (citation.qid, f"{citation.relation}: {citation.value}") if part),
            css="correct" if citation.correct else "wrong",
            title=f"{'correct: in the graph' if citation.correct else 'wrong: not in the graph'}; "
                  f"{'in the minimum set' if citation.precise else 'not in the minimum set'}; {aligned}",
        )
        if 0 <= citation.sentence < len(sentences):
            sentences[citation.sentence].citations.append(chip)
    counts = [(name, str(value)) for name, value in dataclasses.asdict(result.counts).items()]
    return AttributeView(result.id, sentences, counts, [f"{i.raw}: {i.reason}" for i in result.issues])


DIMENSIONS: tuple[tuple[str, str], ...] = (
    ("factuality", "factuality (consistent)"),
    ("relevance", "relevance"),
    ("coherence_sentence", "coherence (sentence)"),
    ("coherence_paragraph", "coherence (paragraph)"),
    ("informativeness", "informativeness"),
    ("helpfulness", "helpfulness"),
    ("validity", "validity"),
    ("q_know", "Q_know"),
)
"""CONNER's dimensions in the order of the paper, and Q_know."""


@dataclass(frozen=True)
class DimensionView:
    """One dimension's value (and a 0-100 bar width where it is a share), or why it was not computed."""

    name: str
    value: str
    width: int | None
    reason: str | None


@dataclass
class KnowledgeView:
    """A knowledge result: its dimensions and each knowledge sentence's evidence."""

    id: str
    dimensions: list[DimensionView]
    factuality: str | None
    sentences: list[dict[str, Any]]


def knowledge_view(result: KnowledgeScores) -> KnowledgeView:
    """The page's view of one knowledge result."""
    dimensions = []
    for metric, name in DIMENSIONS:
        value = result.value(metric)
        reason = result.not_computed.get(metric)
        width = round(100 * value) if value is not None and 0.0 <= value <= 1.0 else None
        dimensions.append(DimensionView(name, figure(value), width, reason if value is None else None))
    factuality = None
    if result.factuality is not None:
        f = result.factuality
        factuality = f"consistent {f.consistent:.2f} · not verified {f.non_verified:.2f} · " \
                     f"inconsistent {f.inconsistent:.2f}"
    sentences = [
        {"text": s.sentence, "evidence": s.evidence, "probs": " · ".join(
            f"{label.value[0]} {p:.2f}" for label, p in zip(LABELS, s.probs)) if s.probs else ""}
        for s in result.sentences
    ]
    return KnowledgeView(result.id, dimensions, factuality, sentences)


def record_view(system: str, row: Any) -> Any:
    """The view of one result row of ``system``."""
    views: dict[str, Callable[[Any], Any]] = {"check": check_view, "ground": ground_view, "attribute": attribute_view, "knowledge": knowledge_view}
    return views[system](row)
