"""Agreement with human labels (RefChecker section 5 and appendix C).

Human annotations come in RefChecker's layout: a JSON list of ``{id, response, <model>_response_kg:
[{triplet: [s, p, o], human_label}]}``, one file per evaluated model and context setting. The model and the
setting come from the file name (``file_names.read_file_name``: ``nq_gpt4_answers.json`` is gpt4 in Zero
Context), or from fields of the records. Annotated responses are joined by setting and id with reference
records (the check input format, or RefChecker's benchmark records) that supply the question and references.

Two modes: ``checker`` checks the annotated triplets themselves (claim-level agreement of the checker alone);
``pipeline`` extracts claims anew and compares response-level hallucination rates. The figures are given over
all responses and per context setting; both modes write a results file as they go and resume from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from factscope.checkers.base import Checker, CheckTask
from factscope.claims.base import Extractor
from factscope.core.errors import InputError
from factscope.core.fields import Identifier
from factscope.core.io import parse_located, read_json_records
from factscope.core.record_ids import RecordIds
from factscope.core.run import ProgressCallback, report_progress, run_batches, run_manifest
from factscope.core.schema import LABELS, Claim, Label, Record, Setting, Verdict
from factscope.metrics import agreement
from factscope.metrics.hallucination import summarize_response
from factscope.refchecker.data import MAX_REFERENCE_CHARS, SettingName, load_check_records
from factscope.refchecker.file_names import read_file_name
from factscope.refchecker.task import check, check_failed

ModelSource = Literal["stem", "field"]
"""Where an annotation file's model name comes from: its file name, or a field of each record."""

AgreeMode = Literal["checker", "pipeline"]
"""``checker`` checks the annotated triplets; ``pipeline`` extracts claims anew."""

SETTINGS: tuple[Setting, ...] = get_args(Setting)
"""The context settings in the paper's order: zero, noisy, accurate."""


class HumanTriplet(BaseModel):
    """One annotated claim-triplet."""

    triplet: tuple[str, str, str]
    label: Label


class HumanResponse(BaseModel):
    """One annotated response of one model in one context setting (None when no file or field says)."""

    id: str
    model: str
    setting: Setting | None = None
    response: str
    triplets: list[HumanTriplet] = Field(default_factory=list)
    excluded: int = 0

    @property
    def hallucination_rate(self) -> float | None:
        """Share of Neutral + Contradiction among the labelled triplets (None with no triplets)."""
        return _rate([t.label for t in self.triplets])


RESPONSE_KG = "<model>_response_kg"
"""How errors name the annotated-triplets field, whose key carries the extractor's name (``claude2_response_kg``)."""


class HumanAnnotationInput(BaseModel):
    """One record of a RefChecker human-annotation file as written; the triplets sit under
    ``<model>_response_kg`` (or ``triplets``), each ``{triplet: [s, p, o], human_label}``. An optional
    ``setting`` (zero / noisy / accurate) overrides the one the file name gives."""

    model_config = ConfigDict(strict=True)

    id: Identifier
    response: str | None = None
    setting: SettingName = None
    response_kg: list[Any] | None = Field(validation_alias=RESPONSE_KG)

    @model_validator(mode="before")
    @classmethod
    def _find_response_kg(cls, data: Any) -> Any:
        """Read the first ``*_response_kg`` (or ``triplets``) field as the annotated triplets."""
        if type(data) is not dict:
            return data
        key = next((key for key in data if key.endswith("_response_kg") or key == "triplets"), None)
        return data if key is None else {**data, RESPONSE_KG: data[key]}


