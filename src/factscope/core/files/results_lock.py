"""One writer per results file: an operating-system advisory lock (``fcntl.flock``) on a lock file beside it.

A run takes the lock of its results file ``out.jsonl`` (the file ``out.jsonl.lock``) before it reads the results
or writes anything, and holds it until it ends; a second run on the same file, in another process or in another
thread of this one, is refused with ``ResultsLocked``, which names the process that holds the lock. The lock
belongs to an open file, so the operating system drops it when that process ends, however it ends: the lock file
a killed run leaves behind blocks nothing, and the next run takes the lock and resumes. The lock file holds its
holder's pid, host, command and start time (for the refusal's message) and is removed when the run ends.

The lock is re-entrant in the thread that holds it: a command takes it while it checks its outputs, before any
model loads, and the run loop takes it again when the run starts. Locks are advisory: they stop other factscope
runs, not other programs. On a platform without ``fcntl`` (Windows) no lock is taken.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factscope.core.errors import InputError
from factscope.core.files.storage_faults import storage_fault

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

LOCK_SUFFIX = ".lock"


def lock_path(output: str | Path) -> Path:
    """The lock file of a results file (or results folder): the same name with ``.lock`` appended."""
    output = Path(output)
    return output.with_name(output.name + LOCK_SUFFIX)


class ResultsLocked(InputError):
    """Another live run is writing the results file; ``holder`` is what its lock file says of it (pid, host,
    command, started), empty when it had not written that yet."""

    def __init__(self, output: str | Path, holder: dict[str, Any], *, this_process: bool = False) -> None:
        self.holder = holder
        pid = holder.get("pid")
        who = f"pid {pid}" if pid is not None else "a process that is still starting (pid not yet written)"
        if holder.get("host") and holder.get("host") != socket.gethostname():
            who += f" on {holder['host']}"
        if this_process:
            who = f"another thread of this process ({who})"
        details = []
        if holder.get("command"):
            details.append(f"`{holder['command']}`")
        if isinstance(holder.get("started"), (int, float)):
            details.append("since " + time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(holder["started"])))
        described = f" ({', '.join(details)})" if details else ""
        super().__init__(
            f"another run is writing this results file: {who}{described}. Two runs on one file would write "
            "every record twice; wait for that run to end (or stop it), then run again to resume, or write to "
            f"another results file. Its lock is {lock_path(output).name}; a lock left by a run that was killed "
            "does not block",
            path=output,
        )


@dataclass
class _Held:
    descriptor: int
    thread: int
    depth: int


_held: dict[str, _Held] = {}
_guard = threading.Lock()


@contextmanager
def results_lock(output: str | Path) -> Iterator[None]:
    """Hold the lock of ``output`` for the block (see the module's description); ``ResultsLocked`` when another
    run holds it."""
    acquire(output)
    try:
        yield
    finally:
        release(output)


def acquire(output: str | Path) -> None:
    """Take the lock of ``output``, or take it once more in the thread that holds it; ``ResultsLocked`` when
    another run (another process, or another thread of this one) holds it. Each ``acquire`` needs a ``release``."""
    if fcntl is None:
        return
    path, key = _lock_file(output)
    with _guard:
        held = _held.get(key)
        if held is not None:
            if held.thread != threading.get_ident():
                raise ResultsLocked(output, _holder(held.descriptor), this_process=True)
            held.depth += 1
            return
        descriptor = _take(path, output)
        _held[key] = _Held(descriptor, threading.get_ident(), 1)


def release(output: str | Path) -> None:
    """Give back one ``acquire`` of ``output``'s lock; the last removes the lock file and drops the lock."""
    if fcntl is None:
        return
    path, key = _lock_file(output)
    with _guard:
        held = _held.get(key)
        if held is None:
            return
        held.depth -= 1
        if held.depth > 0:
            return
        del _held[key]
        try:
            # removed while still locked, so a run that opened this file meanwhile sees it is gone (see _take)
            path.unlink(missing_ok=True)
        except OSError:
            pass
        os.close(held.descriptor)


def _lock_file(output: str | Path) -> tuple[Path, str]:
    """The lock file of ``output`` and its real path, the key of the locks this process holds."""
    path = lock_path(output)
    return path, os.path.realpath(path)


def _take(path: Path, output: str | Path) -> int:
    """Open and lock the lock file at ``path``; its descriptor, the holder written into it."""
    while True:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise storage_fault(error, path, "creating the results file's lock") from error
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(descriptor)
            os.close(descriptor)
            raise ResultsLocked(output, holder) from None
        except OSError as error:
            os.close(descriptor)
            raise storage_fault(error, path, "locking the results file") from error
        if _same_file(path, descriptor):
            break
        # the run that held it ended and removed it between our open and our lock: take the new one
        os.close(descriptor)
    holder = {"pid": os.getpid(), "host": socket.gethostname(), "command": _command(), "started": time.time()}
    try:
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, (json.dumps(holder) + "\n").encode("utf-8"), 0)
    except OSError as error:
        os.close(descriptor)
        raise storage_fault(error, path, "writing the results file's lock") from error
    return descriptor


def _same_file(path: Path, descriptor: int) -> bool:
    """Whether ``path`` still names the file open as ``descriptor``."""
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    opened = os.fstat(descriptor)
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)


def _holder(descriptor: int) -> dict[str, Any]:
    """What a lock file says of its holder (empty when it says nothing readable yet)."""
    try:
        text = os.pread(descriptor, 4096, 0).decode("utf-8")
        holder = json.loads(text) if text.strip() else {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return holder if isinstance(holder, dict) else {}


def _command() -> str:
    """This process's command line, as a user would type it."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python"
    if name == "__main__.py":
        name = "factscope"
    return " ".join([name, *sys.argv[1:]])[:300]
