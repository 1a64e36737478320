"""Tables out: a run result's to_pandas at the record level and at its items' level (claims, facts, citations,
knowledge sentences), checked cell by cell against the result rows; Parquet and CSV tables written and read back;
the tables page's example, run."""

from __future__ import annotations

import sys

import pandas as pd
import pytest

import factscope
from containment import SUPPORTED, UNSUPPORTED, ContainsChecker, SubstringPresence
from doc_examples import python_blocks, run_block
from factscope.conner.scores import KnowledgeScores, SentenceEvidence
from factscope.core.errors import InputError
from factscope.core.files.result_tables import table_rows, write_table
from factscope.core.files.tables import csv_records, parquet_records
from repo_paths import EXAMPLES


def _cells(column: pd.Series) -> list:
    """A column's values, a missing one (NaN in pandas) as None."""
    return [None if pd.isna(value) else value for value in column]


@pytest.fixture(scope="module")
def check_run():
    return factscope.check(EXAMPLES / "check.jsonl", extractor="sentences", checker=ContainsChecker())


def test_check_records_level_flattens_each_result_and_leaves_the_claims_to_their_level(check_run):
    table = check_run.to_pandas()
    rows = list(check_run.results)
    assert table["id"].tolist() == [row.id for row in rows]
    assert "claims" not in table.columns
    assert table["summary.claims"].tolist() == [len(row.claims) for row in rows]
    rates = [row.summary.hallucination_rate for row in rows]
    assert _cells(table["summary.hallucination_rate"]) == rates
    assert table["references"].tolist() == [row.references for row in rows]


def test_check_claims_level_has_a_row_per_claim_with_its_verdict(check_run):
    table = check_run.to_pandas("claims")
    claims = [(row.id, number, item) for row in check_run.results for number, item in enumerate(row.claims, 1)]
    assert len(table) == check_run.claims == len(claims) > 0
    assert list(zip(table["id"], table["claim"])) == [(id, number) for id, number, _ in claims]
    assert table["label"].tolist() == [item.verdict.label.value for _, _, item in claims]
    for (_, _, item), row in zip(claims, table.itertuples()):
        probs = SUPPORTED if item.verdict.label.value == "Entailment" else UNSUPPORTED
        assert (row.p_entailment, row.p_neutral, row.p_contradiction) == probs
        assert (row.text, row.evidence) == (item.claim.text, item.verdict.evidence)
    assert set(table["label"]) == {"Entailment", "Neutral"}  # both kinds of verdict are in the example
    spans = check_run.to_pandas("spans")
    for row in check_run.results:
        pieces = spans[spans["id"] == row.id]
        assert "".join(pieces["text"]) == row.response
        covered = {number for numbers in pieces["claims"] for number in numbers}
        assert covered == {n for n, item in enumerate(row.claims, 1) if item.claim.spans}
    with pytest.raises(InputError, match="no 'facts' level in CheckResult results; the levels are records, claims or spans"):
        check_run.to_pandas("facts")


def test_ground_attribute_and_knowledge_items_levels():
    ground = factscope.ground(
        EXAMPLES / "ground" / "original.json", responses=EXAMPLES / "ground" / "responses.jsonl",
        presence=SubstringPresence(), extractor="sentences",
    )
    facts = ground.to_pandas("facts")
    expected = [(row.id, side, judged.fact, judged.present) for row in ground.results
                for side, judged in [("response", j) for j in row.response_facts] + [("gold", j) for j in row.gold_facts]]
    assert list(zip(*(_cells(facts[name]) for name in ("id", "side", "text", "present")))) == expected
    assert {"precision", "recall", "f1"} <= set(ground.to_pandas().columns)

    attribution = factscope.attribute(EXAMPLES / "attribute" / "answers.jsonl", checker=ContainsChecker())
    citations = attribution.to_pandas("citations")
    expected = [(row.id, cited.qid, cited.relation, cited.value, cited.correct, cited.precise)
                for row in attribution.results for cited in row.citations]
    columns = ("id", "qid", "relation", "value", "correct", "precise")
    assert list(zip(*(_cells(citations[name]) for name in columns))) == expected
    assert citations["text"].iloc[0] == attribution.results[0].sentences[citations["sentence"].iloc[0]]

    scores = KnowledgeScores(id="k1", sentences=[
        SentenceEvidence(sentence="Billy Hill wrote it.", evidence="Written by Billy Hill.", probs=(0.1, 0.2, 0.7)),
        SentenceEvidence(sentence="Nobody checked this.", failed_checks=1),
    ])
    rows = list(table_rows([scores], KnowledgeScores, "sentences"))
    assert [(row["sentence"], row["label"], row["p_contradiction"], row["failed_checks"]) for row in rows] == [
        (1, "Contradiction", 0.7, 0), (2, None, None, 1)
    ]


def test_tables_written_as_csv_and_parquet_read_back_as_records(tmp_path):
    rows = [
        {"id": "a", "references": ["one", "two"], "summary.rate": 0.5, "metadata.pop": "high"},
        {"id": "b", "references": [], "summary.rate": None, "metadata.pop": 3},
    ]
    assert write_table(rows, tmp_path / "t.csv") == 2
    assert [record for _, record in csv_records(tmp_path / "t.csv")] == [
        {"id": "a", "references": ["one", "two"], "summary.rate": "0.5", "metadata.pop": "high"},
        {"id": "b", "references": [], "metadata.pop": "3"},
    ]
    write_table(rows, tmp_path / "t.parquet")
    back = [record for _, record in parquet_records(tmp_path / "t.parquet")]
    assert [record["references"] for record in back] == [["one", "two"], []]
    assert [record["metadata.pop"] for record in back] == ['"high"', "3"]  # text and a number: JSON text
    with pytest.raises(InputError, match="write tables to a .parquet or a .csv file"):
        write_table(rows, tmp_path / "t.xlsx")


def test_without_pandas_the_message_names_the_extra(check_run, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(InputError, match=r"pip install 'factscope\[tables\]'"):
        check_run.to_pandas()


def test_the_tables_page_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (block,) = python_blocks("guides/tables.md")
    claims = run_block(block, tmp_path)["per_claim"]
    assert isinstance(claims, pd.DataFrame) and claims["id"].tolist() == ["eiffel-1", "eiffel-1", "eiffel-2"]
    assert (tmp_path / "answers.parquet").is_file() and (tmp_path / "checked.jsonl").is_file()
