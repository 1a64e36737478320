"""Input records of the check task: validation with located errors, stable ids."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, model_validator

from factscope.core.errors import InputError
from factscope.core.fields import Identifier, Passages
from factscope.core.io import parse_located, read_json_records
from factscope.core.schema import Record, Setting

MAX_REFERENCE_CHARS = 2_000_000
"""Default cap on one record's reference text (about 500k tokens, some 2,500 segments per claim)."""


def stable_id(question: str | None, response: str, references: list[str]) -> str:
    """An id derived from the record's content, the same on every run."""
    digest = hashlib.sha1()
    for part in (question or "", response, *references):
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()[:12]


def _setting_words(value: Any) -> Any:
    return None if value is None else str(value).strip().lower()


class CheckInput(BaseModel):
    """One record of a check input file as written: ours (``references`` or ``reference``, one text or a list)
    or RefChecker's own; other fields are kept as the record's metadata."""

    model_config = ConfigDict(strict=True, extra="allow")

    id: Identifier | None = None
    question: str | None = None
    response: str
    references: Passages | None = None
    reference: Passages | None = None
    setting: Annotated[Setting | None, BeforeValidator(_setting_words)] = None

    @model_validator(mode="before")
    @classmethod
    def _references_win(cls, data: Any) -> Any:
        """With both spellings given, ``references`` is read and ``reference`` left alone."""
        if type(data) is dict and "references" in data and "reference" in data:
            return {key: value for key, value in data.items() if key != "reference"}
        return data

    def passages(self) -> list[str]:
        """The reference passages, blank ones dropped."""
        return self.references or self.reference or []


def parse_record(
    item: dict[str, Any], *, path: str | Path, line: int, max_reference_chars: int = MAX_REFERENCE_CHARS
) -> Record:
    """One check record from a JSON object: ours (``references`` or ``reference``) or RefChecker's own."""
    given = parse_located(CheckInput, item, path=path, line=line)
    references = given.passages()
    size = sum(len(r) for r in references)
    if size > max_reference_chars:
        raise InputError(
            f"{size:,} characters is over the limit of {max_reference_chars:,}; "
            "raise it with --max-reference-chars or pass the relevant passages only",
            path=path,
            line=line,
            field="references",
        )
    return Record(
        id=given.id if given.id is not None else stable_id(given.question, given.response, references),
        question=given.question,
        response=given.response,
        references=references,
        setting=given.setting,
        metadata=dict(given.model_extra or {}),
    )


def load_check_records(
    path: str | Path, *, max_reference_chars: int = MAX_REFERENCE_CHARS
) -> tuple[list[Record], list[InputError]]:
    """All valid records of a JSON / JSONL file and the errors of the bad ones (reported, not fatal).

    Records without an id get a content hash; a repeated id gets a '#2', '#3' suffix.
    """
    records: list[Record] = []
    problems: list[InputError] = []
    seen: dict[str, int] = {}
    for line, item in read_json_records(path):
        if isinstance(item, InputError):
            problems.append(item)
            continue
        try:
            record = parse_record(item, path=path, line=line, max_reference_chars=max_reference_chars)
        except InputError as error:
            problems.append(error)
            continue
        count = seen.get(record.id, 0) + 1
        seen[record.id] = count
        if count > 1:
            record = record.model_copy(update={"id": f"{record.id}#{count}"})
        records.append(record)
    return records, problems
