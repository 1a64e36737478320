"""The RefChecker pipeline: extract claims from responses, check them against references, aggregate."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from factscope.checkers.base import Checker, CheckTask
from factscope.claims.abstention import AbstentionDetector, extract_answers
from factscope.claims.base import Extractor
from factscope.core.display import ShownAsHtml
from factscope.core.manifest import Setting
from factscope.core.result_tables import probability_columns
from factscope.core.results import ResultRows
from factscope.core.run import Pipeline, ProgressCallback, RunRows, report_progress, run_pipeline
from factscope.core.run_result import RunResult
from factscope.core.schema import Claim, Record, Verdict
from factscope.metrics.hallucination import (
    DatasetRates,
    RateTotals,
    ResponseSummary,
    copy_rate,
    summarize_response,
)


class ClaimResult(BaseModel):
    """One claim with its verdict and its copy rate (share of its 1- to 4-grams found in the references)."""

    claim: Claim
    verdict: Verdict
    copy_rate: float | None = None


class CheckResult(ShownAsHtml, BaseModel):
    """Everything the check task found for one record.

    ``abstained`` is true when every sentence of the response declines to answer (it was not given to the
    extractor); ``abstaining_sentences`` are the ids of the sentences that decline, whose claims were dropped.
    """

    id: str
    question: str | None = None
    response: str
    setting: str | None = None
    references: list[str] = Field(default_factory=list)
    retrieved: bool = False
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
        what decided it, and in fast mode whether the pruned or the exact path decided it
        (``factscope.core.result_tables``)."""
        rows = []
        for number, result in enumerate(self.claims, start=1):
            claim, verdict = result.claim, result.verdict
            rows.append({
                "id": self.id,
                "claim": number,
                "text": claim.text,
                "kind": claim.kind,
                "triplet": list(claim.triplet) if claim.triplet is not None else None,
                "label": verdict.label.value if verdict.label is not None else None,
                **probability_columns(verdict.probs),
                "score": verdict.score,
                "evidence": verdict.evidence,
                "evidence_reference": verdict.evidence_reference,
                "rule": verdict.rule,
                "reason": verdict.reason,
                "fast_path": verdict.fast_path,
                "failed": verdict.failed,
                "error": verdict.error,
                "copy_rate": result.copy_rate,
            })
        return rows


class CheckRun(RunResult[CheckResult]):
    """A whole run: its dataset figures and its per-record results (the whole results file, earlier runs' rows
    included when resuming, read lazily; left out of ``model_dump``).

    ``rates.abstained`` counts the responses with no claims (RefChecker's abstentions); ``declined`` those among
    them that the abstention detector found declining to answer as a whole ("I don't know."). ``failed`` counts
    the records with a failed extraction or claim check (``check_failed``); ``extraction_failures`` and
    ``check_failures`` count the failed extractions and the failed claim checks.
    """

    rates: DatasetRates
    rates_by_setting: dict[str, DatasetRates]
    declined: int
    claims: int
    extraction_failures: int
    check_failures: int
    extractor: str
    checker: str

    def headline(self) -> list[tuple[str, object]]:
        """The hallucination rate, the claims and the checker."""
        return [("hallucination rate", self.rates.hallucination_rate), ("claims", self.claims),
                ("checker", self.checker)]


@dataclass
class CheckTotals:
    """The mergeable figures of a check run, fed one result row at a time (see ``factscope.core.results``)."""

    overall: RateTotals = field(default_factory=RateTotals)
    by_setting: dict[str, RateTotals] = field(default_factory=dict)
    declined: int = 0
    claims: int = 0
    extraction_failures: int = 0
    check_failures: int = 0
    failed: int = 0

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


def check_pipeline(
    extractor: Extractor,
    checker: Checker,
    *,
    retriever: Any = None,
    retrieve_k: int = 5,
    abstention_detection: bool = True,
    settings: Mapping[str, Setting] | None = None,
) -> Pipeline[Record, CheckResult, CheckTotals]:
    """The check task as a pipeline any engine runs: extract, check, aggregate each batch of records (see
    ``check`` for what each part does)."""
    detector = AbstentionDetector() if abstention_detection else None
    return Pipeline(
        system="check",
        stage_name="checking",
        row_type=CheckResult,
        key=lambda record: record.id,
        process=lambda batch: _check_batch(batch, extractor, checker, retriever, retrieve_k, detector),
        new_totals=CheckTotals,
        components={"extractor": extractor, "checker": checker, "retriever": retriever},
        settings={
            "retrieve_k": retrieve_k if retriever is not None else None,
            "abstention_detection": abstention_detection,
            **(settings or {}),
        },
        failed=check_failed,
        crashed=check_crashed,
    )


