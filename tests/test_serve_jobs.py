"""Jobs: progress in SQLite, cancel, failure, and a stopped server's job resumed by the next with every record
exactly once (the real run loop and results file, a stand-in system)."""

import json
import time

import pytest

pytest.importorskip("fastapi")

from factscope.serve.batching import FairLock
from factscope.serve.jobs import JobRunner, JobStore
from serve_fakes import FakeRow, FakeSystem

RECORDS = [{"id": f"r{n}", "text": "x" * n} for n in range(10)]


def _content(records):
    return iter(["".join(json.dumps(r) + "\n" for r in records).encode("utf-8")])


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
    job = store.create("fake", "in.jsonl", _content(RECORDS))
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
    job = store.create("fake", "in.jsonl", _content(RECORDS))
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
    job = store.create("fake", "in.jsonl", _content(RECORDS))
    runner.start()
    runner.submit(job)
    _wait(store, job.id, lambda j: len(system.batches) == 2)
    assert runner.cancel(job.id).status == "running"
    system.gate.set()
    cancelled = _wait(store, job.id, lambda j: j.status == "cancelled")
    runner.stop()
    assert cancelled.done == len(_rows(store, job.id)) == 6


def test_a_queued_job_is_cancelled_at_once_and_never_runs(tmp_path):
    system = FakeSystem()
    store = JobStore(tmp_path)
    runner = JobRunner(store, {"fake": system}, FairLock())
    job = store.create("fake", "in.jsonl", _content(RECORDS))
    assert runner.cancel(job.id).status == "cancelled"
    runner.start()
    runner.submit(job)
    runner.stop()
    assert system.batches == [] and store.get(job.id).status == "cancelled"


def test_skipped_records_are_counted_and_a_file_with_none_usable_fails_without_server_paths(tmp_path):
    store = JobStore(tmp_path)
    runner = JobRunner(store, {"fake": FakeSystem()}, FairLock())
    mixed = store.create("fake", "mixed.jsonl", _content([*RECORDS[:2], {"id": "bad"}]))
    broken = store.create("fake", "broken.jsonl", _content([{"text": 1}]))
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
    job = store.create("fake", "../../../etc/passwd", _content(RECORDS))
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

    system.process = broken_once
    store = JobStore(tmp_path)
    runner = JobRunner(store, {"fake": system}, FairLock())
    first = store.create("fake", "a.jsonl", _content(RECORDS[:2]))
    second = store.create("fake", "b.jsonl", _content(RECORDS[:2]))
    runner.start()
    runner.submit(first)
    runner.submit(second)
    failed = _wait(store, first.id, lambda j: j.status == "failed")
    done = _wait(store, second.id, lambda j: j.status == "done")
    runner.stop()
    assert failed.error == "unexpected RuntimeError; see the server log"
    assert done.done == 2
