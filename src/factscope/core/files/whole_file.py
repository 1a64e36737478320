"""A file whose every record is bad for one reason is one problem, not N: readers report it as a single error.

Readers skip a bad record and go on, so one broken line never sinks a run. But when no record of a file can be
used and all of them fail the same way (the same field, the same message apart from numbers: a file of another
kind, a column every row lacks), printing one skip line per record hides the cause; ``whole_file_error`` turns
that case into one error that names the file, how many records failed and why.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TypeVar

from factscope.core.errors import InputError

_NUMBER = re.compile(r"\d+")


def _reason_key(problem: InputError) -> tuple[str | None, str]:
    """What a problem says, with its numbers (item indexes, columns) left out."""
    field = _NUMBER.sub("#", problem.field) if problem.field is not None else None
    return field, _NUMBER.sub("#", problem.reason)


def whole_file_error(path: str | Path, problems: Sequence[InputError], usable: int) -> InputError | None:
    """One error for the whole file when no record is usable and every problem has the same field and message
    (numbers aside); None otherwise (the problems are then reported one by one)."""
    if usable or not problems or len({_reason_key(problem) for problem in problems}) != 1:
        return None
    first = problems[0]
    where = f" (first at line {first.line})" if first.line is not None else ""
    field = f"field '{first.field}': " if first.field else ""
    if len(problems) == 1:
        return InputError(f"its only record cannot be used: {field}{first.reason}{where}", path=path)
    return InputError(
        f"none of its {len(problems)} records can be used: each fails with {field}{first.reason}{where}",
        path=path,
    )


Record = TypeVar("Record")


def usable_records(
    path: str | Path, read: Iterable[tuple[int | None, Record | InputError]]
) -> tuple[list[Record], list[InputError]]:
    """The records a reader yields and the problems of those it skipped; raises ``whole_file_error``'s error when
    no record is usable and all fail for one reason."""
    records: list[Record] = []
    problems: list[InputError] = []
    for _line, item in read:
        if isinstance(item, InputError):
            problems.append(item)
        else:
            records.append(item)
    whole = whole_file_error(path, problems, len(records))
    if whole is not None:
        raise whole
    return records, problems
