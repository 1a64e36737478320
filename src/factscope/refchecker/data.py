"""Input records of the check task: validation with located errors, stable ids."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, WithJsonSchema, model_validator

from factscope.core.errors import InputError
from factscope.core.fields import SPACES, Identifier, Passages
from factscope.core.files.error_location import parse_located
from factscope.core.files.manifest import ItemsDigest
from factscope.core.files.record_ids import RecordIds
from factscope.core.files.tables import read_records
from factscope.core.schema import ContextSetting, Record

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


def _any_case(word: str) -> str:
    """A regular expression that finds ``word`` in any case."""
    return "".join(f"[{letter.upper()}{letter}]" for letter in word)


SETTING_WORDS = "|".join(_any_case(word) for word in get_args(ContextSetting))

ContextSettingName = Annotated[
    ContextSetting | None,
    BeforeValidator(_setting_words),
    WithJsonSchema({"anyOf": [{"type": "string", "pattern": f"^{SPACES}*(?:{SETTING_WORDS}){SPACES}*$"},
                              {"type": "null"}]}),
]
"""A context setting as files write it: 'zero', 'noisy' or 'accurate', in any case, spaces trimmed."""

REFERENCE_FIELDS = ("references", "reference", "context")
"""The spellings of a record's references, in the order they are read: factscope's list, factscope's single text,
and the ``context`` of RefChecker's benchmark records (a list of passages or one text)."""


def _first_spelling_schema(schema: dict[str, Any]) -> None:
    """The JSON Schema of a record's references: a later spelling of REFERENCE_FIELDS is held to its type only
    when no earlier one is given (``CheckInput._first_spelling_wins``)."""
    properties = schema["properties"]
    later: dict[str, Any] = {}
    for name in reversed(REFERENCE_FIELDS[1:]):
        spelling = {"properties": {name: properties.pop(name)}}
        later = {"if": {"required": [name]}, "then": spelling, "else": later} if later else spelling
    schema.update({"if": {"required": [REFERENCE_FIELDS[0]]}, "else": later})


class CheckInput(BaseModel):
    """One record of a check input file as written: ours (``references`` or ``reference``, one text or a list)
    or RefChecker's own (``reference``, or ``context`` in its benchmark records); other fields are kept as the
    record's metadata. ``response`` is checked by ``parse_record``, since reference-only files may leave it out."""

    model_config = ConfigDict(strict=True, extra="allow", json_schema_extra=_first_spelling_schema)

    id: Identifier | None = None
    question: str | None = None
    response: str | None = None
    references: Passages | None = None
    reference: Passages | None = None
    context: Passages | None = None
    setting: ContextSettingName = None

    @model_validator(mode="before")
    @classmethod
    def _first_spelling_wins(cls, data: Any) -> Any:
        """With several spellings of the references given, the first of REFERENCE_FIELDS is read and the others
        left alone."""
        if type(data) is not dict:
            return data
        given = [name for name in REFERENCE_FIELDS if name in data]
        return {key: value for key, value in data.items() if key not in given[1:]}

    def passages(self) -> list[str]:
        """The reference passages, blank ones dropped."""
        return self.references or self.reference or self.context or []


class CheckRequestRecord(CheckInput):
    """A check record as a request sends it, as the server's schema shows it: with its response
    (``parse_record``)."""

    response: str


def parse_record(
    item: dict[str, Any],
    *,
    path: str | Path,
    line: int,
    max_reference_chars: int = MAX_REFERENCE_CHARS,
    require_response: bool = True,
) -> Record:
    """One check record from a JSON object: ours (``references`` or ``reference``) or RefChecker's own
    (``reference``, or a benchmark record's ``context``). Without ``require_response`` a record may leave out
    its response (it is then empty): the reference files of ``factscope agree`` need none."""
    given = parse_located(CheckInput, item, path=path, line=line)
    if given.response is None and require_response:
        hint = (
            "; RefChecker's benchmark records hold no response (its responses are in the *_answers.json files): "
            "add a 'response' field, or give these records to `factscope agree`"
            if "context" in item
            else ""
        )
        raise InputError("missing" + hint, path=path, line=line, field="response")
    references = given.passages()
    size = sum(len(r) for r in references)
    if size > max_reference_chars:
        raise InputError(
            f"{size:,} characters is over the limit of {max_reference_chars:,}; "
            "raise `max_reference_chars` or pass the relevant passages only",
            path=path,
            line=line,
            field=next(name for name in REFERENCE_FIELDS if name in item),
        )
    response = given.response or ""
    return Record(
        id=given.id if given.id is not None else stable_id(given.question, response, references),
        question=given.question,
        response=response,
        references=references,
        setting=given.setting,
        metadata=dict(given.model_extra or {}),
    )


class CheckRecords:
    """The check records of a JSON / JSONL, Parquet or CSV file (``factscope.core.files.tables``), read afresh, a line at a time for JSONL, each time they are
    iterated: a run can fingerprint them and then check them without holding them in memory.

    Records without an id get a content hash; a record whose id repeats an earlier one's is skipped with a
    located error (``factscope.core.files.record_ids``), so a record without an id identical to an earlier one is
    too. After a full pass, ``problems`` holds the errors of the bad records (reported, not fatal) and ``count``
    the good ones, and ``digest`` their digest (``factscope.core.files.manifest.DigestedItems``), so a run's manifest
    does not read the file again. ``max_reference_chars`` and ``require_response`` as in ``parse_record``.
    """

    def __init__(
        self, path: str | Path, *, max_reference_chars: int = MAX_REFERENCE_CHARS, require_response: bool = True
    ) -> None:
        self.path = Path(path)
        self.max_reference_chars = max_reference_chars
        self.require_response = require_response
        self.problems: list[InputError] = []
        self.count = 0
        self.digest: ItemsDigest | None = None

    def __iter__(self) -> Iterator[Record]:
        problems: list[InputError] = []
        count = 0
        self.digest = None
        digest = ItemsDigest()
        ids = RecordIds(self.path)
        for line, item in read_records(self.path):
            if isinstance(item, InputError):
                problems.append(item)
                continue
            try:
                record = parse_record(
                    item,
                    path=self.path,
                    line=line,
                    max_reference_chars=self.max_reference_chars,
                    require_response=self.require_response,
                )
            except InputError as error:
                problems.append(error)
                continue
            derived = "id" not in item or item["id"] is None
            what = f"its content (it has no id, so it is named {record.id!r} by its content)" if derived else None
            repeated = ids.repeat(record.id, line, what=what, field=None if derived else "id")
            if repeated is not None:
                problems.append(repeated)
                continue
            count += 1
            digest.add(record)
            yield record
        self.problems = problems
        self.count = count
        self.digest = digest


def load_check_records(
    path: str | Path, *, max_reference_chars: int = MAX_REFERENCE_CHARS, require_response: bool = True
) -> tuple[list[Record], list[InputError]]:
    """All valid records of a JSON / JSONL file in a list, and the errors of the bad ones (see ``CheckRecords``,
    which reads them without holding them)."""
    source = CheckRecords(path, max_reference_chars=max_reference_chars, require_response=require_response)
    records = list(source)
    return records, source.problems
