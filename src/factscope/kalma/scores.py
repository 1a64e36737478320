"""One scored answer: its citations with their judgements, counts, alignment, [NA] counts and G-Eval scores
(the row of a results file), and whether it records a failed call or an answer that could not be scored."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, Field

from factscope.core.display.notebook import ShownAsHtml
from factscope.kalma.answers import AnswerRecord
from factscope.kalma.hypotheses import DEFAULT_HYPOTHESIS, alignment_pairs, hypothesis
from factscope.kg.citations import parse_answer
from factscope.kg.paper_citations import paper_citations
from factscope.metrics.attribution import (
    AnswerCitationCounts,
    AnswerNACounts,
    Matching,
    match_citations,
    na_counts,
)


class CitationJudgement(BaseModel):
    """One citation of an answer: what it cites, in which sentence, and how it was judged."""

    qid: str | None
    relation: str | None
    value: str | None
    sentence: int
    correct: bool
    precise: bool
    entailed: bool | None


class CitationIssue(BaseModel):
    """A citation that could not be read as a triple, kept with its raw text."""

    raw: str
    sentence: int
    reason: str


class AttributionScore(ShownAsHtml, BaseModel):
    """The per-answer result row: citations with their judgements, counts, alignment, [NA] counts, G-Eval;
    ``error`` says why an answer could not be scored at all (its row then holds no figures)."""

    id: str
    removed: int = 0
    sentences: list[str] = Field(default_factory=list)
    citations: list[CitationJudgement] = Field(default_factory=list)
    na_sentences: list[int] = Field(default_factory=list)
    issues: list[CitationIssue] = Field(default_factory=list)
    counts: AnswerCitationCounts
    alignment: list[bool | None] = Field(default_factory=list)
    na: AnswerNACounts | None = None
    geval: dict[str, dict[str, Any]] | None = None
    error: str | None = None

    item_level: ClassVar[str] = "citations"
    item_fields: ClassVar[tuple[str, ...]] = ("citations",)

    def item_rows(self) -> list[dict[str, Any]]:
        """One table row per citation, numbered from 1 (``factscope.core.files.result_tables``): the answer sentence it
        stands in (number from 0 and text), the triple it cites, and whether it is correct, precise and entailed
        by its sentence (None: undecided)."""
        return [
            {"id": self.id, "citation": number, "sentence": cited.sentence,
             "text": self.sentences[cited.sentence] if cited.sentence < len(self.sentences) else None,
             "qid": cited.qid, "relation": cited.relation, "value": cited.value, "correct": cited.correct,
             "precise": cited.precise, "entailed": cited.entailed}
            for number, cited in enumerate(self.citations, start=1)
        ]


def score_row(record: AnswerRecord, decisions: dict[tuple[str, str], bool | None],
              geval: dict[str, dict[str, Any]] | None, template: str = DEFAULT_HYPOTHESIS,
              matching: Matching = "normalized") -> AttributionScore:
    """The result row of one answer, from the checker's entailment decisions and optional G-Eval scores; its
    citations are read and compared as ``matching`` says (``paper``: as KaLMA's released scoring does)."""
    parsed = parse_answer(record.answer)
    cited = paper_citations(parsed) if matching == "paper" else parsed.citations
    matches, counts = match_citations(cited, record.graph.triples(), record.minimum, matching)
    citations = []
    for c, match in zip(cited, matches):
        entailed = None
        if c.relation and c.value and c.sentence < len(parsed.sentences):
            entailed = decisions.get((parsed.sentences[c.sentence],
                                      hypothesis(template, c.qid, c.relation, c.value, record.graph)))
        citations.append(CitationJudgement(
            qid=c.qid, relation=c.relation, value=c.value, sentence=c.sentence, correct=match.correct,
            precise=match.precise, entailed=entailed,
        ))
    na = None
    if record.removed:
        matrix = [[decisions.get((parsed.sentences[i], hypothesis(template, t.qid, t.relation, t.value, record.graph)))
                   for t in record.removed]
                  for i in parsed.na_sentences if i < len(parsed.sentences)]
        na = na_counts(matrix, len(record.removed))
    return AttributionScore(
        id=record.id,
        removed=len(record.removed),
        sentences=parsed.sentences,
        citations=citations,
        na_sentences=parsed.na_sentences,
        issues=[CitationIssue(raw=i.raw, sentence=i.sentence, reason=i.reason) for i in parsed.issues],
        counts=counts,
        alignment=[decisions.get(pair) for pair in alignment_pairs(parsed, record.graph, template)],
        na=na,
        geval=geval,
    )


def score_crashed(record: AnswerRecord, reason: str) -> AttributionScore:
    """The failed row of an answer whose scoring ended its worker process (``Pipeline.crashed``): no figures, and
    ``reason`` as its error, so ``retry_failed`` scores it again."""
    return AttributionScore(
        id=record.id, removed=len(record.removed), counts=AnswerCitationCounts(0, 0, 0, 0, 0), error=reason
    )


def score_failed(row: AttributionScore) -> bool:
    """Whether a score row records a failure: an answer that could not be scored, or a failed call (a citation's
    alignment check, an [NA] check that left a sentence or triple undecided, or a G-Eval judgement)."""
    return (
        row.error is not None
        or any(value is None for value in row.alignment)
        or (row.na is not None and row.na.undecided > 0)
        or any(cell.get("failed") for cell in (row.geval or {}).values())
    )
