"""Disk and permission faults met while writing: the user's to fix, not a bug in factscope.

A write fails when the disk is full (ENOSPC), a quota is used up (EDQUOT), the file system is read-only (EROFS),
the file may not be written (EACCES, EPERM), it would pass the largest file size allowed (EFBIG), or its folder
was removed (ENOENT, ESTALE). ``storage_fault`` turns the OSError of a write into a ``StorageError`` that names
the file, what was being written, what the file still holds and what to do; ``sqlite_fault`` does the same for
the errors SQLite reports for those causes (the LLM cache, the server's job store).
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

from factscope.core.errors import FactscopeError

CAUSES: dict[int, tuple[str, str]] = {
    errno.ENOSPC: ("the disk is full", "free some space on that disk (or move the file to one with room)"),
    errno.EDQUOT: ("the disk quota is used up", "free some of your quota (or move the file to another disk)"),
    errno.EROFS: ("the file system is read-only", "write to a file system that can be written"),
    errno.EACCES: ("permission denied", "make the file and its folder writable, or write somewhere else"),
    errno.EPERM: ("the operation is not permitted", "make the file and its folder writable, or write somewhere else"),
    errno.EFBIG: ("the file would pass the largest size allowed", (
        "raise the file size limit (ulimit -f) or write to a file system that allows larger files")),
    errno.ENOENT: ("its folder was removed", "make the folder again (or write somewhere else)"),
    errno.ESTALE: ("its folder was removed (a stale network file handle)", "make the folder again"),
    errno.EIO: ("the disk reported an input/output error", "check the disk"),
}
"""What each storage errno means for the user, and what they can do about it."""

STORAGE_ERRNOS = frozenset(CAUSES) - {errno.ENOENT, errno.EIO}
"""The errnos that always mean a fault of the disk or of permissions, wherever they come from (ENOENT and EIO
also come from reads, so only the writers that expect them report them)."""

SQLITE_CAUSES: dict[int, int] = {
    sqlite3.SQLITE_FULL: errno.ENOSPC,
    sqlite3.SQLITE_READONLY: errno.EROFS,
    sqlite3.SQLITE_PERM: errno.EACCES,
    sqlite3.SQLITE_CANTOPEN: errno.EACCES,
    sqlite3.SQLITE_IOERR: errno.EIO,
}
"""SQLite's result codes for storage faults, as the errno each stands for."""


class StorageError(FactscopeError):
    """A write failed for a reason of the disk or of permissions; the message names the file, what was being
    written, what is intact and what to do. ``errno`` is the OS error number."""

    def __init__(self, path: str | Path, errno_: int, doing: str, *, detail: str = "", kept: str = "") -> None:
        self.path = str(path)
        self.errno = errno_
        cause, remedy = CAUSES.get(errno_, ("the write failed", "check the disk and the file's permissions"))
        code = errno.errorcode.get(errno_, str(errno_))
        said = f"{detail}, " if detail else ""
        parts = [f"{self.path}: {cause} ({said}{code}) while {doing}"]
        if kept:
            parts.append(kept)
        parts.append(remedy[:1].upper() + remedy[1:])
        super().__init__(". ".join(parts))


def storage_fault(error: OSError, path: str | Path, doing: str, *, kept: str = "") -> StorageError:
    """The ``StorageError`` of an OSError met while ``doing`` (a phrase: 'writing the row of record r7') on the
    file ``path``; ``kept`` says what is intact and how to go on (it ends the message)."""
    number = error.errno if error.errno is not None else errno.EIO
    return StorageError(path, number, doing, detail=error.strerror or str(error), kept=kept)


def sqlite_fault(error: sqlite3.Error, path: str | Path, doing: str, *, kept: str = "") -> StorageError | None:
    """The ``StorageError`` of a SQLite error that a disk or permission fault caused; None for any other."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is None:
        return None
    primary = code & 0xFF
    if primary not in SQLITE_CAUSES:
        return None
    return StorageError(path, SQLITE_CAUSES[primary], doing, detail=str(error), kept=kept)
