"""Responses files, in either of two formats told apart by content.

Rows: JSONL (or a JSON list) of ``{"id", "response"[, "contexts"]}``, e.g. the output of ``ground generate``.

Prediction files of Truly Ground's generation script: one JSON object keyed by question id,
``{"<qId>": {"input": prompt, "output": response}}``; each of ``input`` and ``output`` is a string or a list of
one string. ``input`` (the prompt the model saw) is kept but not parsed; where the output repeats it (a causal
LM echoing its prompt), it is removed from the response, as the paper's scoring script does.

Both are read one response at a time (a prediction file entry by entry, ``factscope.core.files.json_entries``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, create_model

from factscope.core.errors import InputError
from factscope.core.fields import Identifier, Passages
from factscope.core.files.error_location import json_kind, parse_located
from factscope.core.files.json_entries import document_kind, json_entries
from factscope.core.files.record_ids import RecordIds
from factscope.core.files.tables import is_table_file, read_records

ACCEPTED_FORMATS = (
    'JSONL (or a JSON list, Parquet or CSV) of {"id": ..., "response": ...} rows, or a prediction file of '
    'Truly Ground\'s generation script: one JSON object keyed by question id, {"<qId>": {"input": ..., "output": ...}}'
)
"""The responses formats, as error messages name them."""


@dataclass(frozen=True)
class ResponseRow:
    """One response: its question id, its text, maybe the contexts the model saw, maybe the prompt it was given."""

    id: str
    text: str
    contexts: list[str] | None = None
    prompt: str | None = None


class ResponseInput(BaseModel):
    """One row of a responses file: the id, the response text (under ``response`` unless told otherwise) and
    maybe the contexts the model was given."""

    model_config = ConfigDict(strict=True)

    id: Identifier
    text: str = Field(validation_alias="response")
    contexts: Passages | None = None


@cache
def response_input(field_name: str) -> type[ResponseInput]:
    """The responses-row model reading the response text from ``field_name``."""
    if field_name == "response":
        return ResponseInput
    return create_model(
        "ResponseInput", __base__=ResponseInput, text=(str, Field(validation_alias=field_name))
    )


def _one_text(value: Any) -> Any:
    if type(value) is list and len(value) == 1:
        return value[0]
    if type(value) is list:
        raise ValueError(f"expected a string or a list of one string, got a list of {len(value)}")
    return value


OneText = Annotated[str, BeforeValidator(_one_text)]
"""A string, or a list holding exactly one string (the generation script writes either)."""


class PredictionInput(BaseModel):
    """One entry of a Truly Ground prediction file, the value under its question id."""

    model_config = ConfigDict(strict=True, extra="allow")

    input: OneText | None = None
    output: OneText

    def response(self) -> str:
        """The output, without the prompt where the output repeats it."""
        if self.input:
            return self.output.replace(self.input, "")
        return self.output


def read_responses(
    path: str | Path, field_name: str = "response"
) -> tuple[list[ResponseRow], list[InputError]]:
    """The responses of a file in either format, and the located errors of entries that could not be read.

    A file in neither format (a list of strings, an object whose values are not objects, ...) raises an
    InputError naming the file and the accepted formats.
    """
    rows: list[ResponseRow] = []
    errors: list[InputError] = []
    for entry in response_entries(path, field_name):
        if isinstance(entry, InputError):
            errors.append(entry)
        else:
            rows.append(entry)
    return rows, errors


def response_entries(path: str | Path, field_name: str = "response") -> Iterator[ResponseRow | InputError]:
    """The responses of a file in either format, one at a time, each entry that could not be read as its located
    error: JSONL rows are read a line at a time, a prediction file (one JSON object) an entry at a time. A file in
    neither format raises an InputError naming the file and the accepted formats."""
    path = Path(path)
    if _holds_predictions(path, field_name):
        yield from _read_predictions(path)
        return
    yield from _read_rows(path, field_name)


def _holds_predictions(path: Path, field_name: str) -> bool:
    """Whether the file is one JSON object keyed by question id (a prediction file) rather than rows: its one object
    has no field of a row (an id, contexts, a response text), told from its entries read one at a time. JSONL, or
    broken JSON, holds rows (each line is then read, and located, on its own)."""
    if is_table_file(path) or document_kind(path) != "object":
        return False
    try:
        return not any(_is_row_field(str(entry.key), entry.value, field_name) for entry in json_entries(path))
    except InputError:
        return False


def _is_row_field(key: str, value: Any, field_name: str) -> bool:
    """Whether a key and its value belong to a row (its id, contexts or response text), not to a prediction file."""
    return key in ("id", "contexts") or (key == field_name and not isinstance(value, dict))


def _unrecognised(path: Path, holds: str) -> InputError:
    return InputError(f"not a responses file: it holds {holds}. Accepted: {ACCEPTED_FORMATS}", path=path)


def _read_predictions(path: Path) -> Iterator[ResponseRow | InputError]:
    """The entries of a prediction file read one at a time; a file whose first value is not an object is not one
    (InputError naming the formats)."""
    ids = RecordIds(path)
    first = True
    for entry in json_entries(path):
        key, value = str(entry.key), entry.value
        where = f"question {key!r}"
        if isinstance(value, InputError):
            yield value
            continue
        if first and not isinstance(value, dict):
            raise _unrecognised(path, f"an object whose values are {json_kind(value)}, not objects")
        first = False
        repeated = ids.repeat(key, entry.line, what=f"question id {key!r}", field=None)
        if repeated is not None:
            yield repeated
        elif not isinstance(value, dict):
            yield InputError(f"{where}: expected an object, got {json_kind(value)}", path=path, line=entry.line)
        else:
            try:
                given = parse_located(PredictionInput, value, path=path, line=entry.line, where=where)
            except InputError as error:
                yield error
                continue
            yield ResponseRow(id=key, text=given.response(), prompt=given.input)
    if first:
        raise _unrecognised(path, "an object whose values are nothing, not objects")


def _read_rows(path: Path, field_name: str) -> Iterator[ResponseRow | InputError]:
    objects = 0
    first_error: InputError | None = None
    row_model = response_input(field_name)
    ids = RecordIds(path)
    for line, item in read_records(path):
        if isinstance(item, InputError):
            first_error = first_error or item
            yield item
            continue
        objects += 1
        try:
            given = parse_located(row_model, item, path=path, line=line)
        except InputError as error:
            yield error
            continue
        repeated = ids.repeat(given.id, line)
        if repeated is not None:
            yield repeated
            continue
        yield ResponseRow(id=given.id, text=given.text, contexts=given.contexts)
    if not objects:
        first = f" (first: {first_error.reason})" if first_error else ""
        raise _unrecognised(path, f"no record object{first}")
