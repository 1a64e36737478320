"""Jobs: progress in SQLite, cancel, failure, a stopped server's job resumed by the next with every record
exactly once (the real run loop and results file, a stand-in system), and two real server processes on one data
folder: a job's lease keeps it on one of them, and the other finishes it after the first is killed."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("fastapi")

from factscope.serve.batching import FairLock
from factscope.serve.jobs import JobRunner, JobStore
from repo_paths import SUPPORT
from serve_fakes import FakeRow, FakeSystem

RECORDS = [{"id": f"r{n}", "text": "x" * n} for n in range(10)]


def _upload(store, records):
    saved = store.inputs / f".upload-{len(list(store.inputs.iterdir()))}"
    saved.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return saved


def _wait(store, job_id, until, timeout=20.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        job = store.get(job_id)
        if until(job):
            return job
        time.sleep(0.02)
    raise AssertionError(f"job never reached the state: {store.get(job_id)}")


def _rows(store, job_id):
    _, results = store.paths(job_id)
    return [json.loads(line)["id"] for line in results.read_text().splitlines() if line.strip()]


def test_a_job_runs_to_the_end_with_progress(tmp_path):
    store = JobStore(tmp_path)
    runner = JobRunner(store, {"fake": FakeSystem()}, FairLock(), batch_size=3)
    job = store.create("fake", "in.jsonl", _upload(store, RECORDS))
    runner.start()
    runner.submit(job)
    done = _wait(store, job.id, lambda j: j.status == "done")
    runner.stop()
    assert (done.records, done.done, done.progress) == (10, 10, 1.0)
    assert done.rate is not None and done.rate > 0
    assert sorted(_rows(store, job.id)) == sorted(r["id"] for r in RECORDS)


def test_a_stopped_server_leaves_its_job_unfinished_and_the_next_one_finishes_it_exactly_once(tmp_path):
    first_system = FakeSystem(free_batches=1)
    store = JobStore(tmp_path)
    runner = JobRunner(store, {"fake": first_system}, FairLock(), batch_size=3)
    job = store.create("fake", "in.jsonl", _upload(store, RECORDS))
    runner.start()
    runner.submit(job)
    _wait(store, job.id, lambda j: len(first_system.batches) == 2)
    runner.stop(timeout=0)
    first_system.gate.set()
    runner.stop(timeout=10)
    stopped = store.get(job.id)
    assert stopped.status == "running"
    written = _rows(store, job.id)
    assert 0 < len(written) < len(RECORDS)

    second_system = FakeSystem()
    restarted = JobRunner(JobStore(tmp_path), {"fake": second_system}, FairLock(), batch_size=3)
    restarted.start()
    finished = _wait(store, job.id, lambda j: j.status == "done")
    restarted.stop()
    rows = _rows(store, job.id)
    assert sorted(rows) == sorted(r["id"] for r in RECORDS)
    assert len(rows) == len(set(rows))
    assert not set(written) & {i for batch in second_system.batches for i in batch}
    assert finished.done == len(RECORDS)


def test_cancel_stops_a_running_job_after_its_batch_and_keeps_its_rows(tmp_path):
    system = FakeSystem(free_batches=1)
    store = JobStore(tmp_path)
    runner = JobRunner(store, {"fake": system}, FairLock(), batch_size=3)
    job = store.create("fake", "in.jsonl", _upload(store, RECORDS))
    runner.start()
    runner.submit(job)
    _wait(store, job.id, lambda j: len(system.batches) == 2)
    assert runner.cancel(job.id).status == "running"
    system.gate.set()
    cancelled = _wait(store, job.id, lambda j: j.status == "cancelled")
    runner.stop()
    assert cancelled.done == len(_rows(store, job.id)) == 6


def test_a_cancel_sent_to_another_server_stops_the_job_where_it_runs(tmp_path):
    system = FakeSystem(free_batches=1)
    store = JobStore(tmp_path)
    running = JobRunner(store, {"fake": system}, FairLock(), batch_size=3, lease_seconds=0.3)
    elsewhere = JobRunner(JobStore(tmp_path), {"fake": FakeSystem()}, FairLock(), lease_seconds=0.3)
    job = store.create("fake", "in.jsonl", _upload(store, RECORDS))
    running.start()
    running.submit(job)
    _wait(store, job.id, lambda j: len(system.batches) == 2)
    assert elsewhere.cancel(job.id).status == "running"
    time.sleep(1.0)  # several renewals of the running server's lease, each reading the cancellation
    system.gate.set()
    cancelled = _wait(store, job.id, lambda j: j.status == "cancelled")
    running.stop()
    assert cancelled.done == len(_rows(store, job.id)) == 6


def test_a_queued_job_is_cancelled_at_once_and_never_runs(tmp_path):
    system = FakeSystem()
    store = JobStore(tmp_path)
    runner = JobRunner(store, {"fake": system}, FairLock())
    job = store.create("fake", "in.jsonl", _upload(store, RECORDS))
    assert runner.cancel(job.id).status == "cancelled"
    runner.start()
    runner.submit(job)
    runner.stop()
    assert system.batches == [] and store.get(job.id).status == "cancelled"


def test_skipped_records_are_counted_and_a_file_with_none_usable_fails_without_server_paths(tmp_path):
    store = JobStore(tmp_path)
    runner = JobRunner(store, {"fake": FakeSystem()}, FairLock())
    mixed = store.create("fake", "mixed.jsonl", _upload(store, [*RECORDS[:2], {"id": "bad"}]))
    broken = store.create("fake", "broken.jsonl", _upload(store, [{"text": 1}]))
    runner.start()
    runner.submit(mixed)
    runner.submit(broken)
    done = _wait(store, mixed.id, lambda j: j.status == "done")
    failed = _wait(store, broken.id, lambda j: j.status == "failed")
    runner.stop()
    assert (done.records, done.skipped) == (2, 1)
    assert "text" in done.problems[0]
    assert "no usable records" in failed.error and str(tmp_path) not in failed.error


def test_uploaded_names_are_sanitised_into_the_inputs_folder(tmp_path):
    store = JobStore(tmp_path / "data")
    job = store.create("fake", "../../../etc/passwd", _upload(store, RECORDS))
    input_path, results_path = store.paths(job.id)
    assert input_path.parent == (tmp_path / "data" / "inputs").resolve()
    assert results_path.parent == (tmp_path / "data" / "results").resolve()
    assert job.input_name == "passwd"
    assert not (tmp_path / "etc").exists()


def test_an_unexpected_error_fails_its_job_and_the_next_job_still_runs(tmp_path):
    system = FakeSystem()
    calls = []

    def broken_once(items):
        calls.append(len(items))
        if len(calls) == 1:
            raise RuntimeError("boom")
        return [FakeRow(id=item.id, length=len(item.text)) for item in items]

    system.batch = broken_once
    store = JobStore(tmp_path)
    runner = JobRunner(store, {"fake": system}, FairLock())
    first = store.create("fake", "a.jsonl", _upload(store, RECORDS[:2]))
    second = store.create("fake", "b.jsonl", _upload(store, RECORDS[:2]))
    runner.start()
    runner.submit(first)
    runner.submit(second)
    failed = _wait(store, first.id, lambda j: j.status == "failed")
    done = _wait(store, second.id, lambda j: j.status == "done")
    runner.stop()
    assert failed.error == "unexpected RuntimeError; see the server log"
    assert done.done == 2


PACED_SERVER = """
import os, sys, time
from pathlib import Path

