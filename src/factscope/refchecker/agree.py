"""Agreement with human labels (RefChecker section 5 and appendix C): the run.

Two modes: ``checker`` checks the annotated triplets themselves (claim-level agreement of the checker alone);
``pipeline`` extracts claims anew and compares response-level hallucination rates. The figures are given over
all responses and per context setting (``factscope.refchecker.agreement_figures``); both modes write a results
file as they go and resume from it. The annotations are read and joined with their records by
``factscope.refchecker.annotations``.

``AgreeSettings`` declares what a run of annotation files takes (`factscope agree` and ``factscope.agree`` build
it from its fields, and a ``CheckSpec`` for the checker and extractor): the ``AgreementWriter`` reads the files
(``read_agreement_inputs``), checks them and writes the results file.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from pydantic import BaseModel, Field

from factscope.checkers.base import Checker, CheckTask
from factscope.core.errors import ConfigError, InputError
from factscope.core.files.input_notes import InputNotes
from factscope.core.options.metadata import about
from factscope.core.options.validation import ValidatedOptions, rule_refusal
from factscope.core.schema import Claim, ContextSetting, Label, Record, Verdict
from factscope.engines.writer import Loaded, Produced, Writer, WriterSteps
from factscope.refchecker.agreement_figures import AgreementFigures, ScoredResponse, agreement_figures
from factscope.refchecker.annotations import (
    AnnotatedRecord,
    AnnotationJoin,
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
    from factscope.refchecker.task import CheckResult

AgreeMode = Literal["checker", "pipeline"]
"""``checker`` checks the annotated triplets; ``pipeline`` extracts claims anew."""

SETTINGS: tuple[ContextSetting, ...] = get_args(ContextSetting)
"""The context settings in the paper's order: zero, noisy, accurate."""


