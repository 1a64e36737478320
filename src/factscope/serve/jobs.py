"""Jobs: an input file run by one system in the background, kept in SQLite next to its results file.

A job's input is saved in the data folder under a sanitised name; it runs on a background thread through the
system's ``run_file`` (the same run loop as the command line), its rows going to its own results file. The run
loop's progress events update the job's row (done, total, records per second). Because the run loop resumes a
results file whose manifest matches, a server restarted after a crash or a stop runs its unfinished jobs again
and each finishes with every record exactly once.

Several servers may share one data folder: a server runs a job only under a **lease**, a row of the jobs table
naming it as the job's owner until a time a few seconds ahead, which it renews (its heartbeat) while the job
runs. Taking a lease is one conditional UPDATE, so of two servers only one gets it; a server that crashed stops
renewing, and once its lease has expired another server takes the job and resumes it from its results file.
The run loop also locks each results file (``factscope.core.files.results_lock``), so even a job taken twice would
not write its records twice.

A disk or permission fault of the data folder (full, read-only) is a ``StorageError``: a job whose results file
cannot be written fails with the located message (its rows are kept), and one the job store cannot record is
left as it is and tried again later, the runner going on with the next.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from factscope.core.errors import FactscopeError, InputError
from factscope.core.files.results_lock import ResultsLocked
from factscope.core.files.storage_faults import StorageError, sqlite_fault, storage_fault
from factscope.core.runs.loop import ProgressEvent
from factscope.core.runs.results import FirstRows, iter_json_rows
from factscope.serve.batching import FairLock
from factscope.serve.security import inside, safe_name
from factscope.serve.systems import ServedSystem

log = logging.getLogger("factscope.serve")

JobStatus = Literal["queued", "running", "done", "failed", "cancelled"]
FINISHED: tuple[JobStatus, ...] = ("done", "failed", "cancelled")

SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    system TEXT NOT NULL,
    input_name TEXT NOT NULL,
    input_path TEXT NOT NULL,
    results_path TEXT NOT NULL,
    status TEXT NOT NULL,
    records INTEGER,
    done INTEGER NOT NULL DEFAULT 0,
    skipped INTEGER NOT NULL DEFAULT 0,
    problems TEXT NOT NULL DEFAULT '[]',
    rate REAL,
    error TEXT,
    created REAL NOT NULL,
    started REAL,
    updated REAL,
    finished REAL,
    owner TEXT,
    lease_until REAL,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    options TEXT NOT NULL DEFAULT '{}'
)
"""

ADDED_COLUMNS = {
    "owner": "TEXT", "lease_until": "REAL", "cancel_requested": "INTEGER NOT NULL DEFAULT 0",
    "options": "TEXT NOT NULL DEFAULT '{}'",
}
"""Columns a jobs table made before leases or job options lacks; added when the store opens it."""

WAL_WAIT_SECONDS = 30.0
"""How long a starting server tries to put the jobs database in WAL mode while another one holds its lock."""

PROBLEMS_KEPT = 20
"""Skipped-record messages kept per job (the count covers all)."""


class Job(BaseModel):
    """A job as the API shows it."""

    id: str
    system: str
    input_name: str
    status: JobStatus
    records: int | None = None
    """Records the job runs (known once its file is read)."""
    done: int = 0
    """Records in the results file so far (resumed ones included)."""
    skipped: int = 0
    problems: list[str] = []
    rate: float | None = None
    """Records per second of the current or last run."""
    error: str | None = None
    created: float
    started: float | None = None
    updated: float | None = None
    finished: float | None = None
    options: dict[str, Any] = {}
    """The spec options the job was submitted with (the server's settings for the rest)."""

    @property
    def progress(self) -> float | None:
        """Share of the records done (None while the total is unknown)."""
        if not self.records:
            return 1.0 if self.status == "done" else None
        return min(1.0, self.done / self.records)

    @property
    def eta_seconds(self) -> float | None:
        """Seconds left at the current rate."""
        if self.records is None or not self.rate or self.status != "running":
            return None
        return max(0.0, (self.records - self.done) / self.rate)


