"""Agreement with human labels (RefChecker section 5 and appendix C): the run.

Two modes: ``checker`` checks the annotated triplets themselves (claim-level agreement of the checker alone);
``pipeline`` extracts claims anew and compares response-level hallucination rates. The figures are given over
all responses and per context setting (``factscope.refchecker.agreement_figures``); both modes write a results
file as they go and resume from it. The annotations are read and joined with their records by
``factscope.refchecker.annotations``.

``AgreeSettings`` declares what a run of annotation files takes (`factscope agree` builds its options from its
fields, and from ``CheckSpec``'s for the checker and extractor): ``read_agreement_inputs`` reads the files and
``run_agreement`` runs ``agree`` on them.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

from pydantic import BaseModel, Field

from factscope.checkers.base import Checker, CheckTask
from factscope.claims.base import Extractor
from factscope.core.errors import ConfigError, InputError
from factscope.core.option_metadata import about
from factscope.core.option_validation import ValidatedOptions, rule_refusal
from factscope.core.output_checks import check_outputs
from factscope.core.run import ProgressCallback, report_progress, run_batches, run_manifest
from factscope.core.schema import Claim, ContextSetting, Label, Record, Verdict
from factscope.refchecker.agreement_figures import AgreementFigures, ScoredResponse, agreement_figures
from factscope.refchecker.annotations import (
    AnnotatedRecord,
    HumanResponse,
    ModelSource,
    join_annotations,
    load_annotation_files,
    load_reference_records,
    model_names,
)

if TYPE_CHECKING:
    from factscope.llm.client import LLMClient
    from factscope.refchecker.spec import CheckSpec

AgreeMode = Literal["checker", "pipeline"]
"""``checker`` checks the annotated triplets; ``pipeline`` extracts claims anew."""

SETTINGS: tuple[ContextSetting, ...] = get_args(ContextSetting)
"""The context settings in the paper's order: zero, noisy, accurate."""


@dataclass(frozen=True)
class AgreeSettings(ValidatedOptions):
    """Where an agreement run finds the records that supply questions and references and each annotation file's
    model, what it checks (``mode``), and where it writes its results and report."""

    input: list[Path] | None = field(default=None, metadata=about(
        "records with question and references, by id (repeatable; required)", flag=("--input", "-i")
    ))
    model_from: ModelSource = field(default="stem", metadata=about(
        "where a file's model name comes from: its file name, or `model_field`"
    ))
    model_field: str = field(default="model", metadata=about(
        "the record field that names the model (`model_from='field'`)"
    ))
    model: list[str] | None = field(default=None, metadata=about(
        "NAME=FILE: the responses of FILE are model NAME (repeatable; FILE need not be among the annotation files "
        "too)",
        check=model_names,
    ))
    mode: AgreeMode = field(default="checker", metadata=about(
        "checker (given triplets) or pipeline (extract anew with `extractor`)"
    ))
    batch_size: int = field(default=32, metadata=about("responses per checking batch", min=1))
    output: Path | None = field(default=None, metadata=about(
        "results JSONL, one line per response (default: agree-MODE.jsonl here)", flag=("--output", "-o")
    ))
    report: Path | None = field(default=None, metadata=about(
        "write the figures, the confusion matrix and every claim's labels as JSON here"
    ))

    @property
    def results_file(self) -> Path:
        """The results file: ``output``, else agree-MODE.jsonl in the current folder."""
        return self.output or Path(f"agree-{self.mode}.jsonl")

    def needs_llm(self, spec: CheckSpec) -> bool:
        """Whether the checker of ``spec``, or in pipeline mode its extractor, calls an LLM endpoint."""
        from factscope.checkers.registry import CHECKERS
        from factscope.claims.registry import EXTRACTORS

        checker, extractor = spec.checker, spec.extractor
        return (isinstance(checker, str) and CHECKERS.needs_llm(checker)) or (
            self.mode == "pipeline" and isinstance(extractor, str) and EXTRACTORS.needs_llm(extractor)
        )

    def unused_llm(self, spec: CheckSpec) -> str | None:
        """Why an LLM given to this agreement run would go unused (a rule's refusal), or None when it calls one."""
        users = "with an llm `checker` (llm, llm:minicheck), or an LLM `extractor` (llm, llm-facts) in pipeline `mode`"
        return None if self.needs_llm(spec) else rule_refusal("llm", users)


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

    @property
    def what_failed(self) -> str:
        """What ``failed_responses`` counts, as the message that reports them says it."""
        extraction = " or the extraction" if self.mode == "pipeline" else ""
        return f"responses (a claim check{extraction})"


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
    (``AnnotationJoin.without_references``; ``run_agreement`` stops on them unless told to go on).
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


