"""One writer per results file: the lock beside it refuses a second run (another process or another thread)
naming the holder, is re-entrant in its own thread, is removed when the run ends, and a lock file left by a
killed process blocks nothing."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from pydantic import BaseModel

import factscope.core.files.results_lock as locking
from factscope.core.files.results_lock import ResultsLocked, acquire, lock_path, release, results_lock
from factscope.core.runs.loop import run_batches, run_manifest

HOLD = """
import sys, time
from factscope.core.files.results_lock import results_lock
with results_lock(sys.argv[1]):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


class Row(BaseModel):
    id: str
    n: int


MANIFEST = run_manifest("test", ["a", "b", "c"], {})


def _holder(output: Path, seconds: float) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-c", HOLD, str(output), str(seconds)], stdout=subprocess.PIPE,
                               text=True)
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    return process


def _run(output: Path, items: list[str]):
    return run_batches(items, lambda batch: [Row(id=i, n=len(i)) for i in batch], key=lambda i: i, row_type=Row,
                       output=output, batch_size=2, manifest=MANIFEST)


def test_a_run_on_a_file_another_process_writes_is_refused_before_any_work_naming_its_pid(tmp_path):
    output = tmp_path / "out.jsonl"
    holder = _holder(output, 30)
    try:
        with pytest.raises(ResultsLocked) as refused:
            _run(output, ["a", "b"])
        assert f"pid {holder.pid}" in str(refused.value)
        assert str(output) in str(refused.value)
        assert not output.exists(), "nothing was written, not even the manifest"
    finally:
        holder.kill()
        holder.wait()


def test_a_lock_left_by_a_killed_process_does_not_block_and_the_lock_file_goes_with_the_run(tmp_path):
    output = tmp_path / "out.jsonl"
    holder = _holder(output, 30)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    left = json.loads(lock_path(output).read_text())
    assert left["pid"] == holder.pid, "the killed process's lock file is still there"
    produced = _run(output, ["a", "b", "c"])
    assert produced.new == 3
    assert not lock_path(output).exists()


def test_the_lock_is_re_entrant_in_its_thread_and_refuses_another_thread(tmp_path):
    output = tmp_path / "out.jsonl"
    refused: list[Exception] = []
    with results_lock(output):
        produced = _run(output, ["a"])  # the run takes the lock again in this thread
        assert produced.new == 1
        assert lock_path(output).exists(), "still held by the outer block"

        def other() -> None:
            try:
                _run(output, ["b"])
            except ResultsLocked as error:
                refused.append(error)

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert len(refused) == 1 and "another thread of this process" in str(refused[0])
    assert f"pid {os.getpid()}" in str(refused[0])
    assert not lock_path(output).exists()
    assert _run(output, ["a", "b"]).new == 1


def test_a_lock_file_removed_by_its_ending_holder_between_open_and_lock_is_not_trusted(tmp_path, monkeypatch):
    output = tmp_path / "out.jsonl"
    real = locking.fcntl.flock
    removed = []

    def flock(descriptor, operation):
        if not removed:  # the run holding the lock ends now: it removes the file this run has just opened
            removed.append(descriptor)
            lock_path(output).unlink()
        return real(descriptor, operation)

    monkeypatch.setattr(locking.fcntl, "flock", flock)
    acquire(output)
    try:
        held = locking._held[os.path.realpath(lock_path(output))].descriptor
        assert removed and lock_path(output).exists(), "a new lock file was made and locked"
        assert os.stat(lock_path(output)).st_ino == os.fstat(held).st_ino
    finally:
        release(output)


def test_two_processes_racing_for_one_file_write_every_record_once(tmp_path):
    output = tmp_path / "out.jsonl"
    script = """
import sys, time
from pydantic import BaseModel
from factscope.core.files.results_lock import ResultsLocked
from factscope.core.runs.loop import run_batches, run_manifest
class Row(BaseModel):
    id: str
items = [f"r{n}" for n in range(200)]
def slow(batch):
    time.sleep(0.05)
    return [Row(id=i) for i in batch]
try:
    run_batches(items, slow, key=lambda i: i, row_type=Row, output=sys.argv[1], batch_size=5,
                manifest=run_manifest("race", items, {}))
    print("ran")
except ResultsLocked:
    print("refused")
"""
    racers = [subprocess.Popen([sys.executable, "-c", script, str(output)], stdout=subprocess.PIPE, text=True)
              for _ in range(4)]
    outcomes = sorted(racer.communicate(timeout=120)[0].strip() for racer in racers)
    ids = [json.loads(line)["id"] for line in output.read_text().splitlines()]
    assert sorted(ids) == sorted(f"r{n}" for n in range(200)), "every record exactly once"
    assert "ran" in outcomes and set(outcomes) <= {"ran", "refused"}


def test_the_refusal_says_when_the_holder_has_not_written_its_pid_yet(tmp_path):
    message = str(ResultsLocked(tmp_path / "out.jsonl", {}))
    assert "still starting" in message
    started = time.time()
    message = str(ResultsLocked(tmp_path / "out.jsonl", {"pid": 12, "command": "factscope check a -o b",
                                                          "started": started}))
    assert "pid 12" in message and "`factscope check a -o b`" in message and "since" in message
