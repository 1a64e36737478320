"""RefChecker's own data files: benchmark records read as is, what file names say, and the rule for records
without references in `factscope check`."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from cli_entry import run_factscope
from factscope.refchecker.annotations import load_reference_records
from factscope.refchecker.data import load_check_records
from factscope.refchecker.file_names import read_file_name

# The shapes RefChecker's benchmark_data/gather_benchmark_data.py writes, one per dataset.
NQ = {
    "id": "-4073418639113603971",
    "question": "who sang i dig rock and roll music",
    "context": ["`` I Dig Rock and Roll Music '' is a 1967 song by the American folk group Peter , Paul and Mary ."],
    "short_answers": ["Peter , Paul and Mary"],
}
MSMARCO = {
    "id": "1048585",
    "question": "what is paula deen's brother",
    "context": ["Paula Deen and her brother Earl W. Bubba Hiers are being sued.", "Bubba Hiers runs a restaurant."],
    "query_type": "PERSON",
    "answers": ["Earl W. Hiers"],
    "wellFormedAnswers": [],
    "context_is_selected": [1, 0],
    "context_ur": ["https://example.org/a", "https://example.org/b"],
}
DOLLY = {
    "id": "12",
    "question": "Summarize the passage.",
    "context": ["The Nile flows north through eleven countries."],
    "category": "summarization",
    "human_response": "The Nile flows north.",
}


def _write(path, rows):
    path.write_text(json.dumps(rows, indent=4), encoding="utf-8")
    return path


def test_benchmark_records_are_read_as_is_context_being_the_references(tmp_path):
    records, problems = load_reference_records(
        [_write(tmp_path / "nq.json", [NQ]), _write(tmp_path / "msmarco.json", [MSMARCO]),
         _write(tmp_path / "dolly.json", [{**DOLLY, "context": DOLLY["context"][0]}])]
    )
    assert not problems
    nq, msmarco, dolly = records
    assert (nq.id, nq.question, nq.references, nq.response) == (NQ["id"], NQ["question"], NQ["context"], "")
    assert msmarco.references == MSMARCO["context"] and msmarco.metadata["query_type"] == "PERSON"
    assert dolly.references == DOLLY["context"] and dolly.metadata["category"] == "summarization"
    assert [r.setting for r in records] == ["zero", "noisy", "accurate"]


def test_check_reads_benchmark_records_with_a_response_and_says_what_is_missing_without(tmp_path):
    records, problems = load_check_records(_write(tmp_path / "in.json", [{**MSMARCO, "response": "Earl."}, NQ]))
    assert [r.id for r in records] == [MSMARCO["id"]] and records[0].references == MSMARCO["context"]
    (problem,) = problems
    assert problem.field == "response" and "_answers.json" in problem.reason and "factscope agree" in problem.reason
    both, _ = load_check_records(_write(tmp_path / "both.json", [{**NQ, "response": "r", "references": ["mine"]}]))
    assert both[0].references == ["mine"]


@pytest.mark.parametrize(
    ("path", "model", "setting"),
    [
        ("gpt4_zero.json", "gpt4", "zero"),
        ("gpt4_noisy.jsonl", "gpt4", "noisy"),
        ("human_annotations_v1/zero_context/nq_gpt4_answers.json", "gpt4", "zero"),
        ("human_annotations_v1/noisy_context/msmarco_llama2_70b_chat_answers.json", "llama2_70b_chat", "noisy"),
        ("human_annotations_v1/accurate_context/dolly_alpaca_7B_answers.json", "alpaca_7B", "accurate"),
        ("data/accurate_context/accurate_context_mistral_answers.json", "mistral", "accurate"),
        ("claude2_Accurate.json", "claude2", "accurate"),
        ("noisy/gpt4.json", "gpt4", "noisy"),
        ("gpt4.json", "gpt4", None),
        ("data/zero_context/nq.json", "nq", "zero"),
    ],
)
def test_file_names_give_model_and_setting(path, model, setting):
    named = read_file_name(path)
    assert (named.model, named.setting) == (model, setting)



def test_check_stops_on_records_without_references_unless_allowed_or_retrieved(app, tmp_path, monkeypatch, capsys):
    rows = [{"id": "with", "response": "Ada wrote code.", "references": ["Ada wrote code."]},
            {"id": "bare", "response": "Ada wrote code."}]
    records = tmp_path / "in.jsonl"
    records.write_text("\n".join(json.dumps(row) for row in rows), encoding="utf-8")
    base = ["check", str(records), "--checker", "similarity"]
    runner = CliRunner()
    stopped = run_factscope(monkeypatch, capsys, *base, "-o", str(tmp_path / "a.jsonl"))
    assert stopped.code == 2 and not (tmp_path / "a.jsonl").exists()
    assert "1 record(s) have no references (bare)" in stopped.text
    assert "--allow-missing-references" in stopped.text and "--corpus" in stopped.text
    allowed = run_factscope(monkeypatch, capsys, *base, "-o", str(tmp_path / "b.jsonl"), "--allow-missing-references")
    assert allowed.code == 0 and "warning" in allowed.text
    labels = {json.loads(line)["id"]: json.loads(line)["claims"] for line in (tmp_path / "b.jsonl").open()}
    assert {c["verdict"]["label"] for c in labels["bare"]} == {"Neutral"}
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "d1", "text": "Ada wrote code."}) + "\n", encoding="utf-8")
    retrieved = runner.invoke(app, [*base, "-o", str(tmp_path / "c.jsonl"), "--corpus", str(corpus)])
    assert retrieved.exit_code == 0 and "no references" not in retrieved.output
