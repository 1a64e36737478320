"""Grounding datasets: the Truly Ground layout (a JSON object keyed by question id) and a generic JSONL.

Truly Ground layout: ``{"<qid>": {"qId", "qText", "answer", "atomic_texts": [gold facts],
"context_list": ["Title: ... \\n\\n text", ...]}, ...}`` with an optional metadata file keyed by the same ids
(``{"has_answer", "has_multi", "pop"}``). The Original and Conflict versions are two such files.

Generic JSONL: one object per line with ``question``, ``contexts`` (a list or one string), ``gold_facts`` and
optionally ``id``, ``response``, ``answer``, ``metadata``; other top-level fields join the metadata.

Both layouts are read one record at a time (the keyed layout entry by entry, ``factscope.core.files.json_entries``), so
a dataset of any size takes the memory of one record.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
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
    WithJsonSchema,
    model_validator,
)

from factscope.core.errors import InputError
from factscope.core.fields import SOME_TEXT, Flag, Identifier, NonBlank, Passages, Texts
from factscope.core.files.error_location import parse_located
from factscope.core.files.input_notes import InputNotes
from factscope.core.files.json_entries import document_kind, json_entries
from factscope.core.files.manifest import ItemsDigest
from factscope.core.files.record_ids import RecordIds
from factscope.core.files.tables import is_table_file, read_records
from factscope.grounding.metadata import SHOWN_IDS, Metadata, join_warnings
from factscope.grounding.response_index import ResponseIndex
from factscope.grounding.responses import ResponseRow, read_responses


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

    def report(self, notes: InputNotes | None) -> None:
        """Tell ``notes`` of each entry that did not load, then of each warning about the input."""
        if notes is None:
            return
        notes.skipped(self.errors)
        for warning in self.warnings:
            notes.warning(warning)


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


Contexts = Annotated[Passages, AfterValidator(_some_context), WithJsonSchema(SOME_TEXT)]
"""The input contexts: one text or a list, blank ones dropped, at least one left."""

GoldFacts = Annotated[Passages, AfterValidator(_some_gold_facts), WithJsonSchema(SOME_TEXT)]
"""The gold atomic facts: one text or a list, blank ones dropped, at least one left."""

AnswerText = Annotated[
    str, BeforeValidator(_number_as_text), WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "number"}]})
]
"""A short answer: a string, or a number read as its text."""


class SeedEntryInput(BaseModel):
    """One question of the Truly Ground layout as written (the value under its question id)."""

    model_config = ConfigDict(strict=True)

    qText: NonBlank
    context_list: Contexts
    atomic_texts: GoldFacts
    answer: AnswerText | None = None
    qId: Identifier | None = None


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


class GroundRequestRecord(GenericExampleInput):
    """A grounding record as a request sends it, as the server's schema shows it: with the response to score
    (``GroundSystem.parse``)."""

    response: str


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
    for line, item in read_records(path):
        if isinstance(item, InputError):
            yield line, item
            continue
        try:
            yield line, parse_located(PresenceLabelInput, item, path=path, line=line)
        except InputError as error:
            yield line, error


def is_seed_layout(path: Path) -> bool:
    """True when the file is one JSON object whose values are objects with ``qText`` (the Truly Ground layout).

    The file's entries are read one at a time up to the first such value (``factscope.core.files.json_entries``), so no
    file is read whole to tell it apart: for JSONL, the first record's fields are all that is read; a Parquet or
    CSV file holds generic records."""
    if is_table_file(path) or document_kind(path) != "object":
        return False
    try:
        return any(isinstance(entry.value, dict) and "qText" in entry.value for entry in json_entries(path))
    except InputError:
        return False


def seed_entries(path: str | Path) -> Iterator[tuple[str, GroundExample | InputError]]:
    """(question id, example) for each entry of a Truly Ground layout file, read one entry at a time, so a file of
    any size takes the memory of one entry; an entry that cannot be read, or whose key repeats an earlier one's
    (``factscope.core.files.record_ids``: the first is read), comes back as its error naming the file, line, question
    and field. A file that is not one JSON object, or whose object is broken between entries, raises InputError."""
    path = Path(path)
    if document_kind(path) != "object":
        raise InputError("expected a JSON object keyed by question id (the Truly Ground layout)", path=path)
    ids = RecordIds(path)
    for entry in json_entries(path):
        key = str(entry.key)
        if isinstance(entry.value, InputError):
            yield key, entry.value
            continue
        repeated = ids.repeat(key, entry.line, what=f"question id {key!r}", field=None)
        if repeated is not None:
            yield key, repeated
            continue
        try:
            yield key, _seed_example(path, key, entry.value, entry.line)
        except InputError as error:
            yield key, error


def load_seed_dataset(path: str | Path, metadata_path: str | Path | None = None) -> GroundDataset:
    """Read a Truly Ground layout file (and its metadata file); bad entries are reported and skipped."""
    dataset = GroundDataset(examples=[])
    keys: list[str] = []
    for key, example in seed_entries(path):
        keys.append(key)
        if isinstance(example, InputError):
            dataset.errors.append(example)
        else:
            dataset.examples.append(example)
    if metadata_path is not None:
        _attach_metadata(dataset, Path(metadata_path), keys)
    return dataset


def _seed_example(path: Path, key: str, entry: Any, line: int) -> GroundExample:
    where = f"question {key!r}"
    given = parse_located(SeedEntryInput, entry, path=path, line=line, where=where)
    if given.qId is not None and given.qId != key:
        raise InputError(f"{where}: qId {given.qId!r} differs from its key", path=path, line=line, field="qId")
    return GroundExample(
        id=key,
        question=given.qText,
        contexts=given.context_list,
        gold_facts=given.atomic_texts,
        answer=given.answer,
    )


def _attach_metadata(dataset: GroundDataset, path: Path, data_ids: Collection[str]) -> None:
    metadata = Metadata(path)
    try:
        dataset.errors.extend(metadata.errors)
        for example in dataset.examples:
            problem = metadata.apply(example.id, example.metadata)
            if problem is not None:
                dataset.errors.append(problem)
        dataset.warnings.extend(metadata.warnings(data_ids))
    finally:
        metadata.close()


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
    for example in generic_examples(path):
        if isinstance(example, InputError):
            dataset.errors.append(example)
        else:
            dataset.examples.append(example)
    return dataset


def generic_examples(path: Path) -> Iterator[GroundExample | InputError]:
    """The examples of a generic JSONL (or JSON list, Parquet or CSV) file one at a time, each bad or repeated
    record as its located error; JSONL is read a line at a time, Parquet a batch of rows at a time."""
    ids = RecordIds(path)
    for line, item in read_records(path):
        if isinstance(item, InputError):
            yield item
            continue
        try:
            example = generic_example(item, path=path, line=line)
        except InputError as error:
            yield error
            continue
        yield ids.repeat(example.id, line) or example


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
        if row is not None:
            _answer(example, row)
    missing = sorted(ids - set(responses))
    unknown = sorted(set(responses) - ids)
    dataset.warnings.extend(join_warnings(path, "response", missing, len(unknown), unknown[:SHOWN_IDS]))


def _answer(example: GroundExample, row: ResponseRow) -> None:
    """Give ``example`` the response of ``row`` (and the contexts the model saw, when the row has them)."""
    example.response = row.text
    if row.contexts:
        example.contexts = row.contexts


class ScoredExamples:
    """The examples of a dataset file that can be scored: those with a response (joined from ``responses`` by id
    when given), joined to ``metadata``. ``problems`` holds the records that did not load; ``without_response``
    the ids of those that loaded with no response (left out); ``warnings`` the reader's warnings.

    The dataset is streamed in either layout: each iteration reads it again one record at a time (a JSONL line, or
    an entry of the Truly Ground layout) and joins each record to its response and its metadata through on-disk
    indexes of those files (``ResponseIndex``, ``Metadata``), so memory holds the ids, not the records. Opening
    reads the input once, to find the problems and warnings, count the examples, gather the metadata ``fields``
    that have a value and digest the examples (``digest``, see ``factscope.core.files.manifest.DigestedItems``), so
    neither a run's preparation nor its manifest reads the file again; ``close`` removes the indexes."""

    def __init__(
        self, path: str | Path, metadata: str | Path | None = None, responses: str | Path | None = None
    ) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise InputError("file not found; check the path", path=self.path)
        self._seed = is_seed_layout(self.path)
        self._metadata: Metadata | None = None
        self._responses: ResponseIndex | None = None
        self.problems: list[InputError] = []
        self.warnings: list[str] = []
        self.without_response: list[str] = []
        self.fields: set[str] = set()
        self.digest: ItemsDigest | None = None
        self._count = 0
        try:
            self._metadata = Metadata(metadata) if metadata is not None else None
            self._responses = ResponseIndex(responses) if responses is not None else None
            self._survey(responses)
        except BaseException:
            self.close()
            raise

    def _survey(self, responses: str | Path | None) -> None:
        if self._metadata is not None:
            self.problems.extend(self._metadata.errors)
        data_ids: set[str] = set()
        digest = ItemsDigest()
        for question, example in self._loaded():
            if question is not None:
                data_ids.add(question)
            if isinstance(example, InputError):
                self.problems.append(example)
            elif example.response is None:
                self.without_response.append(example.id)
            else:
                self._count += 1
                self.fields.update(name for name, value in example.metadata.items() if value is not None)
                digest.add(example)
        self.digest = digest
        if self._metadata is not None:
            self.warnings.extend(self._metadata.warnings(data_ids))
        if self._responses is not None and responses is not None:
            self.problems.extend(self._responses.errors)
            self._responses.mark_matched(data_ids)
            unknown, shown = self._responses.unmatched(SHOWN_IDS)
            self.warnings.extend(join_warnings(responses, "response", sorted(self.without_response), unknown, shown))

    def _records(self) -> Iterator[tuple[str | None, GroundExample | InputError]]:
        """(question id, example) of each record of the file; the id is None for a generic record that did not
        load (an entry of the Truly Ground layout has its key)."""
        if self._seed:
            yield from seed_entries(self.path)
            return
        for example in generic_examples(self.path):
            yield (example.id if isinstance(example, GroundExample) else None), example

    def _loaded(self) -> Iterator[tuple[str | None, GroundExample | InputError]]:
        """Every record of the file with its metadata and response joined, and each record's error."""
        for question, example in self._records():
            if isinstance(example, GroundExample):
                if self._metadata is not None:
                    problem = self._metadata.apply(example.id, example.metadata)
                    if problem is not None:
                        yield question, problem
                if self._responses is not None:
                    row = self._responses.get(example.id)
                    if row is not None:
                        _answer(example, row)
            yield question, example

    def __iter__(self) -> Iterator[GroundExample]:
        self.digest = None
        digest = ItemsDigest()
        for _, example in self._loaded():
            if isinstance(example, GroundExample) and example.response is not None:
                digest.add(example)
                yield example
        self.digest = digest

    def __len__(self) -> int:
        return self._count

    def close(self) -> None:
        """Remove the responses and metadata indexes."""
        if self._responses is not None:
            self._responses.close()
        if self._metadata is not None:
            self._metadata.close()
