"""Grounding datasets: the Truly Ground layout (a JSON object keyed by question id) and a generic JSONL.

Truly Ground layout: ``{"<qid>": {"qId", "qText", "answer", "atomic_texts": [gold facts],
"context_list": ["Title: ... \\n\\n text", ...]}, ...}`` with an optional metadata file keyed by the same ids
(``{"has_answer", "has_multi", "pop"}``). The Original and Conflict versions are two such files.

Generic JSONL: one object per line with ``question``, ``contexts`` (a list or one string), ``gold_facts`` and
optionally ``id``, ``response``, ``answer``, ``metadata``; other top-level fields join the metadata.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    model_validator,
)

from factscope.core.errors import InputError
from factscope.core.fields import Flag, Identifier, NonBlank, Passages, Texts
from factscope.core.io import parse_located, read_json_document, read_json_records, read_text
from factscope.core.record_ids import RecordIds, repeated_keys
from factscope.grounding.responses import read_responses


@dataclass
class GroundExample:
    """One grounding instance: a question, its input contexts, the gold atomic facts, maybe a response."""

    id: str
    question: str
    contexts: list[str]
    gold_facts: list[str]
    answer: str | None = None
    response: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class GroundDataset:
    """Examples that loaded, and the errors of those that did not (each names file, key or line, and field)."""

    examples: list[GroundExample]
    errors: list[InputError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


_TITLE = re.compile(r"^\s*Title:\s*(?P<title>[^\n]*?)\s*(?:\n|$)")


def context_title(context: str) -> str | None:
    """The title of a ``"Title: X \\n\\n text"`` context, or None when it has none."""
    match = _TITLE.match(context)
    return match.group("title") if match else None


def _some_context(contexts: list[str]) -> list[str]:
    if not contexts:
        raise ValueError("no input context")
    return contexts


def _some_gold_facts(facts: list[str]) -> list[str]:
    if not facts:
        raise ValueError("no gold atomic facts; recall needs at least one")
    return facts


def _number_as_text(value: Any) -> Any:
    return str(value) if type(value) in (int, float) else value


Contexts = Annotated[Passages, AfterValidator(_some_context)]
"""The input contexts: one text or a list, blank ones dropped, at least one left."""

GoldFacts = Annotated[Passages, AfterValidator(_some_gold_facts)]
"""The gold atomic facts: one text or a list, blank ones dropped, at least one left."""

AnswerText = Annotated[str, BeforeValidator(_number_as_text)]
"""A short answer: a string, or a number read as its text."""


class SeedEntryInput(BaseModel):
    """One question of the Truly Ground layout as written (the value under its question id)."""

    model_config = ConfigDict(strict=True)

    qText: NonBlank
    context_list: Contexts
    atomic_texts: GoldFacts
    answer: AnswerText | None = None
    qId: Identifier | None = None


class MetadataEntryInput(BaseModel):
    """One question's metadata (``has_answer``, ``has_multi``, ``pop`` or anything else), kept whole."""

    model_config = ConfigDict(strict=True, extra="allow")


class GenericExampleInput(BaseModel):
    """One record of the generic JSONL layout as written; unknown fields join the metadata."""

    model_config = ConfigDict(strict=True, extra="allow")

    question: NonBlank
    contexts: Contexts
    gold_facts: GoldFacts
    answer: AnswerText | None = None
    response: str | None = None
    metadata: dict[str, Any] | None = None
    id: Identifier | None = None


def _at_least_one_text(texts: list[str]) -> list[str]:
    if not texts:
        raise ValueError("empty; give `text` (a string) or `contexts` (a list)")
    return texts


class PresenceLabelInput(BaseModel):
    """One human presence label: a fact, the text (or texts) it is judged against, and whether it is there."""

    model_config = ConfigDict(strict=True)

    fact: NonBlank
    text: Annotated[Texts, AfterValidator(_at_least_one_text)] = Field(
        validation_alias=AliasChoices("text", "contexts")
    )
    present: Flag

    @model_validator(mode="before")
    @classmethod
    def _contexts_win(cls, data: Any) -> Any:
        """With both given, ``contexts`` is read and ``text`` left alone."""
        if type(data) is dict and "contexts" in data and "text" in data:
            return {key: value for key, value in data.items() if key != "text"}
        return data


def read_presence_labels(path: str | Path) -> Iterator[tuple[int, PresenceLabelInput | InputError]]:
    """(line, label) for each record of a JSON / JSONL labels file; a bad record comes back as an InputError."""
    for line, item in read_json_records(path):
        if isinstance(item, InputError):
            yield line, item
            continue
        try:
            yield line, parse_located(PresenceLabelInput, item, path=path, line=line)
        except InputError as error:
            yield line, error


def is_seed_layout(path: Path) -> bool:
    """True when the file is one JSON object whose values are objects with ``qText`` (the Truly Ground layout)."""
    text = read_text(path)
    if not text.lstrip().startswith("{"):
        return False
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return False
    return isinstance(data, dict) and any(isinstance(v, dict) and "qText" in v for v in data.values())


def load_seed_dataset(path: str | Path, metadata_path: str | Path | None = None) -> GroundDataset:
    """Read a Truly Ground layout file (and its metadata file); bad entries are reported and skipped."""
    path = Path(path)
    data, repeated = read_json_document(path)
    if not isinstance(data, dict):
        raise InputError("expected a JSON object keyed by question id (the Truly Ground layout)", path=path)
    dataset = GroundDataset(examples=[], errors=repeated_keys(path, repeated))
    for key, entry in data.items():
        try:
            dataset.examples.append(_seed_example(path, str(key), entry))
        except InputError as error:
            dataset.errors.append(error)
    if metadata_path is not None:
        _attach_metadata(dataset, Path(metadata_path), {str(k) for k in data})
    return dataset


