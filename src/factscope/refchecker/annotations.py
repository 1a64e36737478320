"""Human annotations in RefChecker's layout (section 5 and appendix C), and their join with the records that
supply the questions and references.

Human annotations come as a JSON list of ``{id, response, <model>_response_kg: [{triplet: [s, p, o],
human_label}]}``, one file per evaluated model and context setting. The model and the setting come from the
file name (``file_names.read_file_name``: ``nq_gpt4_answers.json`` is gpt4 in Zero Context), or from fields of
the records. Annotated responses are joined by setting and id with reference records (the check input format,
or RefChecker's benchmark records).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from factscope.core.errors import InputError
from factscope.core.fields import Identifier
from factscope.core.files.error_location import parse_located
from factscope.core.files.record_ids import RecordIds
from factscope.core.files.tables import read_records
from factscope.core.schema import ContextSetting, Label, Record
from factscope.refchecker.data import MAX_REFERENCE_CHARS, ContextSettingName, load_check_records
from factscope.refchecker.file_names import read_file_name

ModelSource = Literal["stem", "field"]
"""Where an annotation file's model name comes from: its file name, or a field of each record."""


class HumanTriplet(BaseModel):
    """One annotated claim-triplet."""

    triplet: tuple[str, str, str]
    label: Label


class HumanResponse(BaseModel):
    """One annotated response of one model in one context setting (None when no file or field says)."""

    id: str
    model: str
    setting: ContextSetting | None = None
    response: str
    triplets: list[HumanTriplet] = Field(default_factory=list)
    excluded: int = 0

    @property
    def hallucination_rate(self) -> float | None:
        """Share of Neutral + Contradiction among the labelled triplets (None with no triplets)."""
        return hallucinated_share([t.label for t in self.triplets])


RESPONSE_KG = "<model>_response_kg"
"""How errors name the annotated-triplets field, whose key carries the extractor's name (``claude2_response_kg``)."""


class HumanAnnotationInput(BaseModel):
    """One record of a RefChecker human-annotation file as written; the triplets sit under
    ``<model>_response_kg`` (or ``triplets``), each ``{triplet: [s, p, o], human_label}``. An optional
    ``setting`` (zero / noisy / accurate) overrides the one the file name gives."""

    model_config = ConfigDict(strict=True)

    id: Identifier
    response: str | None = None
    setting: ContextSettingName = None
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
    error (``factscope.core.files.record_ids``).
    """
    path = Path(path)
    named = read_file_name(path)
    responses: list[HumanResponse] = []
    problems: list[InputError] = []
    ids = RecordIds(path)
    for line, item in read_records(path):
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
        raise InputError(f"{shown} (`model_from='field'` reads each record's model here)", path=path, line=line, field=field)
    return value.strip()


def model_names(named: Sequence[str] | None) -> dict[Path, str]:
    """The model each ``NAME=FILE`` of ``named`` gives its file; a value without a name or a file raises
    ValueError."""
    names: dict[Path, str] = {}
    for value in named or []:
        name, separator, file = value.partition("=")
        if not separator or not name.strip() or not file.strip():
            raise ValueError(f"{value!r}: expected NAME=FILE")
        names[Path(file.strip())] = name.strip()
    return names


def load_annotation_files(
    files: Sequence[Path],
    models: Mapping[Path, str] | None = None,
    *,
    model_from: ModelSource = "stem",
    model_field: str = "model",
) -> tuple[list[HumanResponse], list[InputError]]:
    """The annotated responses of each of ``files`` and of the files ``models`` names (each file read once, in
    that order), and the records skipped. A file ``models`` names holds the responses of that model; any other's
    model is read as ``load_human_annotations`` says for ``model_from`` and ``model_field``."""
    named = models or {}
    responses: list[HumanResponse] = []
    problems: list[InputError] = []
    for path in dict.fromkeys([*files, *named]):
        found, skipped = load_human_annotations(path, named.get(path), model_from=model_from, model_field=model_field)
        responses += found
        problems += skipped
    return responses, problems


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
    def setting(self) -> ContextSetting | None:
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
    by_key: dict[tuple[ContextSetting | None, str], Record] = {}
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


def hallucinated_share(labels: Sequence[Label]) -> float | None:
    """Share of Neutral + Contradiction among human labels (None with no labels)."""
    return sum(label != Label.ENTAILMENT for label in labels) / len(labels) if labels else None
