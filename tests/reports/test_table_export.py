"""``export_results``: a results file of any system as a table, with what was skipped and repeated on the way and
the figures `factscope export` prints."""

from __future__ import annotations

import pytest

import factscope
from containment import ContainsChecker
from factscope.core.errors import InputError
from factscope.core.files.tables import csv_records
from factscope.reports.table_export import export_results
from repo_paths import EXAMPLES


@pytest.fixture(scope="module")
def damaged(tmp_path_factory):
    """A check results file of the example records, its first row written twice and one unreadable row added;
    the ids of its records and its number of claims."""
    folder = tmp_path_factory.mktemp("table_export")
    output = folder / "checked.jsonl"
    run = factscope.check(EXAMPLES / "check.jsonl", extractor="sentences", checker=ContainsChecker(), output=output)
    ids, claims = [row.id for row in run.results], run.claims
    lines = output.read_text(encoding="utf-8").splitlines()
    broken = '{"id": "x", "response": "r", "claims": "not a list"}'
    output.write_text("\n".join([*lines, lines[0], broken]) + "\n", encoding="utf-8")
    return output, ids, claims


def test_the_table_holds_each_record_once_and_says_what_it_skipped(damaged, tmp_path):
    results, ids, _ = damaged
    exported = export_results(results, tmp_path / "records.csv")
    records = len(ids)
    assert exported.system.name == "check" and exported.records == records and exported.written == records
    assert [str(problem).split(": ")[0] for problem in exported.problems] == [f"{results}:{records + 2}"]
    assert len(exported.repeated) == 1 and "1 row repeats the record id of an earlier row" in exported.repeated[0]
    assert [row["id"] for _, row in csv_records(tmp_path / "records.csv")] == ids
    assert exported.summary_rows() == [
        ("results of", "factscope check"), ("records read", records), ("skipped rows", 1),
        ("rows written (records)", records), ("table", str(tmp_path / "records.csv")),
    ]


def test_the_item_level_writes_a_row_per_claim_and_a_level_the_system_lacks_is_refused(damaged, tmp_path):
    results, _, claims = damaged
    exported = export_results(results, tmp_path / "claims.csv", "claims")
    assert exported.written == claims and exported.summary_rows()[3] == ("rows written (claims)", claims)
    with pytest.raises(InputError, match="no 'facts' level"):
        export_results(results, tmp_path / "facts.csv", "facts")