@dataclass(frozen=True)
class AgreementInputs:
    """What an agreement run reads: the annotated responses, the records that supply their questions and
    references, and the records of either kind that were skipped."""

    annotations: list[HumanResponse]
    records: list[Record]
    skipped: list[InputError]


def read_agreement_inputs(human: Sequence[Path], settings: AgreeSettings) -> AgreementInputs:
    """The annotated responses of the ``human`` files and of the files ``settings.model`` names (each file's model
    as ``load_annotation_files`` reads it), and the records of ``settings.input``. Without records, or without
    any annotation file, raises ConfigError; a ``model`` value that is not NAME=FILE, ValueError."""
    if not settings.input:
        raise ConfigError("give the records with the questions and references (`input`)")
    if not human and not settings.model:
        raise ConfigError("give human annotation files (`human`), or name each file's model (`model`)")
    annotations, problems = load_annotation_files(
        human, model_names(settings.model), model_from=settings.model_from, model_field=settings.model_field
    )
    records, missing = load_reference_records(settings.input)
    return AgreementInputs(annotations, records, [*problems, *missing])


def run_agreement(
    inputs: AgreementInputs,
    settings: AgreeSettings,
    spec: CheckSpec,
    *,
    llm: LLMClient | Callable[[], LLMClient] | None = None,
    progress: ProgressCallback | None = None,
    overwrite: bool = False,
    retry_failed: bool = False,
) -> AgreementReport:
    """``agree`` on ``inputs`` in ``settings.mode``, with the checker of ``spec`` (and in pipeline mode its
    extractor), each built with its settings where it is a spec string; ``llm`` is a client, or a function that
    makes one, called only when a component needs it. The results go to ``settings.results_file`` and, with
    ``settings.report``, the report to that file as JSON; a bad path of either is refused first
    (``factscope.core.output_checks``).

    Annotated responses whose record has no references stop the run before any work (``MissingReferences``)
    unless ``spec.allow_missing_references``; then a ``MissingReferencesWarning`` names them.
    """
    from factscope.checkers.registry import make_checker
    from factscope.claims.registry import make_extractor
    from factscope.refchecker.missing_references import MissingReferences, MissingReferencesWarning

    check_outputs(settings.results_file, overwrite=overwrite, written={"report": settings.report})
    keys = join_annotations(inputs.annotations, inputs.records).without_references()
    if keys and not spec.allow_missing_references:
        raise MissingReferences(keys, "check that `input` holds the records these annotations were made on")
    if keys:
        warnings.warn(MissingReferencesWarning(keys), stacklevel=2)
    client = (llm() if settings.needs_llm(spec) else None) if callable(llm) else llm
    checker = spec.checker
    if isinstance(checker, str):
        checker = make_checker(checker, options=spec.checker_settings, llm=client)
    extractor = None
    if settings.mode == "pipeline":
        extractor = make_extractor(spec.extractor, llm=client) if isinstance(spec.extractor, str) else spec.extractor
    result = agree(
        inputs.annotations, inputs.records, checker=checker, extractor=extractor, mode=settings.mode,
        output=settings.results_file, batch_size=settings.batch_size, progress=progress, overwrite=overwrite,
        retry_failed=retry_failed,
    )
    if settings.report is not None:
        settings.report.write_text(json.dumps(result.model_dump(mode="json"), indent=2), encoding="utf-8")
    return result


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