def load_human_annotations(
    path: str | Path, model: str | None = None, *, model_from: ModelSource = "stem", model_field: str = "model"
) -> tuple[list[HumanResponse], list[InputError]]:
    """Read a RefChecker human-annotation file; labels other than E / N / C (e.g. bad triplets) are excluded.

    The model is ``model`` when given; else, with ``model_from="stem"``, the one the file name gives
    (``read_file_name``: ``gpt4_zero.json`` and ``nq_gpt4_answers.json`` are both gpt4), or with
    ``model_from="field"`` each record's ``model_field``. The setting is a record's ``setting`` field, else the
    one the file name gives. A response whose (model, setting, id) repeats an earlier one's is skipped with a located
    error (``factscope.core.record_ids``).
    """
    path = Path(path)
    named = read_file_name(path)
    responses: list[HumanResponse] = []
    problems: list[InputError] = []
    ids = RecordIds(path)
    for line, item in read_json_records(path):
        try:
            if isinstance(item, InputError):
                raise item
            given = parse_located(HumanAnnotationInput, item, path=path, line=line)
            name = model or (named.model if model_from == "stem" else _model_field(item, model_field, path, line))
            setting = given.setting or named.setting
            repeated = ids.repeat(
                f"{name}/{setting or '-'}/{given.id}", line, what=f"id {given.id!r} (model {name!r}, setting {setting!r})"
            )
            if repeated is not None:
                raise repeated
        except InputError as error:
            problems.append(error)
            continue
        triplets, excluded = [], 0
        for entry in given.response_kg or []:
            try:
                s, p, o = (str(part) for part in entry["triplet"])
                triplets.append(HumanTriplet(triplet=(s, p, o), label=Label.parse(str(entry["human_label"]))))
            except (KeyError, TypeError, ValueError):
                excluded += 1
        responses.append(
            HumanResponse(
                id=given.id,
                model=name,
                setting=given.setting or named.setting,
                response=given.response or "",
                triplets=triplets,
                excluded=excluded,
            )
        )
    return responses, problems


def _model_field(item: dict[str, Any], field: str, path: Path, line: int) -> str:
    value = item.get(field)
    if type(value) is not str or not value.strip():
        shown = "missing" if value is None else f"expected the model's name, got {value!r}"
        raise InputError(f"{shown} (--model-from field reads each record's model here)", path=path, line=line, field=field)
    return value.strip()


def load_reference_records(
    paths: Sequence[str | Path], *, max_reference_chars: int = MAX_REFERENCE_CHARS
) -> tuple[list[Record], list[InputError]]:
    """The records that supply the questions and references, from one or more files in the check input format
    or RefChecker's benchmark format (``{id, question, context}``); a response is optional. A record without a
    ``setting`` takes the one its file name gives (``nq.json``: zero, ``msmarco.json``: noisy, ``dolly.json``:
    accurate)."""
    records: list[Record] = []
    problems: list[InputError] = []
    for path in paths:
        loaded, found = load_check_records(path, max_reference_chars=max_reference_chars, require_response=False)
        setting = read_file_name(path).setting
        records += [r if r.setting or setting is None else r.model_copy(update={"setting": setting}) for r in loaded]
        problems += found
    return records, problems


class AnnotatedRecord(BaseModel):
    """One annotated response with the record that supplies its question and references."""

    human: HumanResponse
    record: Record

    @property
    def setting(self) -> Setting | None:
        """The annotation's setting, else the record's."""
        return self.human.setting or self.record.setting

    @property
    def key(self) -> str:
        """``model/setting/id``: the response's key in a results file (``-`` for an unknown setting)."""
        return f"{self.human.model}/{self.setting or '-'}/{self.human.id}"


class AnnotationJoin(BaseModel):
    """Annotated responses joined with their records, and the ids that found none."""

    pairs: list[AnnotatedRecord]
    unmatched_ids: list[str]

    def without_references(self) -> list[str]:
        """Keys of the joined responses whose record has no references (every claim could only be Neutral)."""
        return [pair.key for pair in self.pairs if not pair.record.references]


def join_annotations(human: Sequence[HumanResponse], records: Sequence[Record]) -> AnnotationJoin:
    """Join annotated responses with records: by setting and id; a record without a setting matches by id alone,
    and so does a response without one when exactly one record has its id. A key (model, setting, id) seen again
    keeps its first response."""
    by_key: dict[tuple[Setting | None, str], Record] = {}
    by_id: dict[str, list[Record]] = {}
    for record in records:
        by_key.setdefault((record.setting, record.id), record)
        by_id.setdefault(record.id, []).append(record)
    pairs: dict[str, AnnotatedRecord] = {}
    unmatched: set[str] = set()
    for response in human:
        found = by_key.get((response.setting, response.id)) or by_key.get((None, response.id))
        if found is None and response.setting is None and len(by_id.get(response.id, [])) == 1:
            found = by_id[response.id][0]
        if found is None:
            unmatched.add(response.id)
            continue
        pair = AnnotatedRecord(human=response, record=found)
        pairs.setdefault(pair.key, pair)
    return AnnotationJoin(pairs=list(pairs.values()), unmatched_ids=sorted(unmatched))


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
    setting: Setting | None = None
    triplets: list[JudgedTriplet] = Field(default_factory=list)
    excluded: int = 0


