"""The rows of a `knowledge score` results file by id, and their agreement with a file of human ratings."""

from __future__ import annotations

import pytest

from factscope.conner.agreement import read_scores
from factscope.core.errors import InputError


def test_rows_are_keyed_by_id_and_unreadable_lines_are_reported(tmp_path):
    path = tmp_path / "scored.jsonl"
    path.write_text('{"id": 7, "factuality": 0.5}\n{"factuality": 1.0}\n{broken\n{"id": "b", "relevance": 0.25}\n')
    rows, problems = read_scores(path)
    assert rows == {"7": {"id": 7, "factuality": 0.5}, "b": {"id": "b", "relevance": 0.25}}
    assert len(problems) == 1 and problems[0].line == 3


def test_file_agreement_reports_each_unreadable_row_and_refuses_files_that_share_no_id(tmp_path):
    from factscope.conner.agreement import file_agreement

    scores = tmp_path / "scored.jsonl"
    scores.write_text("".join(f'{{"id": "{i}", "relevance": {v}}}\n' for i, v in enumerate([0.1, 0.5, 0.9])) + "{broken\n")
    human = tmp_path / "human.jsonl"
    human.write_text("".join(f'{{"id": "{i}", "relevance": {r}}}\n' for i, r in enumerate([0, 1, 2])) + '{"relevance": 1}\n')
    told = []
    (result,) = file_agreement(scores, human, skipped=told.append)
    # ratings 0, 1, 2 against 0.1, 0.5, 0.9: every pair concordant, D = 1
    assert (result.dimension, result.n, result.somers_d) == ("relevance", 3, 1.0)
    assert [(str(p.path), p.line) for p in told] == [(str(scores), 4), (str(human), 4)]
    other = tmp_path / "other.jsonl"
    other.write_text('{"id": "x", "relevance": 2}\n')
    with pytest.raises(InputError, match="check that the ids match") as raised:
        file_agreement(scores, other)
    assert raised.value.path == str(other)
