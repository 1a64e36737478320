"""LLM faults in the three LLM commands that tests/llm/test_retry_failed.py does not cover: `check --extractor llm`,
`ground score --extractor llm-facts` and `attribute score --geval`, run as the real CLI against the fake server.

Each injected fault (500, 429, a hang past the timeout, malformed and truncated JSON) is aimed at the calls the
command's option adds (extraction, fact decomposition, G-Eval); every record is then accounted for (written, the
failed ones with their error and the raw reply where there was one), the run exits 3, 0 with --allow-failures,
and --retry-failed against a healthy server fixes them without duplicates.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cli_process import FAULTS, llm_environment, read_rows, write_jsonl
from fake_llm import FakeLLMServer, Reply
from repo_paths import EXAMPLES


@dataclass(frozen=True)
class _Command:
    name: str
    args: Callable[[Path, Path], list[str]]
    write_input: Callable[[Path], None]
    targeted: Callable[[str], bool]
    """True for a request of the kind the faults are aimed at (the request's JSON text)."""
    reply: Callable[[str], str]
    failed: Callable[[dict], bool]
    error_and_raw: Callable[[dict], tuple[Any, Any]]
    records: int


def _geval_failed(row: dict) -> bool:
    return any(score["failed"] for score in (row.get("geval") or {}).values())


def _geval_error(row: dict) -> tuple[Any, Any]:
    """A failed G-Eval score keeps its reason in ``error`` and the reply as it came in ``raw``."""
    failed = [score for score in row["geval"].values() if score["failed"]]
    return failed[0]["error"], "\n".join(score["raw"] for score in failed if score["raw"])


COMMANDS = [
    _Command(
        "check --extractor llm",
        lambda data, out: ["check", str(data), "-o", str(out), "--extractor", "llm", "--checker", "llm",
                           "--llm-check-mode", "single", "--batch-size", "4"],
        lambda path: write_jsonl(path, [{"id": f"c{i}", "response": f"Paris is the capital of France number {i}.",
                                         "references": ["Paris is the capital of France."]} for i in range(8)]),
        lambda request: "Entailment" not in request,
        lambda request: "Entailment" if "Entailment" in request else '[["Paris", "is the capital of", "France"]]',
        lambda row: bool(row["extraction_failed"]) or any(c["verdict"]["failed"] for c in row["claims"]),
        lambda row: (row["extraction_error"], row["extraction_raw"]),
        8,
    ),
    _Command(
        "ground score --extractor llm-facts",
        lambda data, out: ["ground", "score", str(data), "-o", str(out), "--extractor", "llm-facts",
                           "--batch-size", "4"],
        lambda path: write_jsonl(path, [{"id": f"g{i}", "question": f"Who founded town {i}?",
                                         "contexts": [f"Town {i} was founded by Ada."],
                                         "gold_facts": ["Ada founded the town."],
                                         "response": f"Ada founded town {i}. It is old."} for i in range(8)]),
        lambda request: True,
        lambda request: "Fact 1: Ada founded the town.",
        lambda row: bool(row["failed"]),
        lambda row: (row["error"], row["raw"]),
        8,
    ),
    _Command(
        "attribute score --geval",
        lambda data, out: ["attribute", "score", str(data), "-o", str(out), "--geval", "--checker", "llm"],
        lambda path: shutil.copyfile(EXAMPLES / "attribute" / "answers.jsonl", path),
        lambda request: "Entailment" not in request,
        lambda request: "Entailment" if "Entailment" in request else "4",
        _geval_failed,
        _geval_error,
        4,
    ),
]


class _Faults:
    """A responder that answers the first targeted requests with the scripted faults, everything else healthily."""

    def __init__(self, command: _Command) -> None:
        self.command = command
        self.left: list[Reply] = list(FAULTS)
        self.hit = 0

    def __call__(self, request: dict) -> Reply:
        text = json.dumps(request)
        if self.left and self.command.targeted(text):
            self.hit += 1
            return self.left.pop(0)
        return self.command.reply(text)


HEALTHY_TIMEOUT = 30.0
"""The LLM timeout of the runs after the faults are spent: no call hangs any more, so only a loaded machine could
make a healthy call slow, and that must not fail the run."""


def _run(command: _Command, data: Path, out: Path, server: FakeLLMServer, *before: str, after: tuple[str, ...] = (),
         timeout: float = 1.0) -> subprocess.CompletedProcess[str]:
    llm = ["--llm-base-url", server.base_url, "--llm-model", "fake", "--llm-cache", "off"]
    argv = [sys.executable, "-m", "factscope", *before, *command.args(data, out), *llm, *after]
    return subprocess.run(argv, cwd=out.parent, env=llm_environment(timeout), capture_output=True, text=True,
                          timeout=180, check=False)


@pytest.mark.parametrize("command", COMMANDS, ids=[c.name for c in COMMANDS])
def test_llm_option_faults_are_kept_exit_3_and_retry_failed_fixes_them(command, tmp_path):
    data, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    command.write_input(data)
    with FakeLLMServer() as server:
        faults = _Faults(command)
        server.responder = faults
        broken = _run(command, data, out, server)
        assert faults.hit == len(FAULTS), "every fault reached the calls the option adds"
        assert broken.returncode == 3, broken.stderr
        assert "Traceback" not in broken.stderr and "--allow-failures" in broken.stderr
        rows = read_rows(out)
        assert sorted(row["id"] for row in rows) == sorted({row["id"] for row in rows})
        assert len(rows) == command.records, "every record is written, the failed ones marked"
        failed = [row for row in rows if command.failed(row)]
        assert failed, "the faults left failed records"
        kept = [command.error_and_raw(row) for row in failed]
        assert any(raw for _, raw in kept), "a reply that came is kept"
        assert all(error for error, _ in kept), "each failed record keeps its error"
        raws = [raw for _, raw in kept if raw]
        assert not raws or any("not json at all" in raw for raw in raws), "a malformed reply is kept as it came"
        allowed = _run(command, data, out, server, "--allow-failures", timeout=HEALTHY_TIMEOUT)
        assert allowed.returncode == 0, allowed.stderr
        assert len(read_rows(out)) == command.records, "an accepted partial run adds nothing"
        retried = _run(command, data, out, server, after=("--retry-failed",), timeout=HEALTHY_TIMEOUT)
    assert retried.returncode == 0, retried.stderr
    rows = read_rows(out)
    assert sorted(row["id"] for row in rows) == sorted({row["id"] for row in rows})
    assert len(rows) == command.records
    assert not any(command.failed(row) for row in rows)
