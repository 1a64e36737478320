"""The offline scoring commands (ground, attribute score, knowledge score, agree) resume after SIGKILL, and the scorers with an LLM checker exit 3 on failed records.

Every test runs the real CLI in a subprocess, as tests/llm/test_retry_failed.py does for the LLM generation commands:
a run is killed with SIGKILL once its results file has rows, the same command is run again, and every record must
then be in the file exactly once with no torn line and the printed new / resumed counts adding up. Then
`agree`, `knowledge score` and `attribute score` with `--checker llm` against the fake server's faults must exit 3 (0 with
`--allow-failures`), and `--retry-failed` against a healthy server must clear the failures with no duplicate rows.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from cli_process import FAULTS, llm_environment, read_rows, write_jsonl
from fake_llm import FakeLLMServer
from repo_paths import EXAMPLES


def _copies(path: Path, n: int, prefix: str) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [{**rows[i % len(rows)], "id": f"{prefix}{i}"} for i in range(n)]


def _ground_input(folder: Path, n: int) -> list[str]:
    original = json.loads((EXAMPLES / "ground" / "original.json").read_text(encoding="utf-8"))
    responses = {json.loads(line)["id"]: json.loads(line)["response"]
                 for line in (EXAMPLES / "ground" / "responses.jsonl").read_text(encoding="utf-8").splitlines()}
    keys = list(original)
    data, answers = {}, []
    for i in range(n):
        key = keys[i % len(keys)]
        data[f"g{i}"] = {**original[key], "qId": f"g{i}"}
        answers.append({"id": f"g{i}", "response": responses.get(key, "Something happened.")})
    (folder / "data.json").write_text(json.dumps(data), encoding="utf-8")
    write_jsonl(folder / "responses.jsonl", answers)
    return [str(folder / "data.json"), "--responses", str(folder / "responses.jsonl")]


def _attribute_input(folder: Path, n: int) -> list[str]:
    write_jsonl(folder / "answers.jsonl", _copies(EXAMPLES / "attribute" / "answers.jsonl", n, "a"))
    return [str(folder / "answers.jsonl")]


def _knowledge_input(folder: Path, n: int) -> list[str]:
    write_jsonl(folder / "records.jsonl", _copies(EXAMPLES / "knowledge" / "records.jsonl", n, "k"))
    return [str(folder / "records.jsonl")]


@dataclass(frozen=True)
class _Scorer:
    name: str
    command: list[str]
    write_input: Callable[[Path, int], list[str]]
    options: list[str]
    records: int
    counts: str  # the summary line with "new / resumed"
    failed: Callable[[dict], bool] = lambda row: False


KNOWLEDGE_OPTIONS = ["--corpus", str(EXAMPLES / "knowledge" / "corpus.jsonl"), "--relevance-model", "bi-encoder",
                     "--coherence-model", "proxy", "--lm", "none", "--batch-size", "4"]

SCORERS = [
    _Scorer("ground", ["ground"], _ground_input, ["--presence", "bi", "--batch-size", "4"], 80,
            "records scored (new / resumed)"),
    # attribute score has no --batch-size (32 a batch) and the similarity checker is fast: many records
    _Scorer("attribute score", ["attribute", "score"], _attribute_input, ["--checker", "similarity"], 4000,
            "answers scored now / resumed"),
    _Scorer("knowledge score", ["knowledge", "score"], _knowledge_input, [*KNOWLEDGE_OPTIONS, "--checker",
                                                                          "similarity"], 80,
            "records scored (new / resumed)"),
    _Scorer("agree", ["agree"], lambda folder, n: _agree_input(folder, n),
            ["--mode", "checker", "--checker", "similarity"], 400, "responses (new / resumed)"),
]


def _argv(scorer: _Scorer, inputs: list[str], out: Path, *before: str, options: list[str] | None = None) -> list[str]:
    return [sys.executable, "-m", "factscope", *before, *scorer.command, *inputs, "-o", str(out),
            *(scorer.options if options is None else options)]


def _counts(stdout: str, label: str) -> tuple[int, int]:
    flat = " ".join(stdout.split())
    found = re.search(re.escape(label) + r"\s*│?\s*([\d,]+) / ([\d,]+)", flat)
    assert found, f"no {label!r} line in {stdout[-2000:]}"
    return int(found[1].replace(",", "")), int(found[2].replace(",", ""))


@pytest.mark.parametrize("scorer", SCORERS, ids=[s.name for s in SCORERS])
def test_a_killed_offline_scorer_resumes_with_every_record_once(scorer, tmp_path):
    out = tmp_path / "out.jsonl"
    inputs = scorer.write_input(tmp_path, scorer.records)
    env = {**llm_environment(), "COLUMNS": "200"}
    process = subprocess.Popen(_argv(scorer, inputs, out), cwd=tmp_path, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if out.exists() and out.stat().st_size:
            break
        time.sleep(0.005)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL, "the run was killed, not finished"
    text = out.read_text(encoding="utf-8")
    written = text.count("\n")  # a torn last line (no newline) is not a row
    assert 0 < written < scorer.records, "killed mid-run"
    rerun = subprocess.run(_argv(scorer, inputs, out), cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=120, check=False)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    ids = [row["id"] for row in read_rows(out)]
    assert len(ids) == scorer.records and len(set(ids)) == scorer.records, "every record exactly once"
    new, resumed = _counts(rerun.stdout, scorer.counts)
    assert new + resumed == scorer.records and resumed == written


def _entail(request: dict) -> str:
    return "Entailment"


def _knowledge_failed(row: dict) -> bool:
    """A failed evidence check of a sentence, or a validity whose every check failed."""
    return any(sentence["failed_checks"] for sentence in row["sentences"]) or "failed" in str(row["not_computed"])


def _attribute_failed(row: dict) -> bool:
    """A citation whose alignment check failed, or an undecided [NA] check."""
    return None in row["alignment"] or bool((row.get("na") or {}).get("undecided"))


def _agree_input(folder: Path, n: int) -> list[str]:
    """RefChecker human annotations of model gpt (two triplets a response) and the references by id."""
    human = [{"id": f"h{i}", "response": f"Town {i} was founded by Ada.", "gpt_response_kg": [
        {"triplet": [f"town {i}", "founded by", "Ada"], "human_label": "Entailment"},
        {"triplet": [f"town {i}", "located in", f"Region {i}"], "human_label": "Neutral"}]} for i in range(n)]
    (folder / "gpt.json").write_text(json.dumps(human), encoding="utf-8")
    write_jsonl(folder / "references.jsonl", [{"id": f"h{i}", "question": f"Who founded town {i}?",
                                               "reference": f"Town {i} was founded by Ada."} for i in range(n)])
    return [str(folder / "gpt.json"), "-i", str(folder / "references.jsonl")]


def _agree_failed(row: dict) -> bool:
    return any(triplet["verdict"]["failed"] for triplet in row["triplets"])


LLM_SCORERS = [
    _Scorer("agree", ["agree"], _agree_input, ["--mode", "checker", "--checker", "llm"], 8,
            "responses (new / resumed)", _agree_failed),
    _Scorer("knowledge score", ["knowledge", "score"], _knowledge_input,
            ["--corpus", str(EXAMPLES / "knowledge" / "corpus.jsonl"), "--relevance-model", "none",
             "--coherence-model", "none", "--lm", "none", "--checker", "llm"], 8, "records scored (new / resumed)",
            _knowledge_failed),
    _Scorer("attribute score", ["attribute", "score"], _attribute_input, ["--checker", "llm"], 8,
            "answers scored now / resumed", _attribute_failed),
]


@pytest.mark.parametrize("scorer", LLM_SCORERS, ids=[s.name for s in LLM_SCORERS])
def test_llm_checker_faults_exit_3_and_retry_failed_fixes_them(scorer, tmp_path):
    out = tmp_path / "out.jsonl"
    inputs = scorer.write_input(tmp_path, scorer.records)
    env = {**llm_environment(), "COLUMNS": "200"}
    with FakeLLMServer() as server:
        llm = ["--llm-base-url", server.base_url, "--llm-model", "fake", "--llm-cache", "off",
               "--llm-concurrency", "1"]
        server.script(FAULTS)
        server.responder = _entail
        broken = subprocess.run([*_argv(scorer, inputs, out), *llm], cwd=tmp_path, env=env,
                                capture_output=True, text=True, timeout=120, check=False)
        assert broken.returncode == 3, broken.stderr[-3000:]
        assert "Traceback" not in broken.stderr and "--allow-failures" in broken.stderr
        rows = read_rows(out)
        assert len({row["id"] for row in rows}) == len(rows) == scorer.records
        # the records are copies, so one failed call can fail the same check in several records
        failed = sum(scorer.failed(row) for row in rows)
        assert failed, "the failed records are marked"
        allowed = subprocess.run([*_argv(scorer, inputs, out, "--allow-failures"), *llm], cwd=tmp_path, env=env,
                                 capture_output=True, text=True, timeout=120, check=False)
        assert allowed.returncode == 0, allowed.stderr[-3000:]
        plain = subprocess.run([*_argv(scorer, inputs, out), *llm], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=120, check=False)
        assert plain.returncode == 3, "a plain rerun only resumes and still reports the failed records"
        retried = subprocess.run([*_argv(scorer, inputs, out), *llm, "--retry-failed"], cwd=tmp_path, env=env,
                                 capture_output=True, text=True, timeout=120, check=False)
    assert retried.returncode == 0, retried.stderr[-3000:]
    rows = read_rows(out)
    assert sorted(row["id"] for row in rows) == sorted({row["id"] for row in rows}) and len(rows) == scorer.records
    assert not any(scorer.failed(row) for row in rows)
    new, resumed = _counts(retried.stdout, scorer.counts)
    assert (new, resumed) == (failed, scorer.records - failed), "only the failed records are scored again"
