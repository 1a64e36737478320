"""Citation quality, text-citation alignment and [NA] quality of KaLMA (KaLMA section 4).

Pure functions: the model decisions (NLI entailment) arrive as booleans, None marking a failed check,
which is skipped and counted, never read as 0 or 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Literal, Self

from factscope.kg.citations import Citation
from factscope.kg.graph import Triple
from factscope.metrics.ratios import EmptyPolicy, f1
from factscope.metrics.running import RunningMean


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


@dataclass(frozen=True)
class Counts:
    """Counts of one answer, summed over answers with ``+`` field by field."""

    def __add__(self, other: Self) -> Self:
        return replace(self, **{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})


@dataclass(frozen=True)
class AnswerCitationCounts(Counts):
    """Per-answer counts behind the citation metrics."""

    citations: int
    correct: int
    precise: int
    knowledge: int
    recalled: int


Matching = Literal["normalized", "paper"]
"""How a citation is compared with the graph and the minimum set: factscope's normalised comparison, or KaLMA's
released scoring (exact strings; precision and recall count each minimum-set triple hit once)."""


@dataclass(frozen=True)
class CitationMatch:
    """How one citation was judged."""

    correct: bool
    precise: bool


def _exact(qid: str | None, relation: str | None, value: str | None) -> tuple[str, str, str]:
    return (qid or "", relation or "", value or "")


def match_citations(citations: Sequence[Citation], graph_triples: Iterable[Triple], minimum: Iterable[Triple],
                    matching: Matching = "normalized") -> tuple[list[CitationMatch], AnswerCitationCounts]:
    """Judge one answer's citations (KaLMA 4.2) and count them.

    ``normalized``: correct = complete (qid, relation and value) and equal to a triple of the question's graph;
    precise = correct and equal to a triple of the minimum knowledge set; a minimum-set triple is recalled when
    some correct citation equals it. Equality is on ``Triple.key()``: qid upper-cased, relation and value
    case-folded with outer quotes, final period and repeated spaces removed. A citation repeated in an answer
    counts each time.

    ``paper`` (KaLMA's released scoring): strings compared exactly as written; correct = equal to a graph
    triple; a minimum-set triple is hit when some citation equals it, correct or not; the precise citations are
    the hits, each minimum-set triple counted once (the first citation that hits it is marked precise), so a
    repeated citation lowers precision; recalled = the hits."""
    minimum = list(dict.fromkeys(minimum))
    if matching == "paper":
        graph_exact = {_exact(t.qid, t.relation, t.value) for t in graph_triples}
        minimum_exact = {_exact(t.qid, t.relation, t.value) for t in minimum}
        hit: set[tuple[str, str, str]] = set()
        matches = []
        for citation in citations:
            key = _exact(citation.qid, citation.relation, citation.value)
            first_hit = key in minimum_exact and key not in hit
            if first_hit:
                hit.add(key)
            matches.append(CitationMatch(key in graph_exact, first_hit))
        recalled = len(hit)
    else:
        graph_keys = {t.key() for t in graph_triples}
        minimum_set = {t.key() for t in minimum}
        correct_keys = set()
        matches = []
        for citation in citations:
            triple = citation.triple()
            correct = triple is not None and triple.key() in graph_keys
            if triple is not None and correct:
                correct_keys.add(triple.key())
            matches.append(CitationMatch(correct, correct and triple is not None and triple.key() in minimum_set))
        recalled = sum(t.key() in correct_keys for t in minimum)
    counts = AnswerCitationCounts(len(citations), sum(m.correct for m in matches), sum(m.precise for m in matches),
                                  len(minimum), recalled)
    return matches, counts


def citation_counts(citations: Sequence[Citation], graph_triples: Iterable[Triple], minimum: Iterable[Triple],
                    matching: Matching = "normalized") -> AnswerCitationCounts:
    """Count one answer's citations (KaLMA 4.2), compared as ``matching`` says (see ``match_citations``)."""
    return match_citations(citations, graph_triples, minimum, matching)[1]


@dataclass(frozen=True)
class Figures:
    """Figures over a set of answers, written to JSON as a plain dict."""

    def as_dict(self) -> dict[str, float | int | None]:
        """Plain dict for JSON output."""
        return asdict(self)


@dataclass(frozen=True)
class CitationQuality(Figures):
    """Micro and macro citation quality over a set of answers (KaLMA Table 3)."""

    answers: int
    citations: int
    knowledge: int
    correctness: float | None
    micro_precision: float | None
    micro_recall: float | None
    micro_f1: float | None
    macro_precision: float | None
    macro_recall: float | None
    macro_f1: float | None
    answers_without_citations: int


@dataclass
class CitationTotals:
    """The running totals behind ``CitationQuality``: sums of the per-answer counts (micro) and exact means of the
    per-answer precision and recall (macro), fed one answer at a time and merged across parts of a dataset."""

    empty_answers: EmptyPolicy = "skip"
    answers: int = 0
    summed: AnswerCitationCounts = field(default_factory=lambda: AnswerCitationCounts(0, 0, 0, 0, 0))
    """The per-answer counts summed."""
    without_citations: int = 0
    precision: RunningMean = field(default_factory=RunningMean)
    recall: RunningMean = field(default_factory=RunningMean)

    def add(self, counts: AnswerCitationCounts) -> None:
        """Count one answer."""
        self.answers += 1
        self.summed += counts
        if counts.citations:
            self.precision.add(counts.precise / counts.citations)
        else:
            self.without_citations += 1
            if self.empty_answers == "zero":
                self.precision.add(0.0)
        if counts.knowledge:
            self.recall.add(counts.recalled / counts.knowledge)

    def merge(self, other: CitationTotals) -> None:
        """Count every answer ``other`` counted (under the same ``empty_answers`` policy)."""
        if other.empty_answers != self.empty_answers:
            raise ValueError("cannot merge citation totals kept under different empty_answers policies")
        self.answers += other.answers
        self.summed += other.summed
        self.without_citations += other.without_citations
        self.precision.merge(other.precision)
        self.recall.merge(other.recall)

    def quality(self) -> CitationQuality:
        """The citation quality of the answers counted (see ``citation_quality``)."""
        summed = self.summed
        micro_p = _ratio(summed.precise, summed.citations)
        micro_r = _ratio(summed.recalled, summed.knowledge)
        macro_p, macro_r = self.precision.mean, self.recall.mean
        return CitationQuality(
            answers=self.answers, citations=summed.citations, knowledge=summed.knowledge,
            correctness=_ratio(summed.correct, summed.citations),
            micro_precision=micro_p, micro_recall=micro_r, micro_f1=f1(micro_p, micro_r),
            macro_precision=macro_p, macro_recall=macro_r, macro_f1=f1(macro_p, macro_r),
            answers_without_citations=self.without_citations,
        )


def citation_quality(counts: Iterable[AnswerCitationCounts], *,
                     empty_answers: EmptyPolicy = "skip") -> CitationQuality:
    """Aggregate per-answer counts.

    Micro: correctness and precision over all citations, recall over all minimum-set knowledge.
    Macro: precision and recall per answer, then averaged over answers. An answer with no citations has
    no precision: ``empty_answers="skip"`` leaves it out of macro precision (it still counts in recall),
    ``"zero"`` counts it as precision 0. F1 is the harmonic mean of the matching precision and recall."""
    totals = CitationTotals(empty_answers)
    for answer in counts:
        totals.add(answer)
    return totals.quality()


@dataclass(frozen=True)
class Alignment(Figures):
    """Share of (sentence, citation) pairs whose sentence entails the citation (KaLMA 4.3)."""

    value: float | None
    pairs: int
    entailed: int
    failed: int


@dataclass
class AlignmentTotals:
    """The running counts behind ``Alignment``: entailed, decided and failed (sentence, citation) pairs."""

    entailed: int = 0
    decided: int = 0
    failed: int = 0

    def add(self, entailed: bool | None) -> None:
        """Count one pair's decision (None: its check failed)."""
        if entailed is None:
            self.failed += 1
        else:
            self.decided += 1
            self.entailed += entailed

    def merge(self, other: AlignmentTotals) -> None:
        """Count every pair ``other`` counted."""
        self.entailed += other.entailed
        self.decided += other.decided
        self.failed += other.failed

    def alignment(self) -> Alignment:
        """The alignment of the pairs counted."""
        return Alignment(_ratio(self.entailed, self.decided), self.decided, self.entailed, self.failed)


def alignment(entailed: Iterable[bool | None]) -> Alignment:
    """Alignment over all pairs; pairs whose check failed (None) are left out and counted."""
    totals = AlignmentTotals()
    for value in entailed:
        totals.add(value)
    return totals.alignment()


@dataclass(frozen=True)
class AnswerNACounts(Counts):
    """Per-answer counts behind [NA] precision and recall."""

    na_sentences: int
    na_precise: int
    absent: int
    absent_recalled: int
    undecided: int


def na_counts(entails: Sequence[Sequence[bool | None]], absent: int) -> AnswerNACounts:
    """Count one answer's [NA] quality (KaLMA 4.4).

    ``entails[i][j]``: whether the i-th sentence marked [NA] entails the j-th absent (removed) triple
    (None = the check failed). A sentence is precise when it entails some absent triple; an absent
    triple is recalled when some [NA] sentence entails it. A sentence or triple whose outcome depends
    on a failed check (no True, at least one None) is undecided: left out of both counts, reported."""
    precise, sentences, undecided_sentences = _entailing(entails)
    recalled, triples, undecided_triples = _entailing([row[j] for row in entails] for j in range(absent))
    return AnswerNACounts(sentences, precise, triples, recalled, undecided_sentences + undecided_triples)


def _entailing(groups: Iterable[Sequence[bool | None]]) -> tuple[int, int, int]:
    """Of groups of entailment checks: those in which some check entails, those decided (some check entails, or
    none failed) and those undecided (none entails, some failed)."""
    entailing = decided = undecided = 0
    for group in groups:
        if any(v is True for v in group):
            entailing += 1
            decided += 1
        elif any(v is None for v in group):
            undecided += 1
        else:
            decided += 1
    return entailing, decided, undecided


@dataclass(frozen=True)
class NAQuality(Figures):
    """[NA] precision over all [NA] sentences and recall over all absent knowledge (micro)."""

    precision: float | None
    recall: float | None
    f1: float | None
    na_sentences: int
    absent: int
    undecided: int


@dataclass
class NATotals:
    """The running sums behind ``NAQuality``, fed one answer's [NA] counts at a time."""

    answers: int = 0
    summed: AnswerNACounts = field(default_factory=lambda: AnswerNACounts(0, 0, 0, 0, 0))
    """The per-answer counts summed."""

    def add(self, counts: AnswerNACounts) -> None:
        """Count one answer."""
        self.answers += 1
        self.summed += counts

    def merge(self, other: NATotals) -> None:
        """Count every answer ``other`` counted."""
        self.answers += other.answers
        self.summed += other.summed

    def quality(self) -> NAQuality:
        """The [NA] quality of the answers counted."""
        summed = self.summed
        precision = _ratio(summed.na_precise, summed.na_sentences)
        recall = _ratio(summed.absent_recalled, summed.absent)
        return NAQuality(
            precision, recall, f1(precision, recall), summed.na_sentences, summed.absent, summed.undecided
        )


def na_quality(counts: Iterable[AnswerNACounts]) -> NAQuality:
    """Aggregate [NA] counts over answers (micro, as KaLMA Figure 4)."""
    totals = NATotals()
    for answer in counts:
        totals.add(answer)
    return totals.quality()
