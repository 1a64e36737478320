"""`factscope export`: a results file as a Parquet or CSV table at each level, the same table to_pandas gives;
unreadable rows skipped and reported; a bad level or suffix refused with exit code 2."""

from __future__ import annotations

import pandas as pd
import pytest

import factscope
from cli_entry import run_factscope
from containment import ContainsChecker
from factscope.core.files.tables import csv_records, table_records
from repo_paths import EXAMPLES


def _plain(frame: pd.DataFrame) -> list[dict]:
    """A DataFrame's rows as plain Python, missing values left out (as factscope reads a table)."""
    return [record for _, record in table_records(frame)]


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    """A check run's results file, and the run."""
    output = tmp_path_factory.mktemp("export") / "checked.jsonl"
    run = factscope.check(EXAMPLES / "check.jsonl", extractor="sentences", checker=ContainsChecker(), output=output)
    return output, run


def test_export_to_parquet_gives_the_table_to_pandas_gives(checked, tmp_path, monkeypatch, capsys):
    results, run = checked
    ran = run_factscope(monkeypatch, capsys, "export", str(results), "-o", str(tmp_path / "records.parquet"))
    assert ran.code == 0, ran.text
    assert "rows written (records) 6" in ran.text
    assert _plain(pd.read_parquet(tmp_path / "records.parquet")) == _plain(run.to_pandas())

    ran = run_factscope(monkeypatch, capsys, "export", str(results), "-o", str(tmp_path / "claims.parquet"),
                        "--level", "claims")
    assert ran.code == 0, ran.text
    exported = _plain(pd.read_parquet(tmp_path / "claims.parquet"))
    assert len(exported) == run.claims and exported == _plain(run.to_pandas("claims"))


def test_export_to_csv_writes_lists_as_json_and_skips_unreadable_rows(checked, tmp_path, monkeypatch, capsys):
    results, run = checked
    damaged = tmp_path / "damaged.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines()
    damaged.write_text("\n".join([lines[0], '{"id": "x", "response": "r", "claims": "not a list"}', *lines[1:]]) + "\n",
                       encoding="utf-8")
    ran = run_factscope(monkeypatch, capsys, "export", str(damaged), "-o", str(tmp_path / "records.csv"))
    assert ran.code == 0, ran.text
    assert f"skipped {damaged}:2: field 'claims'" in ran.text
    rows = [record for _, record in csv_records(tmp_path / "records.csv")]
    assert [row["id"] for row in rows] == [row.id for row in run.results]
    assert [row["references"] for row in rows] == [row.references for row in run.results]


def test_a_level_the_system_lacks_or_an_unknown_suffix_is_refused(checked, tmp_path, monkeypatch, capsys):
    results, _ = checked
    ran = run_factscope(monkeypatch, capsys, "export", str(results), "-o", str(tmp_path / "t.csv"), "--level", "facts")
    assert ran.code == 2 and "no 'facts' level" in ran.text and "records, claims or spans" in ran.text
    ran = run_factscope(monkeypatch, capsys, "export", str(results), "-o", str(tmp_path / "t.xlsx"))
    assert ran.code == 2 and "write tables to a .parquet or a .csv file" in ran.text
    assert not (tmp_path / "t.csv").exists() and not (tmp_path / "t.xlsx").exists()