def _seed_example(path: Path, key: str, entry: Any) -> GroundExample:
    where = f"question {key!r}"
    given = parse_located(SeedEntryInput, entry, path=path, line=None, where=where)
    if given.qId is not None and given.qId != key:
        raise InputError(f"{where}: qId {given.qId!r} differs from its key", path=path, field="qId")
    return GroundExample(
        id=key,
        question=given.qText,
        contexts=given.context_list,
        gold_facts=given.atomic_texts,
        answer=given.answer,
    )


def _attach_metadata(dataset: GroundDataset, path: Path, data_ids: set[str]) -> None:
    metadata, repeated = read_json_document(path)
    if not isinstance(metadata, dict):
        raise InputError("expected a JSON object keyed by question id", path=path)
    dataset.errors.extend(repeated_keys(path, repeated))
    for example in dataset.examples:
        entry = metadata.get(example.id)
        if entry is None:
            continue
        try:
            given = parse_located(MetadataEntryInput, entry, path=path, line=None, where=f"question {example.id!r}")
        except InputError as error:
            dataset.errors.append(error)
            continue
        example.metadata.update(given.model_extra or {})
    without = sorted(data_ids - set(metadata))
    unknown = sorted(set(metadata) - data_ids)
    if without:
        dataset.warnings.append(f"{path}: no metadata for {len(without)} question id(s): {_ids(without)}")
    if unknown:
        dataset.warnings.append(f"{path}: {len(unknown)} metadata id(s) match no question: {_ids(unknown)}")


def _ids(ids: list[str], shown: int = 5) -> str:
    more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
    return ", ".join(ids[:shown]) + more


def generic_example(obj: Mapping[str, Any], *, path: Path, line: int) -> GroundExample:
    """One generic JSONL object as an example; errors name the file, line and field."""
    given = parse_located(GenericExampleInput, obj, path=path, line=line)
    return GroundExample(
        id=given.id if given.id is not None else str(line),
        question=given.question,
        contexts=given.contexts,
        gold_facts=given.gold_facts,
        answer=given.answer,
        response=given.response,
        metadata={**(given.model_extra or {}), **(given.metadata or {})},
    )


def load_generic_dataset(path: str | Path) -> GroundDataset:
    """Read the generic JSONL (or JSON list) layout; bad lines are reported and skipped."""
    path = Path(path)
    if not path.exists():
        raise InputError("file not found; check the path", path=path)
    dataset = GroundDataset(examples=[])
    ids = RecordIds(path)
    for line, item in read_json_records(path):
        if isinstance(item, InputError):
            dataset.errors.append(item)
            continue
        try:
            example = generic_example(item, path=path, line=line)
        except InputError as error:
            dataset.errors.append(error)
            continue
        repeated = ids.repeat(example.id, line)
        if repeated is not None:
            dataset.errors.append(repeated)
            continue
        dataset.examples.append(example)
    return dataset


def load_dataset(path: str | Path, metadata_path: str | Path | None = None) -> GroundDataset:
    """Read either layout, chosen by content; a metadata file applies to both (keyed by id)."""
    path = Path(path)
    if not path.exists():
        raise InputError("file not found; check the path", path=path)
    if is_seed_layout(path):
        return load_seed_dataset(path, metadata_path)
    dataset = load_generic_dataset(path)
    if metadata_path is not None:
        _attach_metadata(dataset, Path(metadata_path), {e.id for e in dataset.examples})
    return dataset


def attach_responses(dataset: GroundDataset, path: str | Path, field_name: str = "response") -> None:
    """Set each example's response from a responses file (see ``factscope.grounding.responses``): JSONL of
    ``{id, response}`` (e.g. ``ground generate`` output) or a prediction file of Truly Ground's generation script.

    A row may also carry ``contexts`` (the input contexts the model was given, e.g. with distractors added by
    ``ground generate``): they replace the example's contexts, so precision is judged against what the model saw.
    Entries that cannot be read join ``errors``; examples without a response, and response ids matching no
    example, are reported in ``warnings``. A file in neither format raises InputError.
    """
    rows, errors = read_responses(path, field_name)
    dataset.errors.extend(errors)
    responses = {row.id: row for row in rows}
    ids = {e.id for e in dataset.examples}
    for example in dataset.examples:
        row = responses.get(example.id)
        if row is None:
            continue
        example.response = row.text
        if row.contexts:
            example.contexts = row.contexts
    missing = sorted(ids - set(responses))
    unknown = sorted(set(responses) - ids)
    if missing:
        dataset.warnings.append(f"{path}: no response for {len(missing)} question id(s): {_ids(missing)}")
    if unknown:
        dataset.warnings.append(f"{path}: {len(unknown)} response id(s) match no question: {_ids(unknown)}")


class ScoredExamples:
    """The examples of a dataset file that can be scored: those with a response (attached from ``responses``
    when given), joined to ``metadata``. ``problems`` holds the records that did not load; ``without_response``
    the ids of those that loaded with no response (left out); ``warnings`` the reader's warnings."""

    def __init__(
        self, path: str | Path, metadata: str | Path | None = None, responses: str | Path | None = None
    ) -> None:
        self.path = Path(path)
        dataset = load_dataset(path, metadata)
        if responses is not None:
            attach_responses(dataset, responses)
        self.examples = [example for example in dataset.examples if example.response is not None]
        self.without_response = [example.id for example in dataset.examples if example.response is None]
        self.problems: list[InputError] = dataset.errors
        self.warnings = dataset.warnings

    def __iter__(self) -> Iterator[GroundExample]:
        return iter(self.examples)

    def __len__(self) -> int:
        return len(self.examples)
