"""`factscope check` end to end: offline and with a fake LLM, bad input, resume without duplicates."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli_entry import run_factscope
from factscope import check
from factscope.checkers.registry import make_checker
from factscope.claims.registry import make_extractor
from factscope.core.schema import Label
from factscope.llm.client import LLMClient, LLMConfig
from factscope.refchecker.data import load_check_records
from repo_paths import EXAMPLES

RECORDS = [
    {
        "id": "r1",
        "question": "Who created Python?",
        "response": "Python was created by James Gosling. It was first released in 1991.",
        "references": ["Python was created by Guido van Rossum and first released in 1991."],
        "setting": "accurate",
    },
    {"id": "r2", "question": "Tell me about the moon.", "response": "I cannot answer that.", "references": ["The Moon orbits Earth."]},
]


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    return path


def _fake_replies(request: dict) -> str:
    """Extraction gets two triplets for Python's response, none for the refusal; checks answer by claim."""
    prompt = request["messages"][-1]["content"]
    if "Now the response to turn into triplets" in prompt:
        if "James Gosling" in prompt:
            return json.dumps(
                {"claims": [
                    {"triplet": ["Python", "created by", "James Gosling"], "sentences": [1]},
                    {"triplet": ["Python", "first released in", "1991"], "sentences": [2]},
                ]}
            )
        return '{"claims": []}'
    claims = re.findall(r"^(\d+)\. (.*)$", prompt.split("### Claims:")[1].split("Answer with")[0], re.MULTILINE)
    labels = ["Contradiction" if "Gosling" in text else "Entailment" for _, text in claims]
    return "\n".join(f"{n}. {label}" for (n, _), label in zip(claims, labels))


def test_llm_extractor_and_llm_checker_through_the_task(fake_llm, tmp_path):
    fake_llm.responder = _fake_replies
    client = LLMClient(LLMConfig(base_url=fake_llm.base_url, model="fake", cache_path=None))
    records, problems = load_check_records(_write_jsonl(tmp_path / "in.jsonl", RECORDS))
    assert not problems
    run = check(
        records,
        extractor=make_extractor("llm", llm=client),
        checker=make_checker("llm", llm=client),
        output=tmp_path / "out.jsonl",
    )
    first, refusal = run.results
    assert [c.verdict.label for c in first.claims] == [Label.CONTRADICTION, Label.ENTAILMENT]
    assert first.claims[0].claim.spans[0].start == 0
    assert first.summary.strict == Label.CONTRADICTION
    assert refusal.summary.abstain and refusal.claims == []
    assert run.rates.abstain_rate == pytest.approx(0.5)
    assert run.rates.rates[Label.CONTRADICTION] == pytest.approx(0.5)


def test_unparsable_extraction_is_kept_raw_and_not_rated(fake_llm, tmp_path):
    fake_llm.script(["this is not json at all", "also not json"])
    client = LLMClient(LLMConfig(base_url=fake_llm.base_url, model="fake", cache_path=None, max_retries=0))
    records, _ = load_check_records(_write_jsonl(tmp_path / "in.jsonl", RECORDS[:1]))
    run = check(records, extractor=make_extractor("llm", llm=client), checker=make_checker("similarity"))
    result = run.results[0]
    assert result.extraction_failed and result.extraction_raw and result.summary is None
    assert run.extraction_failures == 1 and run.rates.answered == 0 and run.rates.rates is None


BAD_LINES = [
    '{"id": "ok1", "response": "Paris is the capital of France.", "references": ["Paris is the capital of France."]}',
    '{"id": "broken", "response": ',
    '{"id": "noresp", "references": ["x"]}',
    '{"id": "badref", "response": "x", "references": [1, 2]}',
    '{"id": "badsetting", "response": "x", "reference": "y", "setting": "sometimes"}',
    '{"id": "empty", "response": "", "reference": "Something."}',
]


def test_bad_records_are_reported_with_file_line_and_field_and_skipped(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(BAD_LINES) + "\n", encoding="utf-8")
    records, problems = load_check_records(path)
    assert [r.id for r in records] == ["ok1", "empty"]
    messages = [str(p) for p in problems]
    assert messages[0].startswith(f"{path}:2: broken JSON")
    assert messages[1] == f"{path}:3: field 'response': missing"
    assert "field 'references.0'" in messages[2] and ":4:" in messages[2]
    assert "field 'setting'" in messages[3] and ":5:" in messages[3]


