"""The real `factscope` CLI on one results file: one writer at a time, readers that never count a record twice,
and disk faults reported as the user's to fix (exit 2, the file named, its rows intact), never as a bug.

Every run is a subprocess (`python -m factscope check ... --checker similarity`, offline, the packaged encoder;
`--checker llm` against the fake LLM server where a run must be held mid-way).
The disk faults are real ones from the kernel: a results file that is ``/dev/full`` (ENOSPC on every write), a
file size limit (``RLIMIT_FSIZE``: EFBIG once the file passes it; the tests run as root, so a read-only folder
made with chmod would not stop them), a tiny tmpfs filled to the brim (ENOSPC, when this machine lets the test
mount one), and a folder removed while the run writes into it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cli_process import write_jsonl
from repo_paths import EXAMPLES

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/dev/full, rlimits and tmpfs")

CHECK = ["check", "--checker", "similarity", "--batch-size", "4"]


def _records(n: int) -> list[dict]:
    rows = [json.loads(line) for line in (EXAMPLES / "check.jsonl").read_text(encoding="utf-8").splitlines()]
    return [{**rows[i % len(rows)], "id": f"c{i}"} for i in range(n)]


LIMITED = """
import resource, runpy, sys
limit = int(sys.argv.pop(1))
if limit:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
sys.argv[0] = "factscope"
runpy.run_module("factscope", run_name="__main__", alter_sys=True)
"""
"""`python -m factscope` under a file size limit (RLIMIT_FSIZE; 0: none) set in the process itself."""


def _start(*argv: str, cwd: Path, limit_bytes: int | None = None) -> subprocess.Popen:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.Popen([sys.executable, "-c", LIMITED, str(limit_bytes or 0), *argv], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(process: subprocess.Popen, timeout: float = 300) -> tuple[int, str]:
    out, err = process.communicate(timeout=timeout)
    return process.returncode, " ".join(f"{out}\n{err}".replace("│", " ").split())


def _factscope(*argv: str, cwd: Path, limit_bytes: int | None = None) -> tuple[int, str]:
    return _finish(_start(*argv, cwd=cwd, limit_bytes=limit_bytes))


def _ids(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [json.loads(line)["id"] for line in text.splitlines() if line.endswith("}")]


def _wait_for(condition, timeout: float = 180, what: str = "") -> None:
    deadline = time.time() + timeout
    while not condition():
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _rows_in(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_a_second_run_on_a_file_being_written_is_refused_naming_the_first_and_nothing_is_written_twice(
    tmp_path, fake_llm
):
    gate = threading.Event()
    fake_llm.responder = lambda request: "Entailment" if gate.wait(120) else "timed out"
    llm = ["--checker", "llm", "--llm-base-url", fake_llm.base_url, "--llm-model", "fake", "--llm-cache", "off"]
    write_jsonl(tmp_path / "in.jsonl", _records(6))
    first = _start("check", "in.jsonl", "-o", "same.jsonl", *llm, cwd=tmp_path)
    try:
        lock = tmp_path / "same.jsonl.lock"
        _wait_for(lambda: len(fake_llm.requests) > 0, what="the first run's checks")  # it holds the file now
        second, said = _factscope("check", "in.jsonl", "-o", "same.jsonl", *llm, cwd=tmp_path)
        assert first.poll() is None, "the first run, waiting on its LLM, still runs"
        assert second == 2, said
        assert f"another run is writing this results file: pid {first.pid}" in said
        assert "This is a bug" not in said
    finally:
        gate.set()
    code, said = _finish(first)
    assert code == 0, said
    ids = _ids(tmp_path / "same.jsonl")
    assert sorted(ids) == sorted(f"c{i}" for i in range(6)), "every record exactly once"
    assert not lock.exists()


def test_kill_9_leaves_a_lock_that_blocks_nothing_and_the_resumed_run_loses_and_repeats_nothing(tmp_path):
    write_jsonl(tmp_path / "in.jsonl", _records(600))
    first = _start(*CHECK, "in.jsonl", "-o", "out.jsonl", cwd=tmp_path)
    _wait_for(lambda: _rows_in(tmp_path / "out.jsonl") >= 20, what="rows")
    first.send_signal(signal.SIGKILL)
    first.wait()
    lock = tmp_path / "out.jsonl.lock"
    assert json.loads(lock.read_text())["pid"] == first.pid, "the killed run's lock file is left behind"
    code, said = _factscope(*CHECK, "in.jsonl", "-o", "out.jsonl", cwd=tmp_path)
    assert code == 0, said
    ids = _ids(tmp_path / "out.jsonl")
    assert sorted(ids) == sorted(f"c{i}" for i in range(600))
    assert not lock.exists()


def _duplicated(tmp_path: Path) -> Path:
    """A results file made before results files were locked: two runs appended the same 6 records, the second
    run's rows differing (a record's first row is the one kept)."""
    write_jsonl(tmp_path / "in.jsonl", _records(6))
    code, said = _factscope(*CHECK, "in.jsonl", "-o", "dup.jsonl", "--summary", "once.json", cwd=tmp_path)
    assert code == 0, said
    out = tmp_path / "dup.jsonl"
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    later = [{**row, "claims": [], "metadata": {"copy": "LATER-COPY"}} for row in rows[:4]]
    with out.open("a", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in later)
    return out


def test_export_and_report_of_a_file_with_repeated_ids_give_one_row_per_record_and_say_so_once(tmp_path):
    _duplicated(tmp_path)
    code, said = _factscope("export", "dup.jsonl", "-o", "dup.csv", cwd=tmp_path)
    assert code == 0, said
    assert said.count("4 rows repeat the record id of an earlier row") == 1, said
    assert "first row of each record is kept" in said
    lines = (tmp_path / "dup.csv").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + 6
    assert "LATER-COPY" not in "".join(lines), "the first row of each record is the one kept"
    code, said = _factscope("report", "dup.jsonl", "-o", "dup.html", cwd=tmp_path)
    assert code == 0, said
    assert said.count("4 rows repeat") == 1 and "records read 6" in said
    (tmp_path / "full.csv").symlink_to("/dev/full")  # a table written whole onto a full disk: not a bug either
    code, said = _factscope("export", "dup.jsonl", "-o", "full.csv", cwd=tmp_path)
    assert code == 2, said
    assert "the disk is full" in said and "ENOSPC" in said and "This is a bug" not in said


def test_a_resumed_run_on_a_file_with_repeated_ids_counts_each_record_once_and_says_so(tmp_path):
    _duplicated(tmp_path)
    code, said = _factscope(*CHECK, "in.jsonl", "-o", "dup.jsonl", "--summary", "again.json", cwd=tmp_path)
    assert code == 0, said
    assert "0 / 6" in said and said.count("4 rows repeat") == 1, said
    once = json.loads((tmp_path / "once.json").read_text())
    again = json.loads((tmp_path / "again.json").read_text())
    assert again["resumed_records"] == 6 and again["new_records"] == 0
    for figure in ("rates", "rates_by_setting", "declined", "claims"):
        assert again[figure] == once[figure], figure


def test_a_results_file_on_a_full_device_is_a_located_user_error(tmp_path):
    write_jsonl(tmp_path / "in.jsonl", _records(6))
    (tmp_path / "full.jsonl").symlink_to("/dev/full")
    code, said = _factscope(*CHECK, "in.jsonl", "-o", "full.jsonl", cwd=tmp_path)
    assert code == 2, said
    assert "full.jsonl: the disk is full" in said and "ENOSPC" in said
    assert "while writing the row of record 'c0'" in said and "Run the same command again to resume" in said
    assert "This is a bug" not in said


def test_a_file_size_limit_stops_the_run_with_its_rows_intact_and_the_rerun_resumes(tmp_path):
    write_jsonl(tmp_path / "in.jsonl", _records(40))
    code, said = _factscope(*CHECK, "in.jsonl", "-o", "out.jsonl", cwd=tmp_path, limit_bytes=20_000)
    assert code == 2, said
    assert "out.jsonl: the file would pass the largest size allowed" in said and "EFBIG" in said
    assert "This is a bug" not in said
    out = tmp_path / "out.jsonl"
    complete = _ids(out)
    assert 0 < len(complete) < 40 and len(complete) == len(set(complete))
    assert f"keeps its {len(complete)} complete rows" in said
    code, said = _factscope(*CHECK, "in.jsonl", "-o", "out.jsonl", cwd=tmp_path)
    assert code == 0, said
    assert f"{40 - len(complete)} / {len(complete)}" in said
    assert sorted(_ids(out)) == sorted(f"c{i}" for i in range(40))
    assert out.read_text(encoding="utf-8").endswith("\n")


def test_a_folder_removed_mid_run_stops_the_run_with_a_located_error(tmp_path):
    write_jsonl(tmp_path / "in.jsonl", _records(600))
    folder = tmp_path / "results"
    run = _start(*CHECK, "in.jsonl", "-o", "results/out.jsonl", cwd=tmp_path)
    _wait_for(lambda: _rows_in(folder / "out.jsonl") >= 8, what="rows")
    shutil.rmtree(folder)
    code, said = _finish(run)
    assert code == 2, said
    assert "results/out.jsonl: its folder was removed" in said and "removed while this run wrote it" in said
    assert "This is a bug" not in said


@pytest.fixture
def tiny_disk(tmp_path):
    """A 256 KiB tmpfs mounted for the test (skipped where this machine does not allow it)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)], capture_output=True,
                          check=False)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode(errors='replace').strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_disk_that_fills_up_mid_run_keeps_the_rows_and_the_run_resumes_once_space_is_freed(tmp_path, tiny_disk):
    write_jsonl(tmp_path / "in.jsonl", _records(150))
    out = tiny_disk / "out.jsonl"
    code, said = _factscope(*CHECK, "in.jsonl", "-o", str(out), cwd=tmp_path)
    assert code == 2, said
    assert "out.jsonl: the disk is full" in said and "ENOSPC" in said and "This is a bug" not in said
    complete = _ids(out)
    assert 0 < len(complete) < 150 and len(complete) == len(set(complete))
    subprocess.run(["mount", "-o", "remount,size=4m", str(tiny_disk)], check=True)
    code, said = _factscope(*CHECK, "in.jsonl", "-o", str(out), cwd=tmp_path)
    assert code == 0, said
    assert sorted(_ids(out)) == sorted(f"c{i}" for i in range(150))
