"""The RefChecker pipeline: extract claims from responses, check them against references, aggregate."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from factscope.checkers.base import Checker, CheckTask
from factscope.claims.abstention import AbstentionDetector, extract_answers
from factscope.claims.base import Extractor
from factscope.core.manifest import Setting
from factscope.core.run import ProgressCallback, report_progress, run_batches, run_manifest
from factscope.core.schema import Claim, Record, Verdict
from factscope.metrics.hallucination import (
    DatasetRates,
    ResponseSummary,
    copy_rate,
    dataset_rates,
    summarize_response,
)


class ClaimResult(BaseModel):
    """One claim with its verdict and its copy rate (share of its 1- to 4-grams found in the references)."""

    claim: Claim
    verdict: Verdict
    copy_rate: float | None = None


class CheckResult(BaseModel):
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


class CheckRun(BaseModel):
    """A whole run: per-record results (earlier runs' rows included when resuming) and dataset figures.

    ``rates.abstained`` counts the responses with no claims (RefChecker's abstentions); ``declined`` those among
    them that the abstention detector found declining to answer as a whole ("I don't know.").
    """

    results: list[CheckResult]
    rates: DatasetRates
    rates_by_setting: dict[str, DatasetRates]
    declined: int
    extraction_failures: int
    check_failures: int
    new_records: int
    resumed_records: int
    seconds: float
    extractor: str
    checker: str


def check(
    records: Sequence[Record],
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

    With ``output``, records already in that file are skipped (resume) and the run's figures cover the
    whole file. Records with no references are checked against the ``retriever``'s top ``retrieve_k``
    passages (query: the question, else the response) when one is given. ``progress`` receives the run's
    progress events, and so do the extractor and checker when they report their own work (LLM calls);
    nothing is drawn without it. The results file records what made it (``settings`` adds to the components'
    own description); a file made otherwise is refused unless ``overwrite``. With ``retry_failed``, the file's
    records with a failed extraction or claim check (``check_failed``) are checked again and replaced in place.
    With ``abstention_detection`` (the default), sentences that decline to answer give no claims and a response
    made only of them is not extracted at all (see :mod:`factscope.claims.abstention`).
    """
    report_progress(progress, extractor, checker)
    detector = AbstentionDetector() if abstention_detection else None
    produced = run_batches(
        records,
        lambda batch: _check_batch(batch, extractor, checker, retriever, retrieve_k, detector),
        key=lambda record: record.id,
        row_type=CheckResult,
        output=output,
        batch_size=batch_size,
        progress=progress,
        stage_name="checking",
        manifest=run_manifest(
            "check",
            records,
            {"extractor": extractor, "checker": checker, "retriever": retriever},
            {
                "retrieve_k": retrieve_k if retriever is not None else None,
                "abstention_detection": abstention_detection,
                **(settings or {}),
            },
        ),
        overwrite=overwrite,
        failed=check_failed,
        retry_failed=retry_failed,
    )
    return summarize_run(
        produced.rows,
        new_records=produced.new,
        seconds=produced.seconds,
        extractor=extractor.name,
        checker=checker.name,
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
    """Dataset rates overall and per context setting; failed extractions are counted, not rated."""
    summaries = [r.summary for r in results if r.summary is not None]
    by_setting: dict[str, list[ResponseSummary]] = {}
    for result in results:
        if result.summary is not None and result.setting:
            by_setting.setdefault(result.setting, []).append(result.summary)
    return CheckRun(
        results=list(results),
        rates=dataset_rates(summaries),
        rates_by_setting={setting: dataset_rates(items) for setting, items in sorted(by_setting.items())},
        declined=sum(1 for r in results if r.abstained),
        extraction_failures=sum(1 for r in results if r.extraction_failed),
        check_failures=sum(1 for r in results for c in r.claims if c.verdict.failed),
        new_records=new_records,
        resumed_records=len(results) - new_records,
        seconds=seconds,
        extractor=extractor,
        checker=checker,
    )