def check_crashed(record: Record, reason: str) -> CheckResult:
    """The failed row of a record whose checking ended its worker process (``Pipeline.crashed``): its
    extraction marked failed with ``reason``, so ``retry_failed`` runs it again."""
    return CheckResult(
        id=record.id,
        question=record.question,
        response=record.response,
        setting=record.setting,
        references=list(record.references),
        extraction_failed=True,
        extraction_error=reason,
        metadata=dict(record.metadata),
    )


def check(
    records: Iterable[Record],
    *,
    extractor: Extractor,
    checker: Checker,
    output: str | Path | None = None,
    retriever: Any = None,
    retrieve_k: int = 5,
    batch_size: int = 32,
    progress: ProgressCallback | None = None,
    settings: Mapping[str, Setting] | None = None,
    overwrite: bool = False,
    retry_failed: bool = False,
    abstention_detection: bool = True,
) -> CheckRun:
    """Run extraction and checking over ``records`` in batches, writing each result as soon as it is done.

    ``records`` is read twice (a list, or a re-iterable reader such as ``CheckRecords`` that streams a file).
    With ``output``, records already in that file are skipped (resume), the run's figures cover the whole file,
    and ``results`` reads the file lazily, so memory does not grow with the number of records. Records with no
    references are checked against the ``retriever``'s top ``retrieve_k`` passages (query: the question, else the
    response) when one is given. ``progress`` receives the run's progress events, and so do the extractor and
    checker when they report their own work (LLM calls); nothing is drawn without it. The results file records
    what made it (``settings`` adds to the components' own description); a file made otherwise is refused unless
    ``overwrite``. With ``retry_failed``, the file's records with a failed extraction or claim check
    (``check_failed``) are checked again and replaced in place. With ``abstention_detection`` (the default),
    sentences that decline to answer give no claims and a response made only of them is not extracted at all
    (see :mod:`factscope.claims.abstention`).
    """
    report_progress(progress, extractor, checker)
    pipeline = check_pipeline(
        extractor,
        checker,
        retriever=retriever,
        retrieve_k=retrieve_k,
        abstention_detection=abstention_detection,
        settings=settings,
    )
    produced, totals = run_pipeline(
        pipeline,
        records,
        output=output,
        batch_size=batch_size,
        progress=progress,
        overwrite=overwrite,
        retry_failed=retry_failed,
    )
    return check_run(produced, totals, extractor=extractor.name, checker=checker.name)


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
    )


def check_failed(result: CheckResult) -> bool:
    """Whether a result row holds a failure a rerun should retry: a failed extraction or claim check."""
    return result.extraction_failed or any(claim.verdict.failed for claim in result.claims)


def _check_batch(
    batch: Sequence[Record],
    extractor: Extractor,
    checker: Checker,
    retriever: Any,
    retrieve_k: int,
    detector: AbstentionDetector | None,
) -> list[CheckResult]:
    screened = extract_answers(extractor, [r.response for r in batch], [r.question for r in batch], detector)
    extractions = [extraction for extraction, _ in screened]
    references = [_references_for(record, retriever, retrieve_k) for record in batch]
    tasks: list[CheckTask] = []
    for record, extraction, refs in zip(batch, extractions, references):
        for claim in extraction.claims:
            tasks.append(
                CheckTask(
                    claim=claim.render(), references=tuple(refs), question=record.question, triplet=claim.triplet
                )
            )
    verdicts = iter(checker.check(tasks)) if tasks else iter(())
    results = []
    for record, (extraction, screening), refs in zip(batch, screened, references):
        joined = "\n".join(refs)
        claims = [
            ClaimResult(claim=claim, verdict=next(verdicts), copy_rate=copy_rate(claim.render(), joined) if refs else None)
            for claim in extraction.claims
        ]
        summary = None if extraction.failed else summarize_response([c.verdict.label for c in claims])
        results.append(
            CheckResult(
                id=record.id,
                question=record.question,
                response=record.response,
                setting=record.setting,
                references=refs,
                retrieved=not record.references and bool(refs),
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


def _references_for(record: Record, retriever: Any, k: int) -> list[str]:
    if record.references or retriever is None:
        return list(record.references)
    query = record.question or record.response
    return [hit.text for hit in retriever.search(query, k)] if query.strip() else []


def summarize_run(
    results: Sequence[CheckResult], *, new_records: int, seconds: float, extractor: str, checker: str
) -> CheckRun:
    """The run figures of result rows held in memory (a server's batch, a report's rows): the same totals as a run."""
    totals = CheckTotals()
    for result in results:
        totals.add(result)
    produced = RunRows(
        results=ResultRows(CheckResult, rows=results),
        new=new_records,
        resumed=len(results) - new_records,
        seconds=seconds,
    )
    return check_run(produced, totals, extractor=extractor, checker=checker)
