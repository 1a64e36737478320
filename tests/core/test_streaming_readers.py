"""The re-iterable input readers of attribute and knowledge: each pass reads the file afresh, bad records are skipped
and reported after a pass, and the Python API streams a file into a run whose results are read lazily."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import factscope
from factscope.conner.data import KnowledgeRecords
from factscope.core.errors import InputError
from factscope.core.runs.results import ResultRows
from factscope.core.schema import Label, Verdict
from factscope.kalma.answers import AnswerRecords, load_answers
from repo_paths import EXAMPLES


def _jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _answers(tmp_path: Path) -> Path:
    shipped = [json.loads(line) for line in (EXAMPLES / "attribute" / "answers.jsonl").read_text().splitlines()]
    good = shipped[0]
    return _jsonl(tmp_path / "answers.jsonl", [
        good,
        {**good, "id": "no-answer", "answer": None},
        dict(good),  # its id repeats the first one's
        {"id": "failed-1", "question": "q", "answer": None, "failed": True, "error": "timeout"},
        {**shipped[1], "id": "second"},
    ])


def test_answer_records_are_read_afresh_on_every_pass_and_report_what_they_skipped(tmp_path):
    path = _answers(tmp_path)
    answers = AnswerRecords(path)
    first = [record.id for record in answers]
    assert first == [json.loads(path.read_text().splitlines()[0])["id"], "second"]
    assert (answers.count, answers.failed_generations, len(answers.problems)) == (2, 1, 2)
    assert {problem.line for problem in answers.problems} == {2, 3}
    assert [record.id for record in answers] == first and len(answers.problems) == 2
    loaded = load_answers(path)
    assert [r.id for r in loaded.records] == first and loaded.failed_generations == 1 and len(loaded.problems) == 2


def test_answer_records_of_a_file_whose_every_record_fails_alike_raise_one_error(tmp_path):
    path = _jsonl(tmp_path / "answers.jsonl", [{"id": "a", "answer": "x"}, {"id": "b", "answer": "y"}])
    with pytest.raises(InputError, match="none of its 2 records"):
        list(AnswerRecords(path))


def test_knowledge_records_are_read_afresh_on_every_pass(tmp_path):
    shipped = (EXAMPLES / "knowledge" / "records.jsonl").read_text().splitlines()
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join([shipped[0], '{"id": "bad"}', shipped[1]]) + "\n", encoding="utf-8")
    records = KnowledgeRecords(path)
    ids = [record.id for record in records]
    assert len(ids) == 2 and len(records.problems) == 1 and records.problems[0].line == 2
    assert [record.id for record in records] == ids


class _EntailsWhenContained:
    name = "contains"

    def check(self, tasks):
        return [Verdict(label=Label.ENTAILMENT if t.claim.split(": ", 1)[-1] in t.references[0] else Label.NEUTRAL)
                for t in tasks]


def test_the_python_api_streams_an_answers_file_into_a_lazily_read_run(tmp_path):
    path = _answers(tmp_path)
    output = tmp_path / "scores.jsonl"
    run = factscope.attribute(path, checker=_EntailsWhenContained(), output=output, batch_size=1)
    assert isinstance(run.results, ResultRows) and run.results.path == output
    assert [row.id for row in run.results] == [record.id for record in AnswerRecords(path)]
    assert run.summary == factscope.attribute(path, checker=_EntailsWhenContained()).summary
