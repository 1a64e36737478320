"""Writing the results file: the append-only, resumable ``ResultWriter`` a run writes its rows with, and
``drop_rows``, which rewrites the file without the rows a rerun retries. Reading it back is ``factscope.core.runs.results``."""

from __future__ import annotations

import errno
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel

from factscope.core.files.storage_faults import StorageError, storage_fault


def drop_rows(path: str | Path, drop: Callable[[dict[str, Any]], bool]) -> int:
    """Rewrite the JSONL results file ``path`` without the rows ``drop`` picks; return how many were dropped.

    The file is read a line at a time into a temporary file beside ``path`` that then replaces it
    (``os.replace``), so a run killed meanwhile leaves either the old file or the new one, never a mix. A last line
    torn by a killed run is cut, as ``ResultWriter`` cuts it; a complete line that is not a JSON object is kept as
    it is.
    """
    path = Path(path)
    if not path.exists():
        return 0
    dropped = 0
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise storage_fault(error, path, "making a copy of the results file without its failed rows",
                            kept="The results file is unchanged") from error
    try:
        with os.fdopen(handle, "wb") as out, path.open("rb") as source:
            for raw in source:
                if not raw.endswith(b"\n"):
                    break
                try:
                    row = json.loads(raw) if raw.strip() else None
                except (json.JSONDecodeError, UnicodeDecodeError):
                    row = None
                if isinstance(row, dict) and drop(row):
                    dropped += 1
                else:
                    out.write(raw)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise storage_fault(error, path, "making a copy of the results file without its failed rows",
                            kept="The results file is unchanged") from error
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return dropped


class ResultWriter:
    """Append-only JSONL results keyed by record id: each result is written to the file as soon as it is made,
    and a rerun skips the keys already present, so an interrupted run resumes without duplicates.

    Opening reads the existing file a line at a time, keeping only the keys; ``seen`` (when given) receives each
    of its rows once, the first row of each key (the row every reader keeps, see ``factscope.core.runs.results.FirstRows``),
    so a run can count them into its summary as it goes; ``repeated`` counts the later rows of a key already read.

    A write the disk refuses (full, read-only, over quota, not permitted) raises ``StorageError`` naming the file,
    the record and the rows that are intact; so does a results file removed while the run writes it (its folder
    deleted, say), checked before each row so that no row is written into a file no one can read.
    """

    def __init__(
        self, path: str | Path, key: str = "id", seen: Callable[[dict[str, Any]], None] | None = None
    ) -> None:
        self.path = Path(path)
        self.key = key
        self.done: set[str] = set()
        self.repeated = 0
        self.written = 0
        if self.path.is_file():
            self._load_done(seen)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = self.path.open("ab", buffering=0)
        except OSError as error:
            raise storage_fault(error, self.path, "opening the results file to write", kept=self._kept()) from error
        self._identity = _identity(os.fstat(self._handle.fileno()))

    def _load_done(self, seen: Callable[[dict[str, Any]], None] | None) -> None:
        complete = 0
        with self.path.open("rb") as handle:
            for raw in handle:
                if not raw.endswith(b"\n"):
                    break
                complete += len(raw)
                try:
                    row = json.loads(raw) if raw.strip() else None
                except (json.JSONDecodeError, UnicodeDecodeError):
                    continue
                if not isinstance(row, dict) or self.key not in row:
                    continue
                key = str(row[self.key])
                if key in self.done:
                    self.repeated += 1
                    continue
                self.done.add(key)
                if seen is not None:
                    seen(row)
        if complete < self.path.stat().st_size:
            self._drop_torn_tail(complete)

    def _drop_torn_tail(self, keep_bytes: int) -> None:
        """Cut a last line left half-written by a killed run."""
        try:
            with self.path.open("r+b") as handle:
                handle.truncate(keep_bytes)
        except OSError as error:
            raise storage_fault(error, self.path, "cutting the torn last line a stopped run left",
                                kept=self._kept()) from error

    def write(self, result: BaseModel | dict[str, Any]) -> bool:
        """Append one result and hand it to the operating system; a key already written is ignored (False)."""
        row = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
        key = str(row[self.key])
        if key in self.done:
            return False
        doing = f"writing the row of record {key!r}"
        self._require_file(doing)
        data = (json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            while data:
                sent = self._handle.write(data)
                data = data[sent or 0:]
        except OSError as error:
            raise storage_fault(error, self.path, doing, kept=self._kept()) from error
        self.done.add(key)
        self.written += 1
        return True

    def _require_file(self, doing: str) -> None:
        """A StorageError when the results file is no longer at its path (removed, or its folder removed)."""
        try:
            present = _identity(os.stat(self.path)) == self._identity
        except OSError:
            present = False
        if not present:
            raise StorageError(
                self.path, errno.ENOENT, doing, detail="the results file was removed while this run wrote it",
                kept=f"Its {self.written} rows written by this run went with it; run the same command again to "
                     "write them again",
            )

    def _kept(self) -> str:
        """What the results file holds and how to go on, for a StorageError's message."""
        return (
            f"The file keeps its {len(self.done)} complete rows ({self.written} written by this run); a torn last "
            "line is cut when the run resumes. Run the same command again to resume after them"
        )

    def close(self) -> None:
        """Close the file."""
        self._handle.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _identity(status: os.stat_result) -> tuple[int, int]:
    """The device and inode of a file: whether a path still names the file that was opened."""
    return status.st_dev, status.st_ino
