"""The RefChecker pipeline: extract claims from responses, check them against references, aggregate."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypedDict

from pydantic import BaseModel, Field

from factscope.checkers.base import Checker, CheckTask
from factscope.claims.abstention import AbstentionDetector, extract_answers
from factscope.claims.base import Extractor
from factscope.core.display.notebook import ShownAsHtml
from factscope.core.files.manifest import SettingValue
from factscope.core.files.result_tables import probability_columns
from factscope.core.runs.loop import Pipeline, RunRows
from factscope.core.runs.result import RunResult
from factscope.core.schema import Claim, Label, Record, Verdict
from factscope.metrics.hallucination import (
    DatasetRates,
    RateTotals,
    ResponseSummary,
    copy_rate,
    summarize_response,
)
from factscope.refchecker.span_view import (
    HALLUCINATED,
    LabelledSpan,
    OverlapRule,
    ResponseLabels,
    hallucinated_spans,
    span_view,
)
from factscope.retrieve.passage_source import PassageSource, RetrievalCost
from factscope.retrieve.retriever_names import RetrieveFor
from factscope.retrieve.web_evidence import EvidenceRequest, RecordEvidence


class ClaimResult(BaseModel):
    """One claim with its verdict and its copy rate (share of its 1- to 4-grams found in the references).

    ``passages`` are the indices of the references the claim was checked against when they were chosen for it
    (a web retriever's top passages for this claim, after the record's own references); None: all of them."""

    claim: Claim
    verdict: Verdict
    copy_rate: float | None = None
    passages: list[int] | None = None


class CheckResult(ShownAsHtml, BaseModel):
    """Everything the check task found for one record.

    ``abstained`` is true when every sentence of the response declines to answer (it was not given to the
    extractor); ``abstaining_sentences`` are the ids of the sentences that decline, whose claims were dropped.
    ``sources`` gives, for each reference, the page a web retriever found it on (None for a reference of the
    record or of a corpus; empty when nothing came from the web); ``retrieval`` counts the searches and page
    reads the record needed and ``retrieval_problems`` says which failed and why.
    """

    id: str
    question: str | None = None
    response: str
    setting: str | None = None
    references: list[str] = Field(default_factory=list)
    retrieved: bool = False
    sources: list[PassageSource | None] = Field(default_factory=list)
    retrieval: RetrievalCost | None = None
    retrieval_problems: list[str] = Field(default_factory=list)
    claims: list[ClaimResult] = Field(default_factory=list)
    extraction_failed: bool = False
    extraction_error: str | None = None
    extraction_raw: str | None = None
    abstained: bool = False
    abstaining_sentences: list[int] = Field(default_factory=list)
    summary: ResponseSummary | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    item_level: ClassVar[str] = "claims"
    item_fields: ClassVar[tuple[str, ...]] = ("claims",)

    def item_rows(self) -> list[dict[str, Any]]:
        """One table row per claim (numbered from 1): its text, the verdict's label, probabilities, evidence and
        what decided it, the evidence's page when a web retriever found it, in fast mode whether the pruned or the
        exact path decided it, and under a cascade which checker did (``factscope.core.files.result_tables``)."""
        rows = []
        for number, result in enumerate(self.claims, start=1):
            claim, verdict = result.claim, result.verdict
            source = self.source_of(verdict.evidence_reference)
            rows.append({
                "id": self.id,
                "claim": number,
                "text": claim.text,
                "kind": claim.kind,
                "triplet": list(claim.triplet) if claim.triplet is not None else None,
                "spans": [[span.start, span.end] for span in claim.spans],
                "span_text": [span.text for span in claim.spans],
                "spans_cover": claim.spans_cover,
                "label": verdict.label.value if verdict.label is not None else None,
                **probability_columns(verdict.probs),
                "score": verdict.score,
                "evidence": verdict.evidence,
                "evidence_reference": verdict.evidence_reference,
                "evidence_url": source.url if source is not None else None,
                "evidence_title": source.title if source is not None else None,
                "rule": verdict.rule,
                "reason": verdict.reason,
                "fast_path": verdict.fast_path,
                "decided_by": verdict.decided_by,
                "escalated": verdict.escalated,
                "failed": verdict.failed,
                "error": verdict.error,
                "copy_rate": result.copy_rate,
            })
        return rows

    def span_view(self, overlap: OverlapRule = "worst") -> list[LabelledSpan]:
        """The response split into maximal spans labelled by the claims that cover them, the worst label winning
        where claims overlap (``overlap="best"``: the best; see ``factscope.refchecker.span_view``)."""
        return span_view(
            self.response, [c.claim for c in self.claims], [c.verdict.label for c in self.claims], overlap=overlap
        )

    def hallucination_labels(
        self, overlap: OverlapRule = "worst", hallucinated: Sequence[Label] = HALLUCINATED
    ) -> ResponseLabels:
        """The response's labels in RAGTruth's shape: whether it hallucinates and its spans whose label is one of
        ``hallucinated`` (Neutral and Contradiction by default)."""
        return hallucinated_spans(self.id, self.response, self.span_view(overlap), hallucinated=hallucinated)

    def span_rows(self) -> list[dict[str, Any]]:
        """One table row per labelled span of the response (``span_view``): offsets, text, label and the numbers
        (from 1, as in the claims table) of the claims that cover it."""
        return [
            {
                "id": self.id,
                "start": span.start,
                "end": span.end,
                "text": span.text,
                "label": span.label.value if span.label is not None else None,
                "claims": [number + 1 for number in span.claims],
            }
            for span in self.span_view()
        ]

    def source_of(self, reference: int | None) -> PassageSource | None:
        """The page the reference numbered ``reference`` (from 0) was found on, or None."""
        if reference is None or not 0 <= reference < len(self.sources):
            return None
        return self.sources[reference]


class CheckRun(RunResult[CheckResult]):
    """A whole run: its dataset figures and its per-record results (the whole results file, earlier runs' rows
    included when resuming, read lazily; left out of ``model_dump``).

    ``rates.abstained`` counts the responses with no claims (RefChecker's abstentions); ``declined`` those among
    them that the abstention detector found declining to answer as a whole ("I don't know."). ``failed`` counts
    the records with a failed extraction or claim check (``check_failed``); ``extraction_failures`` and
    ``check_failures`` count the failed extractions and the failed claim checks; ``retrieval`` counts the
    searches and page reads of a web retriever (all zero without one); under a cascade checker, ``escalated``
    counts the claims the first checker passed to the second, out of ``cascaded`` (0 and 0 without a cascade).
    """

    rates: DatasetRates
    rates_by_setting: dict[str, DatasetRates]
    declined: int
    claims: int
    extraction_failures: int
    check_failures: int
    extractor: str
    checker: str
    retrieval: RetrievalCost = Field(default_factory=RetrievalCost)
    escalated: int = 0
    cascaded: int = 0

    def headline(self) -> list[tuple[str, object]]:
        """The hallucination rate, the claims and the checker."""
        return [("hallucination rate", self.rates.hallucination_rate), ("claims", self.claims),
                ("checker", self.checker)]


@dataclass
class CheckTotals:
    """The mergeable figures of a check run, fed one result row at a time (see ``factscope.core.runs.results``)."""

    overall: RateTotals = field(default_factory=RateTotals)
    by_setting: dict[str, RateTotals] = field(default_factory=dict)
    declined: int = 0
    claims: int = 0
    extraction_failures: int = 0
    check_failures: int = 0
    failed: int = 0
    retrieval: RetrievalCost = field(default_factory=RetrievalCost)
    escalated: int = 0
    cascaded: int = 0

    def add(self, row: CheckResult) -> None:
        """Count one record's results; a failed extraction is counted, not rated."""
        if row.summary is not None:
            self.overall.add(row.summary)
            if row.setting:
                self.by_setting.setdefault(row.setting, RateTotals()).add(row.summary)
        self.declined += row.abstained
        self.claims += len(row.claims)
        self.extraction_failures += row.extraction_failed
        self.check_failures += sum(1 for claim in row.claims if claim.verdict.failed)
        self.failed += check_failed(row)
        if row.retrieval is not None:
            self.retrieval.add(row.retrieval)
        self.escalated += sum(1 for claim in row.claims if claim.verdict.escalated)
        self.cascaded += sum(1 for claim in row.claims if claim.verdict.escalated is not None)

    def merge(self, other: CheckTotals) -> None:
        """Count every row ``other`` counted."""
        self.overall.merge(other.overall)
        for setting, rates in other.by_setting.items():
            self.by_setting.setdefault(setting, RateTotals()).merge(rates)
        self.declined += other.declined
        self.claims += other.claims
        self.extraction_failures += other.extraction_failures
        self.check_failures += other.check_failures
        self.failed += other.failed
        self.retrieval.add(other.retrieval)
        self.escalated += other.escalated
        self.cascaded += other.cascaded


def check_pipeline(
    extractor: Extractor,
    checker: Checker,
    *,
    retriever: Any = None,
    retrieve_k: int = 5,
    retrieve_for: RetrieveFor = "missing",
    abstention_detection: bool = True,
    settings: Mapping[str, SettingValue] | None = None,
) -> Pipeline[Record, CheckResult, CheckTotals]:
    """The check task as a pipeline any engine runs: extract claims from each batch of records, check them against
    the references and aggregate. Records with no references are checked against the ``retriever``'s top
    ``retrieve_k`` passages when one is given: a corpus retriever's for the record (query: the question, else the
    response), a web retriever's (``WebEvidence``) for each claim; with ``retrieve_for='all'`` every record gets
    them after its own references. With ``abstention_detection``, sentences that decline to answer give no claims
    and a response made only of them is not extracted at all (``factscope.claims.abstention``). ``settings`` add
    to the components' own description in the results file's manifest. ``factscope.check`` runs it."""
    detector = AbstentionDetector() if abstention_detection else None
    return Pipeline(
        system="check",
        stage_name="checking",
        row_type=CheckResult,
        key=lambda record: record.id,
        process=lambda batch: _check_batch(batch, extractor, checker, Retrieval(retriever, retrieve_k, retrieve_for),
                                           detector),
        new_totals=CheckTotals,
        components={"extractor": extractor, "checker": checker, "retriever": retriever},
        settings={
            "retrieve_k": retrieve_k if retriever is not None else None,
            **({"retrieve_for": retrieve_for} if retriever is not None and retrieve_for != "missing" else {}),
            "abstention_detection": abstention_detection,
            **(settings or {}),
        },
        failed=check_failed,
        crashed=check_crashed,
    )


class _RecordEcho(TypedDict):
    """The fields of a record that its result row repeats."""

    id: str
    question: str | None
    response: str
    setting: str | None


def _echo(record: Record) -> _RecordEcho:
    return {"id": record.id, "question": record.question, "response": record.response, "setting": record.setting}


def check_crashed(record: Record, reason: str) -> CheckResult:
    """The failed row of a record whose checking ended its worker process (``Pipeline.crashed``): its
    extraction marked failed with ``reason``, so ``retry_failed`` runs it again."""
    return CheckResult(
        **_echo(record),
        references=list(record.references),
        extraction_failed=True,
        extraction_error=reason,
        metadata=dict(record.metadata),
    )


def check_run(produced: RunRows[CheckResult], totals: CheckTotals, *, extractor: str, checker: str) -> CheckRun:
    """The typed result of a check run from its rows and totals."""
    return CheckRun(
        results=produced.results,
        rates=totals.overall.rates(),
        rates_by_setting={setting: rates.rates() for setting, rates in sorted(totals.by_setting.items())},
        declined=totals.declined,
        claims=totals.claims,
        extraction_failures=totals.extraction_failures,
        check_failures=totals.check_failures,
        failed=totals.failed,
        **produced.counts(),
        extractor=extractor,
        checker=checker,
        retrieval=totals.retrieval,
        escalated=totals.escalated,
        cascaded=totals.cascaded,
    )


def check_failed(result: CheckResult) -> bool:
    """Whether a result row holds a failure a rerun should retry: a failed extraction or claim check."""
    return result.extraction_failed or any(claim.verdict.failed for claim in result.claims)


@dataclass(frozen=True)
class Retrieval:
    """How a batch's records get retrieved passages: the retriever (a corpus retriever, a ``WebEvidence`` or
    None), how many passages and for which records."""

    retriever: Any
    k: int
    wanted: RetrieveFor

    def wants(self, record: Record) -> bool:
        """Whether ``record`` gets retrieved passages."""
        return self.retriever is not None and (self.wanted == "all" or not record.references)


@dataclass
class _Evidence:
    """What one record's claims are checked against: its references (its own, then retrieved ones), their
    sources, and each claim's references (None: all of them)."""

    references: list[str]
    sources: list[PassageSource | None] = field(default_factory=list)
    per_claim: list[list[int]] | None = None
    found: RecordEvidence | None = None

    def of_claim(self, number: int) -> list[int]:
        """The indices of the references claim ``number`` (from 0) is checked against."""
        return self.per_claim[number] if self.per_claim is not None else list(range(len(self.references)))


def _check_batch(
    batch: Sequence[Record],
    extractor: Extractor,
    checker: Checker,
    retrieval: Retrieval,
    detector: AbstentionDetector | None,
) -> list[CheckResult]:
    screened = extract_answers(extractor, [r.response for r in batch], [r.question for r in batch], detector)
    extractions = [extraction for extraction, _ in screened]
    evidence = _evidence_for(batch, [[c.render() for c in e.claims] for e in extractions], retrieval)
    tasks: list[CheckTask] = []
    for record, extraction, found in zip(batch, extractions, evidence):
        for number, claim in enumerate(extraction.claims):
            tasks.append(
                CheckTask(
                    claim=claim.render(),
                    references=tuple(found.references[i] for i in found.of_claim(number)),
                    question=record.question,
                    triplet=claim.triplet,
                )
            )
    verdicts = iter(checker.check(tasks)) if tasks else iter(())
    results = []
    for record, (extraction, screening), found in zip(batch, screened, evidence):
        claims = []
        for number, claim in enumerate(extraction.claims):
            chosen = found.of_claim(number)
            verdict = next(verdicts)
            if found.per_claim is not None and verdict.evidence_reference is not None:
                verdict = verdict.model_copy(update={"evidence_reference": chosen[verdict.evidence_reference]})
            joined = "\n".join(found.references[i] for i in chosen)
            claims.append(ClaimResult(
                claim=claim,
                verdict=verdict,
                copy_rate=copy_rate(claim.render(), joined) if chosen else None,
                passages=chosen if found.per_claim is not None else None,
            ))
        summary = None if extraction.failed else summarize_response([c.verdict.label for c in claims])
        results.append(
            CheckResult(
                **_echo(record),
                references=found.references,
                retrieved=len(found.references) > len(record.references),
                sources=found.sources,
                retrieval=found.found.cost if found.found is not None else None,
                retrieval_problems=found.found.problems if found.found is not None else [],
                claims=claims,
                extraction_failed=extraction.failed,
                extraction_error=extraction.error,
                extraction_raw=extraction.raw,
                abstained=screening.abstains,
                abstaining_sentences=list(screening.abstaining),
                summary=summary,
                metadata=record.metadata,
            )
        )
    return results


def _evidence_for(batch: Sequence[Record], claims: Sequence[list[str]], retrieval: Retrieval) -> list[_Evidence]:
    """Each record's references, with retrieved passages where ``retrieval`` wants them: a web retriever's for
    each claim (gathered for the whole batch at once), a corpus retriever's for the record."""
    evidence = [_Evidence(list(record.references)) for record in batch]
    wanted = [index for index, record in enumerate(batch) if retrieval.wants(record)]
    if not wanted:
        return evidence
    retriever = retrieval.retriever
    if not hasattr(retriever, "gather"):
        for index in wanted:
            query = batch[index].question or batch[index].response
            if query.strip():
                evidence[index].references.extend(hit.text for hit in retriever.search(query, retrieval.k))
        return evidence
    requests = [EvidenceRequest(batch[i].response, claims[i], batch[i].question) for i in wanted]
    for index, found in zip(wanted, retriever.gather(requests)):
        given = len(batch[index].references)
        evidence[index] = _Evidence(
            references=[*batch[index].references, *found.passages],
            sources=[*([None] * given), *found.sources],
            per_claim=[[*range(given), *(given + i for i in chosen)] for chosen in found.per_claim],
            found=found,
        )
    return evidence

