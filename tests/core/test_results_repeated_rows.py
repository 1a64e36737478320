"""A results file that repeats record ids (written by two runs at once, before results files were locked):
every reader keeps the first row of each id and warns once with the count; and the faults of the disk are
StorageErrors that name the file, the cause and what is intact, for the results file and the LLM cache."""

from __future__ import annotations

import errno
import json
import warnings

import pytest
from pydantic import BaseModel

import factscope
from containment import ContainsChecker
from factscope.core.files.results_file import ResultWriter
from factscope.core.files.storage_faults import StorageError, storage_fault
from factscope.core.runs.results import FirstRows, RepeatedRecords, ResultRows
from factscope.llm.cache import ResponseCache
from repo_paths import EXAMPLES


class Row(BaseModel):
    id: str


def _repeat(path, count):
    """Append changed copies of the first ``count`` rows of ``path``, as a second run writing it at once would."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    with path.open("a", encoding="utf-8") as handle:
        for row in rows[:count]:
            handle.write(json.dumps({**row, "metadata": {"copy": "later"}}) + "\n")
    return [row["id"] for row in rows]


def test_first_rows_keeps_the_first_of_each_id_and_counts_the_later_ones():
    first = FirstRows()
    kept = [row for row in ({"id": "a", "n": 1}, {"id": "b"}, {"id": "a", "n": 2}, {"n": 3}, {"id": "a"})
            if first.keep(row)]
    assert kept == [{"id": "a", "n": 1}, {"id": "b"}, {"n": 3}]
    assert first.repeated == 2


def test_a_resumed_api_run_and_its_table_hold_one_row_per_record_with_one_warning(tmp_path):
    out = tmp_path / "out.jsonl"
    first = factscope.check(EXAMPLES / "check.jsonl", extractor="sentences", checker=ContainsChecker(), output=out)
    ids = _repeat(out, 3)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        again = factscope.check(EXAMPLES / "check.jsonl", extractor="sentences", checker=ContainsChecker(),
                                output=out)
        table = again.to_pandas()
        listed = list(again.results)
    repeated = [str(w.message) for w in said if issubclass(w.category, RepeatedRecords)]
    assert len(repeated) == 2, "one warning for the run's summary, one for its rows, read twice"
    assert all("3 rows repeat the record id of an earlier row" in message for message in repeated)
    assert (again.new_records, again.resumed_records) == (0, len(ids))
    assert again.rates == first.rates and again.claims == first.claims
    assert table["id"].tolist() == ids
    assert [row.id for row in listed] == ids and len(again.results) == len(ids)
    assert all(row.metadata.get("copy") != "later" for row in listed), "the first row of each id is kept"


def test_result_rows_of_a_file_warn_once_however_often_they_are_read(tmp_path):
    out = tmp_path / "rows.jsonl"
    out.write_text("".join(json.dumps({"id": key}) + "\n" for key in ("a", "b", "a", "a")), encoding="utf-8")
    rows = ResultRows(Row, path=out)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert len(rows) == 2
        assert [row.id for row in rows] == ["a", "b"]
        assert [row.id for row in rows] == ["a", "b"]
    assert [str(w.message) for w in caught] == [(
        f"{out}: 2 rows repeat the record id of an earlier row (two runs wrote this file at once); the first row "
        "of each record is kept and the 2 later ones left out"
    )]


@pytest.mark.parametrize(("number", "cause", "code"), [
    (errno.ENOSPC, "the disk is full", "ENOSPC"),
    (errno.EROFS, "the file system is read-only", "EROFS"),
    (errno.EDQUOT, "the disk quota is used up", "EDQUOT"),
    (errno.EACCES, "permission denied", "EACCES"),
    (errno.EFBIG, "the file would pass the largest size allowed", "EFBIG"),
])
def test_each_storage_fault_names_the_file_the_cause_and_what_to_do(tmp_path, number, cause, code):
    fault = storage_fault(OSError(number, "said by the OS"), tmp_path / "out.jsonl", "writing the row of record 'r1'",
                          kept="The file keeps its 3 complete rows")
    assert str(fault).startswith(f"{tmp_path / 'out.jsonl'}: {cause} (said by the OS, {code}) while writing the row "
                                 "of record 'r1'. The file keeps its 3 complete rows. ")
    assert fault.errno == number


def test_a_full_device_under_the_writer_is_a_storage_error_with_the_rows_counted(tmp_path):
    out = tmp_path / "out.jsonl"
    out.symlink_to("/dev/full")
    writer = ResultWriter(out)
    with pytest.raises(StorageError, match=r"out.jsonl: the disk is full .*ENOSPC.* record 'r1'"):
        writer.write({"id": "r1"})
    writer.close()
    assert writer.done == set()


def test_a_full_llm_cache_is_a_storage_error_naming_the_cache_and_keeps_what_it_stored(tmp_path):
    cache = ResponseCache(tmp_path / "llm.sqlite3")
    cache.put("kept", {"choices": [1]})
    pages = cache._db.execute("PRAGMA page_count").fetchone()[0]
    cache._db.execute(f"PRAGMA max_page_count = {pages}")  # the file may grow no more: SQLite's full disk
    with pytest.raises(StorageError) as full:
        cache.put("big", {"text": "x" * 100_000})
    message = str(full.value)
    assert message.startswith(f"{tmp_path / 'llm.sqlite3'}: the disk is full (database or disk is full")
    assert "storing an LLM reply in the cache" in message and "cache_path" in message
    assert cache.get("kept") == {"choices": [1]} and cache.get("big") is None
    cache.close()