import uvicorn

from factscope.serve.app import create_app
from factscope.serve.config import Limits, ServeConfig
from serve_fakes import FakeSystem


class PacedSystem(FakeSystem):
    def batch(self, items):
        with open(os.environ["BATCH_LOG"], "a", encoding="utf-8") as log:
            log.write(f"{os.getpid()} {' '.join(item.id for item in items)}\\n")
        time.sleep(0.2)
        return super().batch(items)


config = ServeConfig(data_dir=Path(sys.argv[1]), job_batch_size=2, job_lease_seconds=1.5,
                     limits=Limits(max_upload_bytes=100_000))
uvicorn.run(create_app(config, systems={"fake": PacedSystem()}), host="127.0.0.1", port=int(sys.argv[2]),
            log_level="warning")
"""


def _free_ports(count: int) -> list[int]:
    """``count`` distinct free ports (the probes stay bound until all are chosen, so none is handed out twice)."""
    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [int(probe.getsockname()[1]) for probe in probes]
    finally:
        for probe in probes:
            probe.close()


def _serve(data: Path, log: Path, port: int) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "BATCH_LOG": str(log),
           "PYTHONPATH": os.pathsep.join([str(SUPPORT), os.environ.get("PYTHONPATH", "")])}
    errors = log.with_name(f"server-{port}.log")
    with open(errors, "w", encoding="utf-8") as written:
        process = subprocess.Popen([sys.executable, "-c", PACED_SERVER, str(data), str(port)], env=env,
                                   stdout=subprocess.DEVNULL, stderr=written)
    process.error_log = errors  # type: ignore[attr-defined]
    return process, f"http://127.0.0.1:{port}"


def _server_log(process: subprocess.Popen) -> str:
    """The end of the error log of the server ``process`` (none for a server started without one)."""
    errors = getattr(process, "error_log", None)
    return errors.read_text(encoding="utf-8")[-2000:] if errors else "(no log)"


def _up(process: subprocess.Popen, url: str) -> None:
    deadline = time.time() + 120
    while time.time() < deadline:
        assert process.poll() is None, "the server exited: " + _server_log(process)
        try:
            if httpx.get(f"{url}/v1/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError("the server did not come up")


def _chunks(data: bytes, size: int = 4096):
    for start in range(0, len(data), size):
        yield data[start:start + size]


def test_two_servers_on_one_folder_never_run_one_job_together_and_a_killed_ones_job_is_finished_by_the_other(
    tmp_path,
):
    data, log = tmp_path / "data", tmp_path / "batches.log"
    servers = [_serve(data, log, port) for port in _free_ports(2)]
    try:
        for process, url in servers:
            _up(process, url)
        records = [{"id": f"r{n:02d}", "text": "x" * n} for n in range(40)]
        body = "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")
        created = httpx.post(f"{servers[0][1]}/v1/jobs", params={"system": "fake", "name": "forty.jsonl"},
                             content=_chunks(body))
        assert created.status_code == 202, created.text
        job_id = created.json()["id"]
        deadline = time.time() + 60
        while len(log.read_text().splitlines() if log.exists() else []) < 4:
            assert time.time() < deadline, "the job did not start"
            time.sleep(0.05)
        runner_pid = int(log.read_text().split()[0])
        runner, survivor = sorted(servers, key=lambda server: server[0].pid != runner_pid)
        assert runner[0].pid == runner_pid
        runner[0].send_signal(signal.SIGKILL)
        runner[0].wait(10)
        before = len(log.read_text().splitlines())
        assert before < 20, "the job finished before the kill; the test needs a slower job"

        deadline = time.time() + 60
        while (job := httpx.get(f"{survivor[1]}/v1/jobs/{job_id}").json())["status"] != "done":
            assert time.time() < deadline, f"the other server never finished the job: {job}"
            time.sleep(0.1)
        batches = [line.split() for line in log.read_text().splitlines()]
        assert {int(batch[0]) for batch in batches[:before]} == {runner_pid}
        assert {int(batch[0]) for batch in batches[before:]} == {survivor[0].pid}
        rows = [json.loads(line)["id"] for line in (data / "results" / f"{job_id}.jsonl").read_text().splitlines()]
        assert sorted(rows) == [r["id"] for r in records] and job["done"] == 40

        too_large = httpx.post(f"{survivor[1]}/v1/jobs", params={"system": "fake"},
                               content=_chunks(b'{"id": "a", "text": "x"}\n' * 5000))
        assert too_large.status_code == 413, too_large.text
        assert sorted(p.name for p in (data / "inputs").iterdir()) == [f"{job_id}-forty.jsonl"]
    finally:
        for process, _ in servers:
            if process.poll() is None:
                process.kill()
                process.wait(10)