class ClaimPrediction(BaseModel):
    """One claim's labels: the human one (checker mode only) and the checker's (None when its check failed)."""

    model: str
    setting: Setting | None = None
    id: str
    claim: str
    triplet: tuple[str, str, str] | None = None
    human: Label | None = None
    checker: Label | None = None
    error: str | None = None


class AgreementFigures(BaseModel):
    """Claim-level (checker mode) and response-level agreement figures over a set of responses.

    ``confusion[human][checker]`` counts the checked claims; claims whose check failed are counted in
    ``failed_checks`` and left out of the claim figures. ``model_rates`` maps a model to its mean hallucination
    rate by humans and by factscope.
    """

    claims: int = 0
    failed_checks: int = 0
    accuracy: float | None = None
    macro_f1: float | None = None
    per_class_f1: dict[Label, float] = Field(default_factory=dict)
    confusion: dict[Label, dict[Label, int]] = Field(default_factory=dict)
    responses: int = 0
    pearson: tuple[float, float] | None = None
    spearman: tuple[float, float] | None = None
    model_rates: dict[str, tuple[float, float]] = Field(default_factory=dict)
    model_ranking_spearman: float | None = None


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
    pipeline mode, a failed extraction) are checked again and replaced in place.
    """
    joined = join_annotations(human, records)
    if not joined.pairs:
        raise InputError("no annotated id matches a record id of the input file; check that both files use the same ids")
    if mode == "checker":
        scored, predictions, counts = _check_given_triplets(
            joined.pairs, checker, output, batch_size, progress, overwrite, retry_failed
        )
    elif mode == "pipeline":
        if extractor is None:
            raise ValueError("pipeline mode needs an extractor")
        scored, predictions, counts = _run_pipeline(
            joined.pairs, checker, extractor, output, batch_size, progress, overwrite, retry_failed
        )
    else:
        raise ValueError(f"unknown mode {mode!r}; use 'checker' or 'pipeline'")
    aligned = mode == "checker"
    by_setting: dict[str, AgreementFigures] = {
        setting: _figures([s for s in scored if s.setting == setting], aligned)
        for setting in SETTINGS
        if any(s.setting == setting for s in scored)
    }
    return AgreementReport(
        **_figures(scored, aligned).model_dump(),
        mode=mode,
        by_setting=by_setting,
        unmatched_ids=joined.unmatched_ids,
        predictions=predictions,
        new_responses=counts[0],
        resumed_responses=counts[1],
        seconds=counts[2],
        failed_responses=counts[3],
    )


@dataclass
class _Scored:
    """One response's labels: the humans' and factscope's (aligned with them in checker mode; None for a
    failed extraction)."""

    model: str
    setting: Setting | None
    human: list[Label]
    ours: list[Label | None] | None


Counts = tuple[int, int, float, int]
"""New responses, resumed responses, seconds, responses with a failure."""


def agreement_failed(row: AgreementRow) -> bool:
    """Whether a checker-mode row holds a failed claim check a rerun should retry."""
    return any(t.verdict.failed for t in row.triplets)


def _check_given_triplets(
    pairs: Sequence[AnnotatedRecord],
    checker: Checker,
    output: str | Path | None,
    batch_size: int,
    progress: ProgressCallback | None,
    overwrite: bool,
    retry_failed: bool,
) -> tuple[list[_Scored], list[ClaimPrediction], Counts]:
    report_progress(progress, checker)
    produced = run_batches(
        pairs,
        lambda batch: _check_batch(batch, checker),
        key=lambda pair: pair.key,
        row_type=AgreementRow,
        output=output,
        batch_size=batch_size,
        progress=progress,
        stage_name="checking annotated claims",
        manifest=run_manifest("agree", pairs, {"checker": checker}, {"mode": "checker"}),
        overwrite=overwrite,
        failed=agreement_failed,
        retry_failed=retry_failed,
    )
    scored, predictions = [], []
    for row in produced.results:
        scored.append(
            _Scored(row.model, row.setting, [t.human for t in row.triplets], [t.verdict.label for t in row.triplets])
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
    pairs: Sequence[AnnotatedRecord],
    checker: Checker,
    extractor: Extractor,
    output: str | Path | None,
    batch_size: int,
    progress: ProgressCallback | None,
    overwrite: bool,
    retry_failed: bool,
) -> tuple[list[_Scored], list[ClaimPrediction], Counts]:
    by_key = {pair.key: pair for pair in pairs}
    records = [
        pair.record.model_copy(
            update={"id": pair.key, "response": pair.human.response or pair.record.response, "setting": pair.setting}
        )
        for pair in pairs
    ]
    run = check(
        records,
        extractor=extractor,
        checker=checker,
        output=output,
        batch_size=batch_size,
        progress=progress,
        settings={"agree_mode": "pipeline"},
        overwrite=overwrite,
        retry_failed=retry_failed,
    )
    scored, predictions = [], []
    for result in run.results:
        pair = by_key[result.id]
        human = [t.label for t in pair.human.triplets]
        ours = None if result.extraction_failed else [c.verdict.label for c in result.claims]
        scored.append(_Scored(pair.human.model, pair.setting, human, ours))
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


def _figures(scored: Sequence[_Scored], aligned: bool) -> AgreementFigures:
    """The figures of a set of responses; claim-level ones only when human and checker labels are aligned."""
    figures = AgreementFigures(responses=len(scored))
    if aligned:
        labelled = [(h, o) for s in scored for h, o in zip(s.human, s.ours or [])]
        checked = [(h, o) for h, o in labelled if o is not None]
        figures.failed_checks = len(labelled) - len(checked)
        figures.claims = len(checked)
        figures.confusion = {h: {o: sum(1 for pair in checked if pair == (h, o)) for o in LABELS} for h in LABELS}
        if checked:
            gold, predicted = [h for h, _ in checked], [o for _, o in checked]
            figures.accuracy = agreement.accuracy(gold, predicted)
            scores = agreement.per_class_f1(gold, predicted, LABELS)
            figures.per_class_f1 = {label: scores[label] for label in LABELS}
            figures.macro_f1 = agreement.macro_f1(gold, predicted, LABELS)
    human_rates, our_rates, models = [], [], []
    for item in scored:
        human_rate = _rate(item.human)
        ours_rate = summarize_response(item.ours).hallucination_rate if item.ours is not None else None
        if human_rate is not None and ours_rate is not None:
            human_rates.append(human_rate)
            our_rates.append(ours_rate)
            models.append(item.model)
    figures.pearson = _maybe(agreement.pearson, human_rates, our_rates)
    figures.spearman = _maybe(agreement.spearman, human_rates, our_rates)
    for model in sorted(set(models)):
        idx = [i for i, m in enumerate(models) if m == model]
        figures.model_rates[model] = (
            sum(human_rates[i] for i in idx) / len(idx),
            sum(our_rates[i] for i in idx) / len(idx),
        )
    if len(figures.model_rates) >= 3:
        values = list(figures.model_rates.values())
        result = _maybe(agreement.spearman, [v[0] for v in values], [v[1] for v in values])
        figures.model_ranking_spearman = result[0] if result else None
    return figures


def _rate(labels: Sequence[Label]) -> float | None:
    """Share of Neutral + Contradiction (None with no labels)."""
    return sum(label != Label.ENTAILMENT for label in labels) / len(labels) if labels else None


def _maybe(statistic: Any, x: list[float], y: list[float]) -> tuple[float, float] | None:
    """A correlation, or None where it is undefined (fewer than 3 pairs, or a constant side)."""
    if len(x) < 3:
        return None
    try:
        return statistic(x, y)
    except ValueError:
        return None
