"""Jobs: an input file run by one system in the background, kept in SQLite next to its results file.

A job's input is saved in the data folder under a sanitised name; it runs on a background thread through the
system's ``run_file`` (the same run loop as the command line), its rows going to its own results file. The run
loop's progress events update the job's row (done, total, records per second). Because the run loop resumes a
results file whose manifest matches, a server restarted after a crash or a stop runs its unfinished jobs again
and each finishes with every record exactly once.
"""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from factscope.core.errors import FactscopeError, InputError
from factscope.core.run import ProgressEvent
from factscope.serve.batching import FairLock
from factscope.serve.security import inside, safe_name
from factscope.serve.systems import System

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
    finished REAL
)
"""

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
            folder.mkdir(parents=True, exist_ok=True)
        self._path = self.data_dir / "jobs.sqlite3"
        self._lock = threading.Lock()
        with self._connect() as connection:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute(SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        connection = sqlite3.connect(self._path, timeout=30)
        connection.row_factory = sqlite3.Row
        try:
            with connection:
                yield connection
        finally:
            connection.close()

    def create(self, system: str, input_name: str, content: Iterator[bytes]) -> Job:
        """A queued job for ``system`` whose input is ``content``, saved under a sanitised ``input_name``."""
        job_id = uuid.uuid4().hex[:16]
        name = safe_name(input_name)
        input_path = inside(self.inputs, f"{job_id}-{name}")
        with input_path.open("wb") as handle:
            for chunk in content:
                handle.write(chunk)
        results_path = inside(self.results, f"{job_id}.jsonl")
        now = time.time()
        with self._lock, self._connect() as connection:
            connection.execute(
                "INSERT INTO jobs (id, system, input_name, input_path, results_path, status, created) "
                "VALUES (?, ?, ?, ?, ?, 'queued', ?)",
                (job_id, system, name, str(input_path), str(results_path), now),
            )
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

    def unfinished(self) -> list[str]:
        """Ids of the jobs queued or running, oldest first (a restarted server runs them again)."""
        with self._connect() as connection:
            rows = connection.execute(
                "SELECT id FROM jobs WHERE status IN ('queued', 'running') ORDER BY created"
            ).fetchall()
        return [row["id"] for row in rows]

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
    data.pop("input_path")
    data.pop("results_path")
    return Job.model_validate(data)


class JobCancelled(Exception):
    """Raised between batches of a job whose cancellation was asked for."""


class JobStopped(Exception):
    """Raised between batches of a job when the server stops; the job stays unfinished and is resumed later."""


class JobRunner:
    """Runs queued jobs one after another on a background thread, batch by batch under the model lock."""

    def __init__(self, store: JobStore, systems: Mapping[str, System[Any, Any]], lock: FairLock, *,
                 batch_size: int = 16, write_every: float = 0.5) -> None:
        self.store = store
        self.systems = systems
        self.lock = lock
        self.batch_size = batch_size
        self.write_every = write_every
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._cancelled: set[str] = set()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the background thread and queue the jobs left unfinished by an earlier server."""
        for job_id in self.store.unfinished():
            self._queue.put(job_id)
        self._thread = threading.Thread(target=self._work, name="factscope-jobs", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread after the current batch of the job in hand, which stays unfinished (the next start
        resumes it)."""
        self._stopping.set()
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout)

    def submit(self, job: Job) -> None:
        """Queue a job created in the store."""
        self._queue.put(job.id)

    def cancel(self, job_id: str) -> Job:
        """Cancel a queued job now, a running one after its current batch; a finished one stays as it is."""
        job = self.store.get(job_id)
        if job.status in FINISHED:
            return job
        self._cancelled.add(job_id)
        if job.status == "queued":
            self.store.update(job_id, status="cancelled", finished=time.time())
        return self.store.get(job_id)

    def interruption(self, job_id: str) -> Exception | None:
        """What stops a running job at its next batch: its cancellation, or the server stopping."""
        if job_id in self._cancelled:
            return JobCancelled(job_id)
        if self._stopping.is_set():
            return JobStopped(job_id)
        return None

    def _work(self) -> None:
        while True:
            job_id = self._queue.get()
            if job_id is None or self._stopping.is_set():
                return
            if self.store.get(job_id).status in FINISHED:
                continue
            self.run(job_id)

    def run(self, job_id: str) -> None:
        """Run one job to its end (done, failed or cancelled), in the calling thread."""
        job = self.store.get(job_id)
        system = self.systems[job.system]
        input_path, results_path = self.store.paths(job_id)
        started = time.time()
        self.store.update(job_id, status="running", started=started, error=None, rate=None)
        tracker = _Progress(self, job_id, started)
        self.lock.acquire()
        tracker.holding = True
        try:
            system.run_file(input_path, results_path, batch_size=self.batch_size, progress=tracker.event,
                            loaded=tracker.loaded)
        except JobStopped:
            self.store.update(job_id, done=_rows(results_path))
        except JobCancelled:
            self.store.update(job_id, status="cancelled", finished=time.time(), done=_rows(results_path))
        except FactscopeError as error:
            self.store.update(job_id, status="failed", error=_message(error, self.store.data_dir),
                              finished=time.time())
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
            self._cancelled.discard(job_id)


class _Progress:
    """A running job's progress callback: records progress, yields the model lock between batches and stops
    the job there when it was cancelled."""

    def __init__(self, runner: JobRunner, job_id: str, started: float) -> None:
        self.runner = runner
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
                                 problems=[str(p) for p in problems[:PROBLEMS_KEPT]])

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
    """Complete rows of a results file."""
    if not path.exists():
        return 0
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.endswith(b"\n") and line.strip())


def _message(error: FactscopeError, data_dir: Path) -> str:
    """An error's message with the data folder's path left out (no server paths shown)."""
    return str(error).replace(str(data_dir) + "/", "")
