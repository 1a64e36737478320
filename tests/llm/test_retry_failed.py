"""Failed records are retried in place (--retry-failed), a killed run resumes, and partial runs exit 3.

The run loop's retry is tested in process; every command that calls an LLM is run as the real CLI in a
subprocess against the fake server: once killed with SIGKILL mid-run and resumed, once with injected faults
(500, 429, timeouts, malformed and truncated JSON) and then retried with a healthy server.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import BaseModel

from cli_process import FAULTS, llm_environment, read_rows, write_jsonl
from factscope.core.files.results_file import drop_rows
from factscope.core.runs.loop import run_batches, run_manifest
from fake_llm import FakeLLMServer
from repo_paths import EXAMPLES


class _Row(BaseModel):
    id: str
    failed: bool = False
    attempt: int = 0


def test_retry_failed_replaces_failed_rows_in_place_once(tmp_path):
    out = tmp_path / "out.jsonl"
    items = [f"r{i}" for i in range(6)]
    manifest = run_manifest("test", items, {})
    calls: list[str] = []

    def process(attempt: int) -> Callable[[list[str]], list[_Row]]:
        def batch(rows: list[str]) -> list[_Row]:
            calls.extend(rows)
            return [_Row(id=i, failed=attempt == 0 and i in {"r1", "r4"}, attempt=attempt) for i in rows]

        return batch

    first = run_batches(items, process(0), key=str, row_type=_Row, output=out, batch_size=4, manifest=manifest)
    assert sum(row.failed for row in first.results) == 2
    plain = run_batches(items, process(1), key=str, row_type=_Row, output=out, manifest=manifest,
                        failed=lambda row: row.failed)
    assert plain.new == 0 and calls == items, "without retry_failed a rerun only resumes"
    again = run_batches(items, process(1), key=str, row_type=_Row, output=out, manifest=manifest,
                        failed=lambda row: row.failed, retry_failed=True)
    assert calls[len(items):] == ["r1", "r4"] and again.retried == 2 and again.new == 2 and again.resumed == 4
    ids = [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(ids) == items and not any(row.failed for row in again.results)


def test_drop_rows_cuts_a_torn_tail_and_keeps_foreign_lines(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text('{"id": "a", "failed": true}\nnot json\n{"id": "b"}\n{"id": "c", "fa', encoding="utf-8")
    assert drop_rows(out, lambda row: bool(row.get("failed"))) == 1
    assert out.read_text(encoding="utf-8") == 'not json\n{"id": "b"}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"], "no temporary file is left behind"


@dataclass(frozen=True)
class _Command:
    """One LLM command of the CLI: how to make its input, its arguments, and a healthy reply to any request."""

    name: str
    args: Callable[[Path, Path], list[str]]
    write_input: Callable[[Path, int], None]
    reply: Callable[[dict], str]
    failed: Callable[[dict], bool]


COMMANDS = [
    _Command(
        "check",
        lambda data, out: ["check", str(data), "-o", str(out), "--extractor", "sentences", "--checker", "llm",
                           "--llm-check-mode", "single", "--batch-size", "4"],
        lambda path, n: write_jsonl(path, [{"id": f"c{i}", "response": f"Paris is the capital of France number {i}.",
                                            "references": ["Paris is the capital of France."]} for i in range(n)]),
        lambda request: "Entailment",
        lambda row: bool(row["extraction_failed"]) or any(c["verdict"]["failed"] for c in row["claims"]),
    ),
    _Command(
        "ground generate",
        lambda data, out: ["ground", "generate", str(data), "-o", str(out), "--batch-size", "4"],
        lambda path, n: write_jsonl(path, [{"id": f"g{i}", "question": f"Who founded town {i}?",
                                            "contexts": [f"Town {i} was founded by Ada."],
                                            "gold_facts": ["Ada founded the town."]} for i in range(n)]),
        lambda request: "Ada founded it.",
        lambda row: False,
    ),
    _Command(
        "attribute generate",
        lambda data, out: ["attribute", "generate", str(data), "-o", str(out), "--graph",
                           str(EXAMPLES / "attribute" / "graph.jsonl")],
        lambda path, n: write_jsonl(path, [{"id": f"q{i}", "question": f"Whom did Marie Curie marry ({i})?",
                                            "minimum": [["Q7186", "spouse", "Pierre Curie"]]} for i in range(n)]),
        lambda request: "Marie Curie married Pierre Curie [Q7186, spouse: Pierre Curie].",
        lambda row: bool(row["failed"]),
    ),
    _Command(
        "attribute make-questions",
        lambda data, out: ["attribute", "make-questions", str(data), "-o", str(out), "--rounds", "1", "--graph",
                           str(EXAMPLES / "attribute" / "graph.jsonl")],
        lambda path, n: write_jsonl(path, [{"id": f"s{i}", "paragraph": f"Marie Curie married Pierre Curie ({i}).",
                                            "qids": ["Q7186"]} for i in range(n)]),
        lambda request: "Generated Answer: Marie Curie married Pierre Curie. "
                        "Generated Question: Whom did Marie Curie marry?",
        lambda row: bool(row["failed"]),
    ),
    _Command(
        "knowledge generate",
        lambda data, out: ["knowledge", "generate", str(data), "-o", str(out), "--batch-size", "4"],
        lambda path, n: write_jsonl(path, [{"id": f"k{i}", "task": "qa", "query": f"who wrote song number {i}"}
                                           for i in range(n)]),
        lambda request: "The song was written by Billy Hill.",
        lambda row: bool(row["failed"]),
    ),
]


def _argv(command: _Command, data: Path, out: Path, server: FakeLLMServer, *before: str) -> list[str]:
    llm = ["--llm-base-url", server.base_url, "--llm-model", "fake", "--llm-cache", "off"]
    return [sys.executable, "-m", "factscope", *before, *command.args(data, out), *llm]


@pytest.mark.parametrize("command", COMMANDS, ids=[c.name for c in COMMANDS])
def test_a_killed_llm_command_resumes_with_every_record_once(command, tmp_path):
    data, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    command.write_input(data, 40)
    with FakeLLMServer() as server:
        server.responder = command.reply
        server.delay = 0.3
        process = subprocess.Popen(_argv(command, data, out, server), cwd=tmp_path, env=llm_environment(30),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            if out.exists() and out.stat().st_size and out.read_text(encoding="utf-8").count("\n") >= 1:
                break
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        assert process.returncode == -signal.SIGKILL, "the run was killed, not finished"
        written = out.read_text(encoding="utf-8").count("\n")
        assert 0 < written < 40
        server.delay = 0.0
        rerun = subprocess.run(_argv(command, data, out, server), cwd=tmp_path, env=llm_environment(30),
                               capture_output=True, text=True, timeout=120, check=False)
    assert rerun.returncode == 0, (rerun.stderr, [row for row in read_rows(out) if command.failed(row)])
    ids = [row["id"] for row in read_rows(out)]
    assert len(ids) == 40 and len(set(ids)) == 40
    assert " / " not in rerun.stdout or f"{40 - written} / {written}" in rerun.stdout


@pytest.mark.parametrize("command", COMMANDS, ids=[c.name for c in COMMANDS])
def test_llm_faults_are_kept_exit_3_and_retry_failed_fixes_them(command, tmp_path):
    data, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    command.write_input(data, 8)
    with FakeLLMServer() as server:
        server.script(FAULTS)
        server.responder = command.reply
        broken = subprocess.run(_argv(command, data, out, server), cwd=tmp_path, env=llm_environment(),
                                capture_output=True, text=True, timeout=120, check=False)
        assert broken.returncode == 3, broken.stderr
        assert "Traceback" not in broken.stderr and "--allow-failures" in broken.stderr
        rows = read_rows(out)
        failed = [row for row in rows if command.failed(row)]
        written = {row["id"] for row in rows}
        if command.name == "ground generate":
            assert len(written) == 3 and len(broken.stderr.split("failed")) > 1, "failed calls are reported"
        else:
            assert len(written) == 8 and failed, "every record is written, the failed ones marked"
            assert all(str(row).count("error") for row in failed)
        allowed = subprocess.run(_argv(command, data, out, server, "--allow-failures"), cwd=tmp_path,
                                 env=llm_environment(), capture_output=True, text=True, timeout=120, check=False)
        assert allowed.returncode == 0, allowed.stderr
        retried = subprocess.run([*_argv(command, data, out, server), "--retry-failed"], cwd=tmp_path,
                                 env=llm_environment(), capture_output=True, text=True, timeout=120, check=False)
    assert retried.returncode == 0, retried.stderr
    rows = read_rows(out)
    assert sorted(row["id"] for row in rows) == sorted({row["id"] for row in rows}) and len(rows) == 8
    assert not any(command.failed(row) for row in rows)
