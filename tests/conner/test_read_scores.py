"""The rows of a `knowledge score` results file by id, for the agreement with human ratings."""

from __future__ import annotations

from factscope.conner.agreement import read_scores


def test_rows_are_keyed_by_id_and_unreadable_lines_are_reported(tmp_path):
    path = tmp_path / "scored.jsonl"
    path.write_text('{"id": 7, "factuality": 0.5}\n{"factuality": 1.0}\n{broken\n{"id": "b", "relevance": 0.25}\n')
    rows, problems = read_scores(path)
    assert rows == {"7": {"id": 7, "factuality": 0.5}, "b": {"id": "b", "relevance": 0.25}}
    assert len(problems) == 1 and problems[0].line == 3
