"""Every LLM path end to end against a real local endpoint: llama-cpp-python's server with the embedded
SmolLM2-135M-Instruct (the session's `local_llm` fixture, tests/support/local_llm.py), over real HTTP.

A 135M model answers briefly, often wrongly, and often not in the format asked for; these tests check what the
pipelines do with such replies (parsed, or kept raw and marked failed; reruns resumed; usage counted), never
what the model says. Replies are short (FACTSCOPE_LLM_MAX_TOKENS, and the commands' own limits) and the inputs
two records or fewer, so that the whole file stays within seconds on two cores.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from cli_entry import run_factscope
from factscope.core.schema import LABELS
from repo_paths import EXAMPLES

pytestmark = pytest.mark.timeout(600)

LABEL_NAMES = {label.value for label in LABELS}


@pytest.fixture
def endpoint(local_llm, monkeypatch):
    """The local server as the commands' endpoint (environment), no response cache, short replies, no retries."""
    from local_llm import MODEL_ALIAS

    settings = {"BASE_URL": local_llm.base_url, "MODEL": MODEL_ALIAS, "CACHE": "off", "MAX_TOKENS": "24",
                "MAX_RETRIES": "0", "TIMEOUT": "120", "CONCURRENCY": "1"}
    for name, value in settings.items():
        monkeypatch.setenv(f"FACTSCOPE_LLM_{name}", value)
    return local_llm


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _head(source: Path, target: Path, count: int, step: int = 1) -> Path:
    """The first ``count`` records of ``source`` (every ``step``-th one) in ``target``."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)[::step][:count]
    target.write_text("".join(lines), encoding="utf-8")
    return target


def _usage(text: str, row: str) -> int:
    """A whole-number row of a command's run table (``LLM prompt tokens`` ...)."""
    return int(text.split(row, 1)[1].split()[0].replace(",", ""))


def test_llm_claim_extraction_keeps_what_it_cannot_parse(endpoint, monkeypatch, capsys, tmp_path):
    records = _head(EXAMPLES / "check.jsonl", tmp_path / "one.jsonl", 1)
    out = tmp_path / "checked.jsonl"
    ran = run_factscope(monkeypatch, capsys, "--allow-failures", "check", str(records), "--extractor", "llm",
                        "--checker", "similarity", "-o", str(out))
    assert ran.code == 0, ran.text
    (row,) = _rows(out)
    if row["extraction_failed"]:
        assert row["claims"] == [] and row["extraction_error"] and row["extraction_raw"] is not None
    else:
        assert all(claim["claim"]["text"] for claim in row["claims"])
    assert _usage(ran.text, "LLM HTTP requests") == 1 and _usage(ran.text, "LLM prompt tokens") > 0


def test_llm_checker_labels_or_marks_failed_and_a_rerun_resumes(endpoint, monkeypatch, capsys, tmp_path):
    records = _head(EXAMPLES / "check.jsonl", tmp_path / "one.jsonl", 1)
    out = tmp_path / "checked.jsonl"
    args = ("--allow-failures", "check", str(records), "--extractor", "sentences", "--checker", "llm", "-o", str(out))
    ran = run_factscope(monkeypatch, capsys, *args)
    assert ran.code == 0, ran.text
    (row,) = _rows(out)
    assert row["claims"]
    for claim in row["claims"]:
        verdict = claim["verdict"]
        assert (verdict["label"] in LABEL_NAMES and not verdict["failed"]) or (verdict["failed"] and verdict["error"])
    assert _usage(ran.text, "LLM HTTP requests") >= 1 and _usage(ran.text, "LLM completion tokens") > 0
    again = run_factscope(monkeypatch, capsys, *args)
    assert again.code == 0, again.text
    assert "0 / 1" in again.text and _usage(again.text, "LLM HTTP requests") == 0
    assert _rows(out) == [row]


def test_geval_scores_or_counts_failures(endpoint, monkeypatch, capsys, tmp_path):
    answers = _head(EXAMPLES / "attribute" / "answers.jsonl", tmp_path / "answers.jsonl", 1)
    summary = tmp_path / "summary.json"
    ran = run_factscope(monkeypatch, capsys, "attribute", "score", str(answers), "--geval", "--summary", str(summary),
                        "-o", str(tmp_path / "scored.jsonl"))
    assert ran.code == 0, ran.text
    figures = json.loads(summary.read_text())["removed=0"]
    for aspect in ("coherence", "consistency", "fluency", "relevance"):
        scored = figures[aspect]
        assert scored is None or 1.0 <= scored <= 5.0
        assert (scored is None) == (figures[f"{aspect}_failed"] == 1)
    assert _usage(ran.text, "LLM HTTP requests") == 4