def test_non_utf8_empty_and_huge_inputs(tmp_path):
    from factscope.core.errors import InputError

    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"response": "ok"}\n{"response": "caf\xe9"}\n')
    with pytest.raises(InputError, match=r"latin.jsonl:2: not valid UTF-8"):
        load_check_records(latin)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(InputError, match="file is empty"):
        load_check_records(empty)
    huge = _write_jsonl(tmp_path / "huge.jsonl", [{"id": "big", "response": "x", "reference": "word " * 2_100_000}])
    records, problems = load_check_records(huge)
    assert not records and "over the limit" in str(problems[0]) and "`max_reference_chars`" in str(problems[0])


def test_ids_are_stable_and_unique():
    from factscope.refchecker.data import parse_record

    item = {"response": "a", "reference": "b"}
    assert parse_record(item, path="f", line=1).id == parse_record(dict(item), path="g", line=9).id


def test_cli_offline_on_the_shipped_example_resumes_without_duplicates(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    output = tmp_path / "checked.jsonl"
    first = run_factscope(monkeypatch, capsys, "check", str(EXAMPLES / "check.jsonl"), "-o", str(output),
                          "--summary", str(tmp_path / "s.json"))
    assert first.code == 0, first.err
    rows = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids)) == 6
    labels = {c["verdict"]["label"] for row in rows for c in row["claims"]}
    assert labels <= {"Entailment", "Neutral", "Contradiction"} and "Entailment" in labels
    refusal = next(row for row in rows if row["id"] == "zc-refusal")
    assert refusal["summary"]["abstain"] is True
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["rates"]["abstain_rate"] == pytest.approx(1 / 6)
    # simulate a killed run: drop the last two results and leave a torn line
    lines = output.read_text(encoding="utf-8").splitlines()
    output.write_text("\n".join(lines[:4]) + "\n" + lines[4][:30], encoding="utf-8")
    second = run_factscope(monkeypatch, capsys, "check", str(EXAMPLES / "check.jsonl"), "-o", str(output))
    assert second.code == 0, second.err
    assert "2 / 4" in second.out and "2 to do" in second.err
    again = [json.loads(line)["id"] for line in output.read_text(encoding="utf-8").splitlines()]
    assert sorted(again) == sorted(ids)


def test_a_check_at_80_columns_shows_whole_headers_and_then_the_report_command(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("COLUMNS", "80")
    output = tmp_path / "my checks.jsonl"
    ran = run_factscope(monkeypatch, capsys, "check", str(EXAMPLES / "check.jsonl"), "-o", str(output),
                        "--extractor", "sentences", "--checker", "similarity")
    assert ran.code == 0, ran.err
    header = next(line for line in ran.out.splitlines() if "setting" in line)
    assert header.split() == ["setting", "┃", "responses", "┃", "E", "┃", "N", "┃", "C", "┃", "halluc.", "┃",
                              "abstained", "┃", "abstain"]
    assert max(len(line) for line in ran.out.splitlines()) <= 80
    assert f"next: the results are in {output}; see them as a page: factscope report '{output}'" in ran.text


def test_cli_errors_are_clear(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    missing = run_factscope(monkeypatch, capsys, "check", str(tmp_path / "nope.jsonl"))
    assert missing.code == 2 and "file not found" in missing.err and "Traceback" not in missing.err
    records = _write_jsonl(tmp_path / "in.jsonl", RECORDS)
    no_llm = run_factscope(monkeypatch, capsys, "check", str(records), "--extractor", "llm")
    assert no_llm.code == 2 and "--llm-base-url" in no_llm.err
    help_text = run_factscope(monkeypatch, capsys, "check", "--help")
    assert help_text.code == 0 and "Examples" in help_text.out


@pytest.mark.parametrize("spec, kind", [("rules", "triplet"), ("sentences", "sentence"), ("facts", "fact")])
def test_offline_extractor_specs(spec, kind):
    extraction = make_extractor(spec).extract(["Marie Curie was born in Warsaw."])[0]
    assert extraction.claims and {claim.kind for claim in extraction.claims} == {kind}


def test_python_api_accepts_dicts_and_objects():
    import factscope
    from factscope.core.schema import Verdict

    class AlwaysNeutral:
        name = "neutral"

        def check(self, tasks):
            return [Verdict(label=Label.NEUTRAL) for _ in tasks]

    run = factscope.check(RECORDS, checker=AlwaysNeutral())
    assert [r.id for r in run.results] == ["r1", "r2"]
    assert run.results[0].summary.strict == Label.NEUTRAL
    assert run.results[1].summary.abstain
