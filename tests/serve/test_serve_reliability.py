"""The server's results files and storage: a job's results endpoint gives one row per record id even when the
file repeats some; a data folder that refuses writes (a file size limit on the real server process, a full
device under a job's results file, a full job store) gives a located 507 or a failed job with the cause, never
a 500, and the server goes on serving.

The faults are real ones where the test can make them: ``RLIMIT_FSIZE`` on the server process (EFBIG on the
upload's write), a job results file that is ``/dev/full`` (ENOSPC), and for the job store SQLite's own full
database (``PRAGMA max_page_count``: SQLITE_FULL, what a full disk gives it)."""

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from factscope.serve.app import create_app
from factscope.serve.batching import FairLock
from factscope.serve.config import ServeConfig
from factscope.serve.jobs import JobRunner, JobStore
from repo_paths import SUPPORT
from serve_fakes import FakeSystem

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/dev/full and rlimits")

SERVER = """
import resource, sys
from pathlib import Path

import uvicorn

from factscope.serve.app import create_app
from factscope.serve.config import Limits, ServeConfig
from serve_fakes import FakeSystem

limit = int(sys.argv[3])
if limit:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
config = ServeConfig(data_dir=Path(sys.argv[1]), job_batch_size=4, limits=Limits(max_upload_bytes=20_000_000))
uvicorn.run(create_app(config, systems={"fake": FakeSystem()}), host="127.0.0.1", port=int(sys.argv[2]),
            log_level="warning")
"""

