"""`users_task.py compare`: two scored checkers side by side on their shared pairs, on a hand-computed example."""

import json
import sys

import pytest

import repo_paths

sys.path.insert(0, str(repo_paths.ROOT / "benchmarks"))
import users_task


def write_scores(folder, checker, rows):
    """A scores file as `users_task.py score` writes it: one row per pair."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps({"id": pair_id, "set": family, "family": family, "column": "users", "supported": supported,
                    "label": "Entailment" if called else "Neutral", "measured": {"entailment": p}, "seconds": 0.1})
        for pair_id, family, supported, called, p in rows
    ]
    (folder / f"{checker}.jsonl").write_text("\n".join(lines) + "\n")


def test_per_family_figures_their_means_and_the_difference(monkeypatch, tmp_path):
    # family a: supported, supported, not, not
    #   before: labels E, N, N, E -> BA (1/2 + 1/2) / 2 = 0.5; P 0.9, 0.4, 0.3, 0.6 -> AUROC 3 of 4 = 0.75
    #   after:  labels E, E, N, N -> BA 1.0; P 0.8, 0.7, 0.2, 0.1 -> AUROC 1.0
    # family b: supported, not
    #   before: E, N -> BA 1.0, AUROC 1.0; after: E, E -> BA 0.5, AUROC 0.5 (tied)
    before = [("a:0", "a", True, True, 0.9), ("a:1", "a", True, False, 0.4), ("a:2", "a", False, False, 0.3),
              ("a:3", "a", False, True, 0.6), ("b:0", "b", True, True, 0.9), ("b:1", "b", False, False, 0.1),
              ("b:2", "b", False, False, 0.1)]  # b:2 only before: not shared, left out
    after = [("a:0", "a", True, True, 0.8), ("a:1", "a", True, True, 0.7), ("a:2", "a", False, False, 0.2),
             ("a:3", "a", False, False, 0.1), ("b:0", "b", True, True, 0.6), ("b:1", "b", False, True, 0.6)]
    write_scores(tmp_path, "old", before)
    write_scores(tmp_path, "new", after)
    out = tmp_path / "compare.json"
    argv = ["users_task.py", "compare", "--before", "old", "--after", "new", "--scores", str(tmp_path),
            "--resamples", "50", "--out", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    users_task.main()
    figures = json.loads(out.read_text())["figures"]

    assert figures["pairs"] == 6
    a, b = figures["per_family"]["a"], figures["per_family"]["b"]
    assert a["before"] == {"ba": 0.5, "auroc": 0.75} and a["after"] == {"ba": 1.0, "auroc": 1.0}
    assert b["pairs"] == 2 and b["before"] == {"ba": 1.0, "auroc": 1.0} and b["after"] == {"ba": 0.5, "auroc": 0.5}
    assert figures["mean"]["before"] == {"ba": 0.75, "auroc": 0.875}
    assert figures["mean"]["after"] == {"ba": 0.75, "auroc": 0.75}
    assert figures["difference"]["ba"] == pytest.approx(0.0)
    assert figures["difference"]["auroc"] == pytest.approx(-0.125)
    low, high = figures["difference"]["ba_interval"]
    assert low <= high