class JobStore:
    """The jobs table of ``data_dir/jobs.sqlite3`` and the job files under ``data_dir``."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir.resolve()
        self.inputs = self.data_dir / "inputs"
        self.results = self.data_dir / "results"
        for folder in (self.inputs, self.results):
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise storage_fault(error, folder, "making the server's data folder") from error
        self._path = self.data_dir / "jobs.sqlite3"
        self._lock = threading.Lock()
        self._use_wal()
        with self._connect() as connection:
            connection.execute(SCHEMA)
            present = {row["name"] for row in connection.execute("PRAGMA table_info(jobs)")}
            for name, kind in ADDED_COLUMNS.items():
                if name not in present:
                    connection.execute(f"ALTER TABLE jobs ADD COLUMN {name} {kind}")

    def _use_wal(self) -> None:
        """Put the jobs database in WAL mode (kept in the file, so only the first server changes it). Two servers
        that start at once on one data folder may each hold the lock the other's change needs; SQLite then answers
        one of them 'database is locked' at once, without waiting, so the change is tried again for up to
        ``WAL_WAIT_SECONDS``."""
        deadline = time.monotonic() + WAL_WAIT_SECONDS
        while True:
            try:
                with self._connect() as connection:
                    if connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                        connection.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection to the jobs table, in one transaction; a disk or permission fault is a StorageError."""
        try:
            connection = sqlite3.connect(self._path, timeout=30)
        except sqlite3.Error as error:
            raise self._fault(error) from error
        connection.row_factory = sqlite3.Row
        try:
            with connection:
                yield connection
        except sqlite3.Error as error:
            raise self._fault(error) from error
        finally:
            connection.close()

    def _fault(self, error: sqlite3.Error) -> Exception:
        """The StorageError of a SQLite error a disk or permission fault caused, else the error itself."""
        fault = sqlite_fault(error, self._path, "recording a job in the server's job store", kept=(
            "The jobs and results already recorded are kept; free space in the data folder (or make it "
            "writable) and the server goes on"))
        return error if fault is None else fault

    def create(self, system: str, input_name: str, upload: Path, options: Mapping[str, Any] | None = None) -> Job:
        """A queued job for ``system`` whose input is the file ``upload`` (see ``factscope.serve.uploads``), moved
        into ``inputs/`` under a sanitised ``input_name``, to run with the spec ``options`` given (JSON values)."""
        job_id = uuid.uuid4().hex[:16]
        name = safe_name(input_name)
        input_path = inside(self.inputs, f"{job_id}-{name}")
        try:
            os.replace(upload, input_path)
        except OSError as error:
            upload.unlink(missing_ok=True)
            raise storage_fault(error, input_path, "keeping an uploaded input file", kept="No job was queued") \
                from error
        results_path = inside(self.results, f"{job_id}.jsonl")
        now = time.time()
        try:
            with self._lock, self._connect() as connection:
                connection.execute(
                    "INSERT INTO jobs (id, system, input_name, input_path, results_path, status, created, options) "
                    "VALUES (?, ?, ?, ?, ?, 'queued', ?, ?)",
                    (job_id, system, name, str(input_path), str(results_path), now, json.dumps(dict(options or {}))),
                )
        except BaseException:
            input_path.unlink(missing_ok=True)
            raise
        return self.get(job_id)

    def get(self, job_id: str) -> Job:
        """The job ``job_id``; KeyError when there is none."""
        with self._connect() as connection:
            row = connection.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None:
            raise KeyError(job_id)
        return _job(row)

    def recent(self, limit: int = 100) -> list[Job]:
        """The newest jobs first."""
        with self._connect() as connection:
            rows = connection.execute("SELECT * FROM jobs ORDER BY created DESC LIMIT ?", (limit,)).fetchall()
        return [_job(row) for row in rows]

    def claimable(self) -> list[str]:
        """Ids of the jobs queued or running that no server holds a live lease on, oldest first."""
        with self._connect() as connection:
            rows = connection.execute(
                "SELECT id FROM jobs WHERE status IN ('queued', 'running') "
                "AND (lease_until IS NULL OR lease_until < ?) ORDER BY created",
                (time.time(),),
            ).fetchall()
        return [row["id"] for row in rows]

    def claim(self, job_id: str, owner: str, seconds: float) -> bool:
        """Take the lease of an unfinished job for ``seconds`` unless another server holds a live one; whether
        ``owner`` now holds it."""
        now = time.time()
        with self._lock, self._connect() as connection:
            taken = connection.execute(
                "UPDATE jobs SET owner = ?, lease_until = ? WHERE id = ? AND status IN ('queued', 'running') "
                "AND (lease_until IS NULL OR lease_until < ? OR owner = ?)",
                (owner, now + seconds, job_id, now, owner),
            ).rowcount
        return taken == 1

    def renew(self, job_id: str, owner: str, seconds: float) -> tuple[bool, bool]:
        """Extend ``owner``'s lease of a job by ``seconds`` from now: whether it still held it, and whether a
        cancellation was asked for (on any server)."""
        with self._lock, self._connect() as connection:
            held = connection.execute(
                "UPDATE jobs SET lease_until = ? WHERE id = ? AND owner = ?", (time.time() + seconds, job_id, owner)
            ).rowcount
            row = connection.execute("SELECT cancel_requested FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return held == 1, bool(row is not None and row["cancel_requested"])

    def release(self, job_id: str, owner: str) -> None:
        """Give up ``owner``'s lease of a job (another server may take it at once if it is unfinished)."""
        with self._lock, self._connect() as connection:
            connection.execute("UPDATE jobs SET owner = NULL, lease_until = NULL WHERE id = ? AND owner = ?",
                               (job_id, owner))

    def update(self, job_id: str, **fields: Any) -> None:
        """Set some columns of a job's row."""
        if "problems" in fields:
            fields["problems"] = json.dumps(fields["problems"])
        fields["updated"] = time.time()
        assignments = ", ".join(f"{name} = ?" for name in fields)
        with self._lock, self._connect() as connection:
            connection.execute(f"UPDATE jobs SET {assignments} WHERE id = ?", (*fields.values(), job_id))

    def paths(self, job_id: str) -> tuple[Path, Path]:
        """The input file and the results file of a job, each checked to lie in the data folder."""
        with self._connect() as connection:
            row = connection.execute("SELECT input_path, results_path FROM jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None:
            raise KeyError(job_id)
        return (inside(self.inputs, Path(row["input_path"]).name),
                inside(self.results, Path(row["results_path"]).name))


def _job(row: sqlite3.Row) -> Job:
    data = dict(row)
    data["problems"] = json.loads(data["problems"])
    data["options"] = json.loads(data["options"])
    for internal in ("input_path", "results_path", "owner", "lease_until", "cancel_requested"):
        data.pop(internal)
    return Job.model_validate(data)


class JobCancelled(Exception):
    """Raised between batches of a job whose cancellation was asked for."""


class JobStopped(Exception):
    """Raised between batches of a job when the server stops; the job stays unfinished and is resumed later."""


class JobRunner:
    """Runs jobs one after another on a background thread, batch by batch under the model lock, each under its
    lease (see the module's description): it takes the oldest unfinished job no live lease holds, renews the lease
    every third of ``lease_seconds`` while the job runs, and gives it up when the job ends or the server stops."""

    def __init__(self, store: JobStore, systems: Mapping[str, ServedSystem[Any, Any]], lock: FairLock, *,
                 batch_size: int = 16, write_every: float = 0.5, lease_seconds: float = 30.0) -> None:
        self.store = store
        self.systems = systems
        self.lock = lock
        self.batch_size = batch_size
        self.write_every = write_every
        self.lease_seconds = lease_seconds
        self.owner = uuid.uuid4().hex
        """This server's name in the leases it holds."""
        self._wake = threading.Event()
        self._cancelled: set[str] = set()
        self._lost: set[str] = set()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the background thread; it runs the jobs left unfinished by a stopped or crashed server too."""
        self._thread = threading.Thread(target=self._work, name="factscope-jobs", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread after the current batch of the job in hand, which stays unfinished and whose lease is
        given up (the next start, or another server, resumes it)."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def submit(self, job: Job) -> None:
        """Tell the thread that a job was created in the store."""
        self._wake.set()

    def cancel(self, job_id: str) -> Job:
        """Cancel a queued job now, a running one after its current batch (on whichever server runs it); a
        finished one stays as it is."""
        job = self.store.get(job_id)
        if job.status in FINISHED:
            return job
        self._cancelled.add(job_id)
        self.store.update(job_id, cancel_requested=1)
        if job.status == "queued":
            self.store.update(job_id, status="cancelled", finished=time.time())
        return self.store.get(job_id)

    def interruption(self, job_id: str) -> Exception | None:
        """What stops a running job at its next batch: its lease lost, its cancellation, or the server
        stopping."""
        if job_id in self._lost or self._stopping.is_set():
            return JobStopped(job_id)
        if job_id in self._cancelled:
            return JobCancelled(job_id)
        return None

    def _work(self) -> None:
        poll = min(self.lease_seconds / 2, 5.0)
        while not self._stopping.is_set():
            self._wake.clear()
            try:
                for job_id in self.store.claimable():
                    if self._stopping.is_set():
                        return
                    if self.store.claim(job_id, self.owner, self.lease_seconds):
                        self.run(job_id)
            except StorageError as fault:  # the job store cannot be written: wait, then try again
                log.error("jobs paused: %s", fault)
            self._wake.wait(poll)

    def run(self, job_id: str) -> None:
        """Run one job, whose lease this runner holds, to its end (done, failed or cancelled) or until it is
        stopped, in the calling thread; the lease is renewed meanwhile and given up at the end."""
        heartbeat = threading.Event()
        beating = threading.Thread(target=self._beat, args=(job_id, heartbeat), name="factscope-lease", daemon=True)
        beating.start()
        try:
            if self.store.get(job_id).status not in FINISHED:
                self._run(job_id)
        finally:
            heartbeat.set()
            beating.join()
            self.store.release(job_id, self.owner)
            self._cancelled.discard(job_id)
            self._lost.discard(job_id)

    def _beat(self, job_id: str, stopped: threading.Event) -> None:
        """Renew the job's lease until ``stopped``; note a lost lease or a cancellation asked for elsewhere."""
        while not stopped.wait(self.lease_seconds / 3):
            try:
                held, cancel = self.store.renew(job_id, self.owner, self.lease_seconds)
            except StorageError as fault:
                log.error("job %s: lease not renewed: %s", job_id, fault)
                continue
            if not held:
                log.warning("job %s: lease lost to another server; stopping it here", job_id)
                self._lost.add(job_id)
            if cancel:
                self._cancelled.add(job_id)

    def _run(self, job_id: str) -> None:
        job = self.store.get(job_id)
        system = self.systems[job.system]
        input_path, results_path = self.store.paths(job_id)
        started = time.time()
        self.store.update(job_id, status="running", started=started, error=None, rate=None)
        shown = _ClientNames(job.input_name, input_path, self.store.data_dir)
        tracker = _Progress(self, job_id, started, shown)
        self.lock.acquire()
        tracker.holding = True
        try:
            system.run_file(input_path, results_path, batch_size=self.batch_size, progress=tracker.event,
                            loaded=tracker.loaded, options=job.options)
        except (JobStopped, ResultsLocked) as stopped:
            if isinstance(stopped, ResultsLocked):
                log.warning("job %s: left to the run that holds its results file: %s", job_id, stopped)
            self.store.update(job_id, done=_rows(results_path))
        except JobCancelled:
            self.store.update(job_id, status="cancelled", finished=time.time(), done=_rows(results_path))
        except FactscopeError as error:
            self.store.update(job_id, status="failed", error=shown(str(error)), finished=time.time())
        except Exception as error:  # one broken job must not stop the jobs after it
            log.exception("job %s failed", job_id)
            self.store.update(job_id, status="failed", finished=time.time(),
                              error=f"unexpected {type(error).__name__}; see the server log")
        else:
            self.store.update(job_id, status="done", finished=time.time(), done=_rows(results_path),
                              rate=tracker.rate())
        finally:
            if tracker.holding:
                self.lock.release()


class _Progress:
    """A running job's progress callback: records progress, yields the model lock between batches and stops
    the job there when it was cancelled."""

    def __init__(self, runner: JobRunner, job_id: str, started: float, shown: _ClientNames) -> None:
        self.runner = runner
        self.shown = shown
        self.job_id = job_id
        self.started = started
        self.holding = False
        self.records: int | None = None
        self.stage: str | None = None
        self.done_now = 0
        self.last_write = 0.0
        self.done = 0

    def loaded(self, records: int, problems: list[InputError]) -> None:
        self.records = records
        self.runner.store.update(self.job_id, records=records, skipped=len(problems),
                                 problems=[self.shown(str(p)) for p in problems[:PROBLEMS_KEPT]])

    def rate(self) -> float | None:
        elapsed = time.time() - self.started
        return self.done_now / elapsed if self.done_now and elapsed > 0 else None

    def event(self, event: ProgressEvent) -> None:
        if self.stage is None:
            self.stage = event.stage
        if event.stage != self.stage:
            return
        self.done_now = event.done
        if self.records is not None and event.total is not None:
            self.done = self.records - event.total + event.done
        now = time.time()
        if event.finished or now - self.last_write >= self.runner.write_every or event.done == event.total:
            self.last_write = now
            self.runner.store.update(self.job_id, done=self.done, rate=self.rate())
        if event.finished:
            return
        self.runner.lock.release()
        self.holding = False
        interruption = self.runner.interruption(self.job_id)
        if interruption is not None:
            raise interruption
        self.runner.lock.acquire()
        self.holding = True


def _rows(path: Path) -> int:
    """Records with a complete row in a results file (the first row of each id, see ``FirstRows``)."""
    if not path.exists():
        return 0
    first = FirstRows()
    return sum(1 for row in iter_json_rows(path) if first.keep(row))


@dataclass(frozen=True)
class _ClientNames:
    """A job's message as its client may read it: the input file named as the client named it, and no other path
    of the server's data folder shown."""

    input_name: str
    input_path: Path
    data_dir: Path

    def __call__(self, message: str) -> str:
        return message.replace(str(self.input_path), self.input_name).replace(str(self.data_dir) + "/", "")
