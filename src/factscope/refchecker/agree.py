"""Agreement with human labels (RefChecker section 5 and appendix C): the run.

Two modes: ``checker`` checks the annotated triplets themselves (claim-level agreement of the checker alone);
``pipeline`` extracts claims anew and compares response-level hallucination rates. The figures are given over
all responses and per context setting (``factscope.refchecker.agreement_figures``); both modes write a results
file as they go and resume from it. The annotations are read and joined with their records by
``factscope.refchecker.annotations``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, Field

from factscope.checkers.base import Checker, CheckTask
from factscope.claims.base import Extractor
from factscope.core.errors import InputError
from factscope.core.run import ProgressCallback, report_progress, run_batches, run_manifest
from factscope.core.schema import Claim, ContextSetting, Label, Record, Verdict
from factscope.refchecker.agreement_figures import AgreementFigures, ScoredResponse, agreement_figures
from factscope.refchecker.annotations import AnnotatedRecord, HumanResponse, join_annotations

AgreeMode = Literal["checker", "pipeline"]
"""``checker`` checks the annotated triplets; ``pipeline`` extracts claims anew."""

SETTINGS: tuple[ContextSetting, ...] = get_args(ContextSetting)
"""The context settings in the paper's order: zero, noisy, accurate."""


class JudgedTriplet(BaseModel):
    """An annotated triplet with the human label and the checker's verdict."""

    triplet: tuple[str, str, str]
    human: Label
    verdict: Verdict


class AgreementRow(BaseModel):
    """One annotated response checked in checker mode: a row of the results file, keyed by ``id``
    (``model/setting/response id``)."""

    id: str
    response_id: str
    model: str
    setting: ContextSetting | None = None
    triplets: list[JudgedTriplet] = Field(default_factory=list)
    excluded: int = 0


class ClaimPrediction(BaseModel):
    """One claim's labels: the human one (checker mode only) and the checker's (None when its check failed)."""

    model: str
    setting: ContextSetting | None = None
    id: str
    claim: str
    triplet: tuple[str, str, str] | None = None
    human: Label | None = None
    checker: Label | None = None
    error: str | None = None


class AgreementReport(AgreementFigures):
    """The figures over all responses, the same per context setting, and every claim's labels."""

    mode: str
    by_setting: dict[str, AgreementFigures] = Field(default_factory=dict)
    unmatched_ids: list[str] = Field(default_factory=list)
    predictions: list[ClaimPrediction] = Field(default_factory=list)
    new_responses: int = 0
    resumed_responses: int = 0
    seconds: float = 0.0
    failed_responses: int = 0
    """Responses of the results file with a failed claim check (or, in pipeline mode, a failed extraction)."""


def agree(
    human: Sequence[HumanResponse],
    records: Sequence[Record],
    *,
    checker: Checker,
    extractor: Extractor | None = None,
    mode: AgreeMode = "checker",
    output: str | Path | None = None,
    batch_size: int = 32,
    progress: ProgressCallback | None = None,
    overwrite: bool = False,
    retry_failed: bool = False,
) -> AgreementReport:
    """Compare factscope with human labels; ``mode`` is 'checker' (given triplets) or 'pipeline'.

    With ``output``, each response's result is written there as it is done, and a rerun resumes (only into a
    file made by the same annotations, records and settings, unless ``overwrite``); ``progress`` receives the
    run's progress events. With ``retry_failed``, the file's responses with a failed claim check (or, in
    pipeline mode, a failed extraction) are checked again and replaced in place. Every annotated response is
    checked, those whose record has no references included: the caller decides on them
    (``AnnotationJoin.without_references``; the command stops on them unless told to go on).
    """
    joined = join_annotations(human, records)
    if not joined.pairs:
        raise InputError("no annotated id matches a record id of the input file; check that both files use the same ids")
    writing = _Writing(output, batch_size, progress, overwrite, retry_failed)
    if mode == "checker":
        scored, predictions, counts = _check_given_triplets(joined.pairs, checker, writing)
    elif mode == "pipeline":
        if extractor is None:
            raise ValueError("pipeline mode needs an extractor")
        scored, predictions, counts = _run_pipeline(joined.pairs, checker, extractor, writing)
    else:
        raise ValueError(f"unknown mode {mode!r}; use 'checker' or 'pipeline'")
    aligned = mode == "checker"
    by_setting: dict[str, AgreementFigures] = {
        setting: agreement_figures([s for s in scored if s.setting == setting], aligned)
        for setting in SETTINGS
        if any(s.setting == setting for s in scored)
    }
    return AgreementReport(
        **agreement_figures(scored, aligned).model_dump(),
        mode=mode,
        by_setting=by_setting,
        unmatched_ids=joined.unmatched_ids,
        predictions=predictions,
        new_responses=counts[0],
        resumed_responses=counts[1],
        seconds=counts[2],
        failed_responses=counts[3],
    )