def test_attribute_generate_writes_each_answer_or_its_failure(endpoint, monkeypatch, capsys, tmp_path):
    questions = _head(EXAMPLES / "attribute" / "questions.jsonl", tmp_path / "questions.jsonl", 2)
    out = tmp_path / "answers.jsonl"
    ran = run_factscope(monkeypatch, capsys, "--allow-failures", "attribute", "generate", str(questions), "--graph",
                        str(EXAMPLES / "attribute" / "graph.jsonl"), "-o", str(out))
    assert ran.code == 0, ran.text
    rows = _rows(out)
    assert len(rows) == 2
    assert all((row["answer"] is not None and not row["failed"]) or (row["failed"] and row["error"]) for row in rows)
    assert _usage(ran.text, "LLM completion tokens") > 0


def test_knowledge_generate_with_answers(endpoint, monkeypatch, capsys, tmp_path):
    queries = _head(EXAMPLES / "knowledge" / "records.jsonl", tmp_path / "queries.jsonl", 2, step=2)  # two queries
    out = tmp_path / "generated.jsonl"
    ran = run_factscope(monkeypatch, capsys, "--allow-failures", "knowledge", "generate", str(queries), "--answer",
                        "-o", str(out))
    assert ran.code == 0, ran.text
    rows = _rows(out)
    assert len(rows) == 2
    for row in rows:
        assert (row["knowledge"] and not row["failed"]) or (row["failed"] and row["error"])
    assert _usage(ran.text, "LLM HTTP requests") == 4  # two knowledge texts, two answers


def test_ground_generate_then_a_rerun_sends_nothing(endpoint, monkeypatch, capsys, tmp_path):
    data = _head(EXAMPLES / "ground" / "records.jsonl", tmp_path / "ground.jsonl", 2)
    out = tmp_path / "responses.jsonl"
    args = ("ground", "generate", str(data), "-o", str(out), "--max-tokens", "16")
    ran = run_factscope(monkeypatch, capsys, *args)
    assert ran.code == 0, ran.text
    rows = _rows(out)
    assert [row["id"] for row in rows] == ["ex1", "ex2"] and all(isinstance(row["response"], str) for row in rows)
    assert _usage(ran.text, "LLM HTTP requests") == 2
    again = run_factscope(monkeypatch, capsys, *args)
    assert again.code == 0 and _usage(again.text, "LLM HTTP requests") == 0
    assert _rows(out) == rows


def test_knowledge_select_offline_with_the_embedded_lm(endpoint, tmp_path):
    """Selection by Q_know with every part offline: BM25 evidence, the embedded checker, the embedded LM (the
    default `--lm`), candidates sampled by the server (the Python API, to keep them short)."""
    from factscope.conner.data import KnowledgeRecord
    from factscope.conner.evaluator_setup import default_lm
    from factscope.conner.generation import GenerationSettings
    from factscope.conner.generation_run import KnowledgeGenerationSettings, KnowledgeWriter
    from factscope.conner.spec import KnowledgeSpec
    from factscope.llm.client import LLMClient
    from factscope.llm.config import LLMConfig

    assert default_lm(None) == "embedded"
    client = LLMClient(LLMConfig.resolve())
    scoring = KnowledgeSpec(corpus=EXAMPLES / "knowledge" / "corpus.jsonl", evidence_k=2, lm="embedded")
    settings = KnowledgeGenerationSettings(generation=GenerationSettings(candidates=2, max_tokens=32))
    record = KnowledgeRecord(id="q", query="who wrote the song the glory of love")
    out = tmp_path / "selected.jsonl"
    run = KnowledgeWriter(scoring).write(settings, [record], llm=client, output=out)
    (row,) = _rows(out)
    assert len(row["candidates"]) == 2 and run.failed == 0
    q_know = [candidate["q_know"] for candidate in row["candidates"]]
    assert all(value is not None for value in q_know), row
    assert row["selected"] == int(np.argmax(q_know)) and row["knowledge"] == row["candidates"][row["selected"]]["text"]
    assert client.usage.requests == 2 and client.usage.completion_tokens > 0


def test_lm_endpoint_scores_through_echoed_logprobs(endpoint, monkeypatch, capsys, tmp_path):
    records = tmp_path / "one.jsonl"
    records.write_text(json.dumps({"id": "a", "query": "who wrote it", "knowledge": "Billy Hill wrote it."}) + "\n")
    out = tmp_path / "scored.jsonl"
    ran = run_factscope(monkeypatch, capsys, "knowledge", "score", str(records), "-o", str(out), "--lm", "endpoint",
                        "--checker", "none", "--relevance-model", "none", "--coherence-model", "none")
    assert ran.code == 0, ran.text
    (row,) = _rows(out)
    assert 0.0 < row["coherence_sentence"] <= 1.0 and 0.0 <= row["informativeness"] <= 1.0
    assert not math.isnan(row["informativeness"])
    assert _usage(ran.text, "LLM HTTP requests") == 2 and _usage(ran.text, "LLM prompt tokens") > 0
