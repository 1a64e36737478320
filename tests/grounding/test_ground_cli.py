"""`factscope ground` end to end, offline: default scoring (spaCy facts + packaged MiniLM), resume, LLM facts and
generation on the fake server, the Dist setting, calibration, and bad input."""

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import repo_paths
from command_line import command_line
from factscope.cli import ground

DATA = repo_paths.DATA / "ground"
LLM = ["--llm-model", "fake", "--llm-cache", "off"]


@pytest.fixture(scope="module")
def app():
    return command_line(ground)


def _run(app, *args):
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    return result


def _rows(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def test_default_scoring_offline_writes_results_and_resumes(app, tmp_path):
    out = tmp_path / "out.jsonl"
    args = [
        "ground",
        DATA / "original.json",
        "--metadata",
        DATA / "metadata.json",
        "--responses",
        DATA / "responses.jsonl",
        "-o",
        out,
        "--summary",
        tmp_path / "summary.json",
    ]
    result = _run(app, *args)
    assert result.exit_code == 0, result.output
    rows = _rows(out)
    assert [r["id"] for r in rows] == ["q1", "q2", "q3"]
    q3 = rows[2]
    # "The Lenne flows through Corvel and Astry." gives facts present in the two contexts; both gold facts found
    assert q3["recall"] == 1.0 and q3["answer_correct"] is True and q3["metadata"]["has_multi"] is True
    assert all(0.0 <= r["f1"] <= 1.0 for r in rows)
    assert "grounding" in result.output and "definite" in result.output and "free-form" in result.output
    figures = json.loads((tmp_path / "summary.json").read_text())
    assert figures["records"] == 3 and figures["failed"] == 0
    assert figures["overall"]["f1"] == pytest.approx(sum(r["f1"] for r in rows) / 3)
    assert [b["factor"] for b in figures["by_factor"]] == ["pop", "has_multi", "has_answer"]
    again = _run(app, *args)
    assert again.exit_code == 0 and len(_rows(out)) == 3
    assert "0 / 3" in again.output


def test_llm_facts_and_generation_with_distractors_on_the_fake_server(app, tmp_path, fake_llm, monkeypatch):
    monkeypatch.setenv("FACTSCOPE_LLM_BASE_URL", fake_llm.base_url)

    def reply(request):
        content = request["messages"][-1]["content"]
        if content.rstrip().endswith("Answer:"):
            return "The Lenne flows through Corvel." if "Corvel" in content else "I do not know."
        sentence = re.findall(r"^Sentence: (.*)$", content, re.MULTILINE)[-1]
        return "Fact 1: " + sentence

    fake_llm.responder = reply
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "\n".join(
            json.dumps(d)
            for d in [
                {
                    "id": "corvel",
                    "title": "Corvel",
                    "text": "Corvel is a market town. The Lenne flows through Corvel.",
                },
                {
                    "id": "lenne",
                    "title": "Lenne",
                    "text": "The Lenne is a river that flows through Corvel to the sea.",
                },
                {"id": "owls", "title": "Owls", "text": "Owls hunt at dusk."},
            ]
        )
        + "\n"
    )
    responses = tmp_path / "responses.jsonl"
    result = _run(
        app,
        "ground",
        "generate",
        DATA / "original.json",
        "-o",
        responses,
        "--corpus",
        corpus,
        "--retriever",
        "bm25",
        "--budget",
        "100",
        "--gold-position",
        "end",
        *LLM,
    )
    assert result.exit_code == 0, result.output
    rows = {r["id"]: r for r in _rows(responses)}
    assert set(rows) == {"q1", "q2", "q3"}
    q3_contexts = rows["q3"]["contexts"]
    assert q3_contexts[-2:] == json.loads((DATA / "original.json").read_text())["q3"]["context_list"]
    assert any(c.startswith("Title: Lenne") for c in q3_contexts[:-2])
    assert not any(c.startswith("Title: Corvel \n\n Corvel is a market") for c in q3_contexts[:-2])
    requests = len(fake_llm.requests)
    same = ["--corpus", corpus, "--retriever", "bm25", "--budget", "100", "--gold-position", "end"]
    assert _run(app, "ground", "generate", DATA / "original.json", "-o", responses, *same, *LLM).exit_code == 0
    assert len(fake_llm.requests) == requests and len(_rows(responses)) == 3
    from factscope.core.files.manifest import ResultsMismatch

    with pytest.raises(ResultsMismatch, match="input 'records'"):
        _run(app, "ground", "generate", DATA / "original.json", "-o", responses, *LLM)
    assert len(fake_llm.requests) == requests and len(_rows(responses)) == 3

    out = tmp_path / "scored.jsonl"
    result = _run(
        app,
        "ground",
        DATA / "original.json",
        "--responses",
        responses,
        "-o",
        out,
        "--extractor",
        "llm",
        "--presence",
        "bi",
        "--threshold",
        "0.9",
        *LLM,
    )
    assert result.exit_code == 0, result.output
    scored = {r["id"]: r for r in _rows(out)}
    assert [f["fact"] for f in scored["q3"]["response_facts"]] == ["The Lenne flows through Corvel."]
    # "flows through Astry" is missing from the response: MiniLM cosine 0.82 against "flows through Corvel" (same
    # topic), above the paper's 0.4 but below the 0.9 asked for here, so recall is 1/2
    assert scored["q3"]["recall"] == 0.5
    assert scored["q3"]["gold_facts"][0]["score"] > 0.99 > scored["q3"]["gold_facts"][1]["score"]


