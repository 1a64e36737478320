"""The one rule for an id that repeats within an input file: the first record with an id is read, each later one
is skipped with a located error that names the line of the first.

Every reader of records with ids applies it (check and agree inputs, grounding datasets and responses, KaLMA
questions, answers and seeds, CONNER knowledge records). Skipping, rather than renaming the later record
(``q1#2``), is what keeps results files safe to resume and to join: a results file is keyed by id, and a renamed
id depends on the order of the file, so a record inserted above it on a later run would shift which record
``q1#2`` means and resume into the wrong row; renamed ids also match nothing in the files joined by id
(responses, metadata, human ratings). A skipped record is reported, so the user gives it an id of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeVar

from factscope.core.errors import InputError

Place = TypeVar("Place")
Item = TypeVar("Item")


class RecordIds:
    """The ids of one file seen so far, with where each was first used."""

    def __init__(self, path: str | Path) -> None:
        self.path = path
        self._first: dict[str, int | None] = {}

    def repeat(
        self, record_id: str, line: int | None, *, what: str | None = None, field: str | None = "id"
    ) -> InputError | None:
        """None the first time ``record_id`` is seen (it is then recorded); else the located error of a repeat.

        ``what`` names the id in the message (default ``id 'q1'``): readers that derive an id say how.
        """
        if record_id not in self._first:
            self._first[record_id] = line
            return None
        return repeated_id(self.path, record_id, line, self._first[record_id], what=what, field=field)


def repeated_id(
    path: str | Path,
    record_id: str,
    line: int | None,
    first: int | None,
    *,
    what: str | None = None,
    field: str | None = "id",
) -> InputError:
    """The located error of a record at ``line`` whose id was first used at line ``first`` (None: unknown); for
    readers that keep their ids elsewhere than in a ``RecordIds`` (an on-disk index)."""
    earlier = f"line {first}" if first is not None else "an earlier record"
    return InputError(
        f"{what or f'id {record_id!r}'} is already used by {earlier}; only the first record with an id is read, "
        "so this one is skipped: give it an id of its own",
        path=path,
        line=line,
        field=field,
    )


def first_of_each_id(
    path: str | Path, items: Iterable[tuple[Place, Item | InputError]], key: Callable[[Item], str]
) -> Iterator[tuple[Place, Item | InputError]]:
    """``items`` of a reader that yields (line, record or error), with each record whose ``key`` repeats an earlier
    one's replaced by its error (see ``RecordIds``)."""
    ids = RecordIds(path)
    for place, item in items:
        if isinstance(item, InputError):
            yield place, item
            continue
        line = place if isinstance(place, int) else None
        repeated = ids.repeat(key(item), line)
        yield place, repeated if repeated is not None else item


def repeated_keys(path: str | Path, keys: Iterable[str], *, what: str = "question id") -> list[InputError]:
    """The errors of the keys that a JSON object keyed by id repeats (see ``factscope.core.files.input_files.parse_keyed_document``,
    which keeps each key's first entry)."""
    return [
        InputError(
            f"{what} {key!r} appears more than once; only its first entry is read, so a later one is skipped: give "
            "it an id of its own",
            path=path,
        )
        for key in dict.fromkeys(keys)
    ]