RECORDS = [{"id": f"r{n:02d}", "text": "x" * n} for n in range(12)]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def serve(tmp_path):
    """Start the real server (the fake system) on a data folder, with a file size limit (0: none)."""
    started = []

    def start(limit: int = 0) -> tuple[str, Path]:
        data, port = tmp_path / "data", _free_port()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SUPPORT), os.environ.get("PYTHONPATH", "")])}
        process = subprocess.Popen([sys.executable, "-c", SERVER, str(data), str(port), str(limit)], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started.append(process)
        url = f"http://127.0.0.1:{port}"
        deadline = time.time() + 120
        while True:
            assert process.poll() is None, "the server exited"
            try:
                if httpx.get(f"{url}/v1/health", timeout=2).status_code == 200:
                    return url, data
            except httpx.HTTPError:
                pass
            assert time.time() < deadline, "the server did not come up"
            time.sleep(0.2)

    yield start
    for process in started:
        process.terminate()
        process.wait(10)


def _body(records) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")


def _job_done(url: str, job_id: str) -> dict:
    deadline = time.time() + 60
    while True:
        job = httpx.get(f"{url}/v1/jobs/{job_id}").json()
        if job["status"] in ("done", "failed", "cancelled"):
            return job
        assert time.time() < deadline, job
        time.sleep(0.05)


def test_the_results_endpoint_gives_one_row_per_record_id_the_first(serve):
    url, data = serve()
    created = httpx.post(f"{url}/v1/jobs", params={"system": "fake"}, content=_body(RECORDS))
    assert created.status_code == 202, created.text
    job_id = created.json()["id"]
    assert _job_done(url, job_id)["status"] == "done"
    results = data / "results" / f"{job_id}.jsonl"
    with results.open("a", encoding="utf-8") as handle:  # a file written by two runs before files were locked
        for record in RECORDS[:5]:
            handle.write(json.dumps({"id": record["id"], "length": -1}) + "\n")
    rows = [json.loads(line) for line in httpx.get(f"{url}/v1/jobs/{job_id}/results").text.splitlines()]
    assert sorted(row["id"] for row in rows) == [r["id"] for r in RECORDS]
    assert all(row["length"] >= 0 for row in rows), "the first row of each id is kept"


def test_an_upload_the_disk_refuses_is_a_located_507_and_the_server_goes_on(serve):
    url, data = serve(limit=2_000_000)
    big = _body([{"id": f"b{n}", "text": "y" * 1000} for n in range(3000)])  # 3 MB: past the file size limit
    refused = httpx.post(f"{url}/v1/jobs", params={"system": "fake"}, content=big)
    assert refused.status_code == 507, refused.text
    message = refused.json()["error"]["message"]
    assert "the file would pass the largest size allowed" in message and "EFBIG" in message
    assert "while saving an uploaded input file" in message and "No job was queued" in message
    assert str(data) not in message
    assert not [p for p in (data / "inputs").iterdir()], "the part received was removed"
    assert httpx.get(f"{url}/v1/health").status_code == 200
    created = httpx.post(f"{url}/v1/jobs", params={"system": "fake"}, content=_body(RECORDS))
    assert created.status_code == 202
    assert _job_done(url, created.json()["id"])["done"] == len(RECORDS)


def _upload(store, records):
    saved = store.inputs / f".upload-{len(list(store.inputs.iterdir()))}"
    saved.write_bytes(_body(records))
    return saved


def test_a_job_whose_results_disk_is_full_fails_with_the_cause_and_the_next_job_runs(tmp_path, monkeypatch):
    store = JobStore(tmp_path)
    runner = JobRunner(store, {"fake": FakeSystem()}, FairLock(), batch_size=4)
    full = store.create("fake", "a.jsonl", _upload(store, RECORDS))
    fine = store.create("fake", "b.jsonl", _upload(store, RECORDS))
    checked = store.paths

    def paths(job_id):  # the data folder's check refuses a link that leads out of it: keep this one
        input_path, results_path = checked(job_id)
        return input_path, (results_path.with_name("full.jsonl") if job_id == full.id else results_path)

    monkeypatch.setattr(store, "paths", paths)
    (store.results / "full.jsonl").symlink_to("/dev/full")
    runner.start()
    runner.submit(full)
    deadline = time.time() + 30
    while store.get(fine.id).status != "done":
        assert time.time() < deadline, store.get(fine.id)
        time.sleep(0.05)
    runner.stop()
    failed = store.get(full.id)
    assert failed.status == "failed"
    assert failed.error.startswith("results/full.jsonl: the disk is full (No space left on device, ENOSPC) "
                                   "while writing the row of record 'r00'")
    assert str(tmp_path) not in failed.error


def test_a_full_job_store_is_a_located_507_and_the_server_still_answers(tmp_path, monkeypatch):
    app = create_app(ServeConfig(data_dir=tmp_path), systems={"fake": FakeSystem()})
    connect = sqlite3.connect

    def full_database(path, *args, **kwargs):
        connection = connect(path, *args, **kwargs)
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        connection.execute(f"PRAGMA max_page_count = {max(pages, 1)}")  # the file may not grow: a full disk
        return connection

    with TestClient(app) as client:
        monkeypatch.setattr(sqlite3, "connect", full_database)
        records = [{"id": f"r{n}", "text": "z" * 5000} for n in range(4)]
        names = "n" * 200
        refused = client.post("/v1/jobs", params={"system": "fake", "name": names}, content=_body(records))
        for _ in range(30):  # each job adds a row: the table fills a page within a few jobs
            if refused.status_code != 202:
                break
            refused = client.post("/v1/jobs", params={"system": "fake", "name": names}, content=_body(records))
        assert refused.status_code == 507, refused.text
        message = refused.json()["error"]["message"]
        assert message.startswith("jobs.sqlite3: the disk is full (database or disk is full, ENOSPC) while "
                                  "recording a job in the server's job store")
        assert str(tmp_path) not in message
        assert client.get("/v1/health").status_code == 200


HOLD = """
import sys, time
from factscope.core.files.results_lock import results_lock
with results_lock(sys.argv[1]):
    print("held", flush=True)
    time.sleep(60)
"""


def test_a_job_whose_results_file_another_process_writes_waits_for_it_and_then_runs_each_record_once(tmp_path):
    store = JobStore(tmp_path)
    runner = JobRunner(store, {"fake": FakeSystem()}, FairLock(), batch_size=4, lease_seconds=1.0)
    job = store.create("fake", "a.jsonl", _upload(store, RECORDS))
    results = store.paths(job.id)[1]
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(results)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        runner.start()
        runner.submit(job)
        time.sleep(2.0)  # several tries of the runner, each refused by the lock
        waiting = store.get(job.id)
        assert waiting.status in ("queued", "running"), waiting
        assert not results.exists() or not results.read_text()
    finally:
        holder.kill()
        holder.wait()
    deadline = time.time() + 30
    while store.get(job.id).status != "done":
        assert time.time() < deadline, store.get(job.id)
        time.sleep(0.05)
    runner.stop()
    ids = [json.loads(line)["id"] for line in results.read_text().splitlines()]
    assert sorted(ids) == [r["id"] for r in RECORDS]


class _LockedAtFirst:
    """A jobs-store connection whose first ``refusals`` changes to WAL mode are answered 'database is locked', as
    SQLite answers a server whose change another starting server's lock blocks."""

    def __init__(self, connection: sqlite3.Connection, refused: list[str], refusals: int) -> None:
        object.__setattr__(self, "_connection", connection)
        object.__setattr__(self, "_refused", refused)
        object.__setattr__(self, "_refusals", refusals)

    def __getattr__(self, name: str):
        return getattr(self._connection, name)

    def __setattr__(self, name: str, value) -> None:
        setattr(self._connection, name, value)

    def __enter__(self):
        self._connection.__enter__()
        return self

    def __exit__(self, *exc):
        return self._connection.__exit__(*exc)

    def execute(self, sql: str, *args):
        if sql == "PRAGMA journal_mode=WAL" and len(self._refused) < self._refusals:
            self._refused.append(sql)
            raise sqlite3.OperationalError("database is locked")
        return self._connection.execute(sql, *args)


def test_a_server_starting_while_another_holds_the_jobs_database_waits_for_wal_mode(tmp_path, monkeypatch):
    from factscope.serve import jobs

    connect, refused = sqlite3.connect, []
    monkeypatch.setattr(jobs.sqlite3, "connect", lambda *a, **k: _LockedAtFirst(connect(*a, **k), refused, 2))
    store = JobStore(tmp_path)
    monkeypatch.setattr(jobs.sqlite3, "connect", connect)
    assert len(refused) == 2 and store.recent() == []
    with sqlite3.connect(tmp_path / "jobs.sqlite3") as check:
        assert check.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    monkeypatch.setattr(jobs, "WAL_WAIT_SECONDS", 0.0)
    monkeypatch.setattr(jobs.sqlite3, "connect", lambda *a, **k: _LockedAtFirst(connect(*a, **k), [], 99))
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        JobStore(tmp_path / "other")
