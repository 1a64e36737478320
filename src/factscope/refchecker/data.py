"""Input records of the check task: validation with located errors, stable ids."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from factscope.core.errors import InputError
from factscope.core.io import read_json_records
from factscope.core.schema import Record

SETTINGS = {"zero", "noisy", "accurate"}
MAX_REFERENCE_CHARS = 2_000_000
"""Default cap on one record's reference text (about 500k tokens, some 2,500 segments per claim)."""


def stable_id(question: str | None, response: str, references: list[str]) -> str:
    """An id derived from the record's content, the same on every run."""
    digest = hashlib.sha1()
    for part in (question or "", response, *references):
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()[:12]


def parse_record(
    item: dict[str, Any], *, path: str | Path, line: int, max_reference_chars: int = MAX_REFERENCE_CHARS
) -> Record:
    """One check record from a JSON object: ours (``references`` or ``reference``) or RefChecker's own."""

    def fail(field: str, message: str) -> InputError:
        return InputError(message, path=path, line=line, field=field)

    response = item.get("response")
    if response is None:
        raise fail("response", "missing; every record needs the response text to check")
    if not isinstance(response, str):
        raise fail("response", f"expected a string, got {type(response).__name__}")
    question = item.get("question")
    if question is not None and not isinstance(question, str):
        raise fail("question", f"expected a string, got {type(question).__name__}")
    references = _references(item, fail)
    size = sum(len(r) for r in references)
    if size > max_reference_chars:
        raise fail(
            "references",
            f"{size:,} characters is over the limit of {max_reference_chars:,}; "
            "raise it with --max-reference-chars or pass the relevant passages only",
        )
    setting = item.get("setting")
    if setting is not None:
        setting = str(setting).strip().lower()
        if setting not in SETTINGS:
            raise fail("setting", f"'{item.get('setting')}' is not one of zero, noisy, accurate")
    record_id = item.get("id")
    if record_id is not None and not isinstance(record_id, (str, int)):
        raise fail("id", "expected a string or a number")
    known = {"id", "question", "response", "references", "reference", "setting"}
    return Record(
        id=str(record_id) if record_id is not None else stable_id(question, response, references),
        question=question,
        response=response,
        references=references,
        setting=setting,
        metadata={key: value for key, value in item.items() if key not in known},
    )


def _references(item: dict[str, Any], fail: Any) -> list[str]:
    field = "references" if "references" in item else "reference"
    value = item.get(field)
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        passages = []
        for index, passage in enumerate(value):
            if not isinstance(passage, str):
                raise fail(f"{field}[{index}]", f"expected a string, got {type(passage).__name__}")
            if passage.strip():
                passages.append(passage)
        return passages
    raise fail(field, f"expected a string or a list of strings, got {type(value).__name__}")


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