@dataclass(frozen=True)
class AgreeSettings(ValidatedOptions):
    """Where an agreement run finds the records that supply questions and references and each annotation file's
    model, what it checks (``mode``), and where it writes its results and report. The files it names enter a
    results file's manifest by what they hold (the annotations joined with their records), not by their paths."""

    input: list[Path] | None = field(default=None, metadata=about(
        "records with question and references, by id (repeatable; required)", flag=("--input", "-i"),
        recorded_by="records",
    ))
    model_from: ModelSource = field(default="stem", metadata=about(
        "where a file's model name comes from: its file name, or `model_field`", recorded_by="records"
    ))
    model_field: str = field(default="model", metadata=about(
        "the record field that names the model (`model_from='field'`)", recorded_by="records"
    ))
    model: list[str] | None = field(default=None, metadata=about(
        "NAME=FILE: the responses of FILE are model NAME (repeatable; FILE need not be among the annotation files "
        "too)",
        check=model_names, recorded_by="records",
    ))
    mode: AgreeMode = field(default="checker", metadata=about(
        "checker (given triplets) or pipeline (extract anew with `extractor`)"
    ))
    batch_size: int = field(default=32, metadata=about(
        "responses per checking batch", min=1, changes_results=False
    ))
    output: Path | None = field(default=None, metadata=about(
        "results JSONL, one line per response (default: agree-MODE.jsonl here)", flag=("--output", "-o"),
        changes_results=False,
    ))
    report: Path | None = field(default=None, metadata=about(
        "write the figures, the confusion matrix and every claim's labels as JSON here", changes_results=False
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
    skipped_records: int = 0
    """Records of the annotation and input files that could not be read."""

    @property
    def what_failed(self) -> str:
        """What ``failed_responses`` counts, as the message that reports them says it."""
        extraction = " or the extraction" if self.mode == "pipeline" else ""
        return f"responses (a claim check{extraction})"


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


@dataclass(frozen=True)
class AgreementLoaded(Loaded[Any]):
    """The items of an agreement run (the joined annotations in checker mode, their records with the annotated
    responses in pipeline mode) and the join they come from."""

    join: AnnotationJoin = field(default_factory=lambda: AnnotationJoin(pairs=[], unmatched_ids=[]))


class AgreementWriter(Writer[AgreeSettings, Any, AgreementReport]):
    """Agreement with human labels in ``settings.mode``, with the checker of ``spec`` (and in pipeline mode its
    extractor), each built with its settings where it is a spec string; the LLM is a client, or a function that
    makes one, called only when a component needs it. Each response's row is written as it is done, and a rerun
    resumes (only into a file made by the same annotations, records and settings, unless ``overwrite``); with
    ``retry_failed``, the file's responses with a failed claim check (or, in pipeline mode, a failed extraction)
    are checked again and replaced in place. With ``settings.report``, the report is also written there as JSON.

    Annotated responses whose record has no references stop the run before any work (``MissingReferences``)
    unless ``spec.allow_missing_references``; then a ``MissingReferencesWarning`` names them."""

    name = "agree"
    stage_name = "checking annotated claims"

    def __init__(self, spec: CheckSpec) -> None:
        self.spec = spec

    def batch_of(self, settings: AgreeSettings) -> int:
        """The settings' ``batch_size``."""
        return settings.batch_size

    def written(self, settings: AgreeSettings) -> dict[str, str | Path | None]:
        """The report file, when the settings name one."""
        return {"report": settings.report}

    def load(
        self, settings: AgreeSettings, inputs: Sequence[Path] | AgreementInputs, notes: InputNotes | None
    ) -> AgreementLoaded:
        """The annotation files ``inputs`` read with the records of ``settings.input`` (``read_agreement_inputs``;
        ``notes`` told of the records skipped), or inputs already read, joined."""
        from factscope.refchecker.missing_references import MissingReferences, MissingReferencesWarning

        read = inputs if isinstance(inputs, AgreementInputs) else read_agreement_inputs(inputs, settings)
        if notes is not None and read.skipped:
            notes.skipped(read.skipped)
        joined = join_annotations(read.annotations, read.records)
        if not joined.pairs:
            raise InputError(
                "no annotated id matches a record id of the input file; check that both files use the same ids"
            )
        keys = joined.without_references()
        if keys and not self.spec.allow_missing_references:
            raise MissingReferences(keys, "check that `input` holds the records these annotations were made on")
        if keys:
            warnings.warn(MissingReferencesWarning(keys), stacklevel=2)
        items: list[Any] = list(joined.pairs)
        if settings.mode == "pipeline":
            items = [
                pair.record.model_copy(update={
                    "id": pair.key, "response": pair.human.response or pair.record.response, "setting": pair.setting,
                })
                for pair in joined.pairs
            ]
        return AgreementLoaded(items, len(joined.pairs), len(read.skipped), join=joined)

    def steps(
        self, settings: AgreeSettings, llm: LLMClient | Callable[[], LLMClient] | None, loaded: Loaded[Any],
        notes: InputNotes | None,
    ) -> WriterSteps[Any]:
        """Checker mode: the annotated triplets checked; pipeline mode: the check system's pipeline over the
        records with the annotated responses."""
        from dataclasses import replace

        from factscope.checkers.registry import make_checker
        from factscope.refchecker.system import CHECK

        client = (llm() if settings.needs_llm(self.spec) else None) if callable(llm) else llm
        if settings.mode == "pipeline":
            pipeline = CHECK.pipeline(replace(self.spec, allow_missing_references=True), client)
            return WriterSteps(pipeline.process, key=pipeline.key, row_type=pipeline.row_type,
                               components=pipeline.components, settings=pipeline.settings, failed=pipeline.failed)
        checker = self.spec.checker
        if isinstance(checker, str):
            checker = make_checker(checker, options=self.spec.checker_settings, llm=client)
        ready = checker
        return WriterSteps(lambda batch: _check_batch(batch, ready), key=lambda pair: pair.key, row_type=AgreementRow,
                           components={"checker": checker}, failed=agreement_failed)

    def result(self, settings: AgreeSettings, loaded: Loaded[Any], produced: Produced) -> AgreementReport:
        """The figures over all responses and per context setting, every claim's labels and the run's counts;
        written as JSON to ``settings.report`` when it names a file."""
        join = loaded.join if isinstance(loaded, AgreementLoaded) else AnnotationJoin(pairs=[], unmatched_ids=[])
        rows = produced.rows
        if settings.mode == "pipeline":
            scored, predictions = _pipeline_figures(rows.results, join)
        else:
            scored, predictions = _checker_figures(rows.results)
        aligned = settings.mode == "checker"
        by_setting: dict[str, AgreementFigures] = {
            setting: agreement_figures([s for s in scored if s.setting == setting], aligned)
            for setting in SETTINGS
            if any(s.setting == setting for s in scored)
        }
        report = AgreementReport(
            **agreement_figures(scored, aligned).model_dump(), mode=settings.mode, by_setting=by_setting,
            unmatched_ids=join.unmatched_ids, predictions=predictions, new_responses=rows.new,
            resumed_responses=rows.resumed, seconds=rows.seconds, failed_responses=produced.failed_rows,
            skipped_records=loaded.skipped,
        )
        if settings.report is not None:
            settings.report.write_text(json.dumps(report.model_dump(mode="json"), indent=2), encoding="utf-8")
        return report

def agreement_failed(row: AgreementRow) -> bool:
    """Whether a checker-mode row holds a failed claim check a rerun should retry."""
    return any(t.verdict.failed for t in row.triplets)


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


def _checker_figures(rows: Iterable[AgreementRow]) -> tuple[list[ScoredResponse], list[ClaimPrediction]]:
    """The scored responses and claim labels of checker-mode rows."""
    scored, predictions = [], []
    for row in rows:
        scored.append(
            ScoredResponse(row.model, row.setting, [t.human for t in row.triplets], [t.verdict.label for t in row.triplets])
        )
        predictions += [
            ClaimPrediction(
                model=row.model, setting=row.setting, id=row.response_id, claim=_claim_text(t.triplet),
                triplet=t.triplet, human=t.human, checker=t.verdict.label, error=t.verdict.error,
            )
            for t in row.triplets
        ]
    return scored, predictions


def _pipeline_figures(
    results: Iterable[CheckResult], join: AnnotationJoin
) -> tuple[list[ScoredResponse], list[ClaimPrediction]]:
    """The scored responses and claim labels of pipeline-mode rows (check results keyed by their annotation)."""
    by_key = {pair.key: pair for pair in join.pairs}
    scored, predictions = [], []
    for result in results:
        pair = by_key[result.id]
        human = [t.label for t in pair.human.triplets]
        ours = None if result.extraction_failed else [c.verdict.label for c in result.claims]
        scored.append(ScoredResponse(pair.human.model, pair.setting, human, ours))
        predictions += [
            ClaimPrediction(
                model=pair.human.model, setting=pair.setting, id=pair.human.id, claim=c.claim.render(),
                triplet=c.claim.triplet, checker=c.verdict.label, error=c.verdict.error,
            )
            for c in result.claims
        ]
    return scored, predictions