Counts = tuple[int, int, float, int]
"""New responses, resumed responses, seconds, responses with a failure."""


def agreement_failed(row: AgreementRow) -> bool:
    """Whether a checker-mode row holds a failed claim check a rerun should retry."""
    return any(t.verdict.failed for t in row.triplets)


@dataclass(frozen=True)
class _Writing:
    """How an agreement run writes its results and reports its progress (see ``agree``)."""

    output: str | Path | None
    batch_size: int
    progress: ProgressCallback | None
    overwrite: bool
    retry_failed: bool


def _check_given_triplets(
    pairs: Sequence[AnnotatedRecord], checker: Checker, writing: _Writing
) -> tuple[list[ScoredResponse], list[ClaimPrediction], Counts]:
    report_progress(writing.progress, checker)
    produced = run_batches(
        pairs,
        lambda batch: _check_batch(batch, checker),
        key=lambda pair: pair.key,
        row_type=AgreementRow,
        output=writing.output,
        batch_size=writing.batch_size,
        progress=writing.progress,
        stage_name="checking annotated claims",
        manifest=run_manifest("agree", pairs, {"checker": checker}, {"mode": "checker"}),
        overwrite=writing.overwrite,
        failed=agreement_failed,
        retry_failed=writing.retry_failed,
    )
    scored, predictions = [], []
    for row in produced.results:
        scored.append(
            ScoredResponse(row.model, row.setting, [t.human for t in row.triplets], [t.verdict.label for t in row.triplets])
        )
        predictions += [
            ClaimPrediction(
                model=row.model,
                setting=row.setting,
                id=row.response_id,
                claim=_claim_text(t.triplet),
                triplet=t.triplet,
                human=t.human,
                checker=t.verdict.label,
                error=t.verdict.error,
            )
            for t in row.triplets
        ]
    failed = sum(1 for row in produced.results if agreement_failed(row))
    return scored, predictions, (produced.new, produced.resumed, produced.seconds, failed)


def _check_batch(batch: Sequence[AnnotatedRecord], checker: Checker) -> list[AgreementRow]:
    tasks = [
        CheckTask(
            claim=_claim_text(t.triplet),
            references=tuple(pair.record.references),
            question=pair.record.question,
            triplet=t.triplet,
        )
        for pair in batch
        for t in pair.human.triplets
    ]
    verdicts = iter(checker.check(tasks)) if tasks else iter(())
    return [
        AgreementRow(
            id=pair.key,
            response_id=pair.human.id,
            model=pair.human.model,
            setting=pair.setting,
            triplets=[JudgedTriplet(triplet=t.triplet, human=t.label, verdict=next(verdicts)) for t in pair.human.triplets],
            excluded=pair.human.excluded,
        )
        for pair in batch
    ]


def _claim_text(triplet: tuple[str, str, str]) -> str:
    """A triplet as the plain text model checkers score: 'subject predicate object'."""
    return Claim(text=" ".join(triplet), kind="triplet", triplet=triplet).render()


def _run_pipeline(
    pairs: Sequence[AnnotatedRecord], checker: Checker, extractor: Extractor, writing: _Writing
) -> tuple[list[ScoredResponse], list[ClaimPrediction], Counts]:
    from factscope.refchecker.missing_references import MissingReferencesWarning
    from factscope.refchecker.spec import CheckSpec
    from factscope.refchecker.system import CHECK
    from factscope.refchecker.task import check_failed

    by_key = {pair.key: pair for pair in pairs}
    records = [
        pair.record.model_copy(
            update={"id": pair.key, "response": pair.human.response or pair.record.response, "setting": pair.setting}
        )
        for pair in pairs
    ]
    spec = CheckSpec(
        extractor=extractor, checker=checker, allow_missing_references=True, settings={"agree_mode": "pipeline"}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingReferencesWarning)  # the caller decides on them (see ``agree``)
        run = CHECK.run(
            spec, records, output=writing.output, batch_size=writing.batch_size, progress=writing.progress,
            overwrite=writing.overwrite, retry_failed=writing.retry_failed,
        )
    scored, predictions = [], []
    for result in run.results:
        pair = by_key[result.id]
        human = [t.label for t in pair.human.triplets]
        ours = None if result.extraction_failed else [c.verdict.label for c in result.claims]
        scored.append(ScoredResponse(pair.human.model, pair.setting, human, ours))
        predictions += [
            ClaimPrediction(
                model=pair.human.model,
                setting=pair.setting,
                id=pair.human.id,
                claim=c.claim.render(),
                triplet=c.claim.triplet,
                checker=c.verdict.label,
                error=c.verdict.error,
            )
            for c in result.claims
        ]
    failed = sum(1 for result in run.results if check_failed(result))
    return scored, predictions, (run.new_records, run.resumed_records, run.seconds, failed)
