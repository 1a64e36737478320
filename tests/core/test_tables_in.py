"""Tables in: every system's entry point takes a pandas DataFrame and a datasets.Dataset, and reads Parquet and CSV
files, with the same records (and the same results) as from the shipped JSONL examples, and bad rows located by
file, row and column."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import datasets
import pandas as pd
import pytest

import factscope
from cli_entry import run_factscope
from containment import ContainsChecker, SubstringPresence
from factscope.conner.evaluator import KnowledgeEvaluator
from factscope.core.errors import InputError
from factscope.core.files import tables
from factscope.refchecker.data import CheckRecords
from repo_paths import EXAMPLES


def _dumped(run) -> list[dict]:
    return [row.model_dump() for row in run.results]


def _ground_records() -> list[dict]:
    """The shipped grounding example as generic records, each with its response and metadata."""
    seed = json.loads((EXAMPLES / "ground" / "original.json").read_text(encoding="utf-8"))
    metadata = json.loads((EXAMPLES / "ground" / "metadata.json").read_text(encoding="utf-8"))
    responses = {
        row["id"]: row["response"]
        for row in map(json.loads, (EXAMPLES / "ground" / "responses.jsonl").read_text(encoding="utf-8").splitlines())
    }
    return [
        {"id": key, "question": entry["qText"], "contexts": entry["context_list"], "gold_facts": entry["atomic_texts"],
         "answer": entry["answer"], "response": responses[key], **metadata[key]}
        for key, entry in seed.items()
    ]


def test_csv_cells_lists_as_json_empty_as_missing_and_bad_rows_located(tmp_path):
    path = tmp_path / "answers.csv"
    path.write_text(
        "id,question,response,references\n"
        'a,,Paris is in France.,"[""Paris is the capital of France."", ""It is on the Seine.""]"\n'
        "b,Where?,Lyon is in France.,Lyon is a city in France.\n"
        'c,"A question\nover two lines",,Some reference.\n'
        "d,,[NA] Nothing is known.,[not JSON]\n"
        "e,,Too many cells.,One reference.,extra\n",
        encoding="utf-8",
    )
    source = CheckRecords(path)
    records = {record.id: record for record in source}
    assert sorted(records) == ["a", "b", "d"]
    assert records["a"].references == ["Paris is the capital of France.", "It is on the Seine."]
    assert records["a"].question is None
    assert records["b"].references == ["Lyon is a city in France."]
    assert (records["d"].response, records["d"].references) == ("[NA] Nothing is known.", ["[not JSON]"])
    located = [(problem.path, problem.line, problem.field) for problem in source.problems]
    assert located == [(str(path), 4, "response"), (str(path), 7, None)]
    assert "5 cells, but the header names 4 columns" in str(source.problems[1])


def test_parquet_is_read_a_batch_at_a_time_with_rows_numbered_across_batches(tmp_path, monkeypatch):
    monkeypatch.setattr(tables, "PARQUET_BATCH_ROWS", 2)
    frame = pd.read_json(EXAMPLES / "check.jsonl", lines=True)
    frame.loc[4, "response"] = None
    path = tmp_path / "answers.parquet"
    frame.to_parquet(path)
    source = CheckRecords(path)
    assert [record.id for record in source] == [value for index, value in enumerate(frame["id"]) if index != 4]
    assert [(problem.line, problem.field) for problem in source.problems] == [(5, "response")]
    assert str(source.problems[0]).startswith(f"{path}:5: field 'response': missing")


def test_check_gives_the_same_results_from_jsonl_a_dataframe_a_dataset_parquet_and_csv(tmp_path):
    path = EXAMPLES / "check.jsonl"
    expected = _dumped(factscope.check(path, extractor="sentences", checker=ContainsChecker()))
    frame = pd.read_json(path, lines=True)
    frame.to_parquet(tmp_path / "check.parquet")
    written = frame.copy()
    written["references"] = [json.dumps(value) if isinstance(value, list) else "" for value in frame["references"]]
    written.to_csv(tmp_path / "check.csv", index=False)
    for source in (
        pd.read_parquet(tmp_path / "check.parquet"),  # list columns come back as NumPy arrays
        datasets.Dataset.from_pandas(frame),
        tmp_path / "check.parquet",
        tmp_path / "check.csv",
    ):
        run = factscope.check(source, extractor="sentences", checker=ContainsChecker())
        assert _dumped(run) == expected, type(source).__name__


def test_ground_attribute_and_knowledge_take_tables_as_they_take_files(tmp_path):
    generic = pd.DataFrame(_ground_records())
    from_file = factscope.ground(
        EXAMPLES / "ground" / "original.json", metadata=EXAMPLES / "ground" / "metadata.json",
        responses=EXAMPLES / "ground" / "responses.jsonl", presence=SubstringPresence(), extractor="sentences",
    )
    generic.to_parquet(tmp_path / "ground.parquet")
    for source in (generic, datasets.Dataset.from_pandas(generic), tmp_path / "ground.parquet"):
        run = factscope.ground(source, presence=SubstringPresence(), extractor="sentences")
        assert _dumped(run) == _dumped(from_file)

    answers = EXAMPLES / "attribute" / "answers.jsonl"
    expected = _dumped(factscope.attribute(answers, checker=ContainsChecker()))
    frame = pd.read_json(answers, lines=True)
    assert _dumped(factscope.attribute(frame, checker=ContainsChecker())) == expected
    assert _dumped(factscope.attribute(datasets.Dataset.from_pandas(frame), checker=ContainsChecker())) == expected

    knowledge = EXAMPLES / "knowledge" / "records.jsonl"
    expected = _dumped(factscope.knowledge(knowledge, evaluator=KnowledgeEvaluator()))
    frame = pd.read_json(knowledge, lines=True)
    frame.to_csv(tmp_path / "knowledge.csv", index=False)
    for source in (frame, tmp_path / "knowledge.csv"):
        assert _dumped(factscope.knowledge(source, evaluator=KnowledgeEvaluator())) == expected


def test_a_bad_row_of_a_table_names_the_table_the_row_and_the_column():
    frame = pd.DataFrame({"id": ["a", "b"], "response": ["Paris is in France.", float("nan")],
                          "references": [["Paris is in France."], ["Lyon is in France."]]})
    with pytest.raises(InputError, match=r"^<DataFrame>:2: field 'response': missing"):
        factscope.check(frame, extractor="sentences", checker=ContainsChecker())
    dataset = datasets.Dataset.from_dict({"id": ["a", "b"], "query": ["Who?", None], "knowledge": ["A.", "B."]})
    with pytest.raises(InputError, match=r"^<Dataset>:2: field 'query': missing"):
        factscope.knowledge(dataset, evaluator=KnowledgeEvaluator())


def test_without_pyarrow_reading_parquet_names_the_extra(tmp_path, monkeypatch):
    path = tmp_path / "answers.parquet"
    pd.read_json(EXAMPLES / "check.jsonl", lines=True).to_parquet(path)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(InputError, match=r"pip install 'factscope\[tables\]'"):
        list(CheckRecords(path))


def test_the_ray_engine_refuses_a_table_file_before_any_work(tmp_path, monkeypatch, capsys):
    path = tmp_path / "answers.csv"
    pd.read_json(EXAMPLES / "check.jsonl", lines=True).to_csv(path, index=False)
    ran = run_factscope(monkeypatch, capsys, "check", str(path), "--engine", "ray", "-o", str(tmp_path / "out"))
    assert ran.code == 2 and "--engine ray reads JSON / JSONL records" in ran.text and str(path) in ran.text
    assert not (tmp_path / "out").exists()


def test_a_csv_row_over_the_record_limit_is_skipped_and_the_next_read(tmp_path, monkeypatch):
    monkeypatch.setenv("FACTSCOPE_MAX_RECORD_BYTES", "200")
    path = tmp_path / "answers.csv"
    path.write_text(
        "id,response,references\n"
        "a,Paris is in France.,Paris is in France.\n"
        f"b,{'x' * 300},Paris is in France.\n"
        'c,"Nice is\nin France.",Nice is in France.\n',
        encoding="utf-8",
    )
    read = list(tables.csv_records(path))
    assert [(line, item["id"]) for line, item in read if isinstance(item, dict)] == [(2, "a"), (4, "c")]
    message = f"{path}:3: record of 320 bytes is over the limit of 200 bytes; raise FACTSCOPE_MAX_RECORD_BYTES or "
    assert [(line, str(item)) for line, item in read if isinstance(item, InputError)] == [
        (3, message + "split the record")
    ]


def _as_csv(source: Path, target: Path) -> Path:
    """A JSONL file written as CSV the way the guide says: lists and objects as JSON in their cells."""
    frame = pd.read_json(source, lines=True, dtype=False)
    for column in frame.columns:
        frame[column] = [json.dumps(value) if isinstance(value, (list, dict)) else value for value in frame[column]]
    frame.to_csv(target, index=False)
    return target


def test_the_other_inputs_read_csv_as_they_read_jsonl(tmp_path):
    from factscope.conner.agreement import read_human_ratings
    from factscope.grounding.data import read_presence_labels
    from factscope.kalma.data import read_questions
    from factscope.retrieve.corpus import Corpus

    labels = EXAMPLES / "ground" / "labels.jsonl"
    read = [item for _, item in read_presence_labels(_as_csv(labels, tmp_path / "labels.csv"))]
    assert read == [item for _, item in read_presence_labels(labels)] and read  # true / false cells as flags
    ratings = EXAMPLES / "knowledge" / "human.jsonl"
    assert read_human_ratings(_as_csv(ratings, tmp_path / "human.csv")) == read_human_ratings(ratings)
    corpus = EXAMPLES / "knowledge" / "corpus.jsonl"
    assert Corpus.from_path(_as_csv(corpus, tmp_path / "corpus.csv")).documents == Corpus.from_path(corpus).documents
    questions = EXAMPLES / "attribute" / "questions.jsonl"
    read = [item for _, item in read_questions(_as_csv(questions, tmp_path / "questions.csv"))]
    assert read == [item for _, item in read_questions(questions)] and read