def test_calibrate_reports_the_best_threshold(app, tmp_path):
    labels = tmp_path / "labels.jsonl"
    context = "The Harbour Line tramway was opened in 1894. It ran along the quay of Port Elsby."
    items = [
        {"fact": "The Harbour Line tramway opened in 1894.", "text": context, "present": True},
        {"fact": "The tramway ran along the quay.", "text": context, "present": 1},
        {"fact": "Penguins live in Antarctica.", "text": context, "present": False},
        {"fact": "The tramway was built by a French company.", "text": context, "present": 0},
        {"fact": "broken", "present": True},
    ]
    labels.write_text("\n".join(json.dumps(i) for i in items) + "\n")
    result = _run(app, "ground", "calibrate", labels, "--statistic", "accuracy")
    assert result.exit_code == 0, result.output
    assert "labels.jsonl:5:" in result.output and "field 'text'" in result.output
    figures = json.loads(result.output.strip().splitlines()[-1])
    assert figures["accuracy"] == 1.0


def test_bad_input_is_reported_and_skipped(app, tmp_path):
    data = tmp_path / "broken.json"
    shutil.copy(DATA / "broken.json", data)
    responses = tmp_path / "responses.jsonl"
    responses.write_text(
        json.dumps({"id": "c", "response": "C is here."}) + "\n" + json.dumps({"id": "nope"}) + "\n"
    )
    out = tmp_path / "out.jsonl"
    result = _run(
        app,
        "ground",
        data,
        "--metadata",
        DATA / "metadata_mismatch.json",
        "--responses",
        responses,
        "-o",
        out,
    )
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "field 'atomic_texts'" in text and "match no question: zz" in text and "field 'response'" in text
    assert [r["id"] for r in _rows(out)] == ["c"]
    refused = _run(app, "ground", data, "--no-gold-facts", "maybe")
    assert refused.exit_code == 2 and "'skip', 'zero'" in " ".join(refused.output.split())


def test_generate_skips_failed_calls_and_a_rerun_retries_only_them(app, tmp_path, fake_llm, monkeypatch):
    from factscope.core.errors import RecordsFailed
    from fake_llm import Fail

    monkeypatch.setenv("FACTSCOPE_LLM_BASE_URL", fake_llm.base_url)
    config = tmp_path / "config.toml"
    config.write_text("[llm]\nmax_retries = 0\nconcurrency = 1\n")
    fake_llm.script([Fail(500)])
    fake_llm.responder = lambda request: "An answer."
    out = tmp_path / "responses.jsonl"
    args = ["ground", "generate", DATA / "original.json", "-o", out, "--llm-config", config, *LLM]
    with pytest.raises(RecordsFailed) as failed:
        _run(app, *args)
    assert failed.value.count == 1 and len(_rows(out)) == 2
    before = len(fake_llm.requests)
    second = _run(app, *args)
    assert second.exit_code == 0, second.output
    assert len(fake_llm.requests) - before == 1
    assert sorted(r["id"] for r in _rows(out)) == ["q1", "q2", "q3"]
