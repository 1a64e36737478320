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
    assert figures["labels_same"] == 0.5  # a:0, a:2, b:0 alike; a:1, a:3, b:1 not
    a, b = figures["per_family"]["a"], figures["per_family"]["b"]
    assert a["before"] == {"ba": 0.5, "auroc": 0.75, "called_supported": 0.5}
    assert a["after"] == {"ba": 1.0, "auroc": 1.0, "called_supported": 0.5}
    assert a["supported_share"] == 0.5 and b["supported_share"] == 0.5
    assert b["pairs"] == 2 and b["before"] == {"ba": 1.0, "auroc": 1.0, "called_supported": 0.5}
    assert b["after"] == {"ba": 0.5, "auroc": 0.5, "called_supported": 1.0}
    assert figures["mean"]["before"] == {"ba": 0.75, "auroc": 0.875}
    assert figures["mean"]["after"] == {"ba": 0.75, "auroc": 0.75}
    assert figures["difference"]["ba"] == pytest.approx(0.0)
    assert figures["difference"]["auroc"] == pytest.approx(-0.125)
    low, high = figures["difference"]["ba_interval"]
    assert low <= high


def test_folds_take_each_family_from_the_checker_that_left_it_out(tmp_path):
    import users_task_folds

    assert users_task_folds.folds() == {
        "all_families": ("factcheckgpt", "summedits", "begin"),
        "fold_web": ("summedits", "begin"),
        "fold_summaries": ("factcheckgpt", "begin"),
        "fold_dialogue": ("factcheckgpt", "summedits"),
    }
    families = {"summedits": "summaries", "begin": "dialogue", "factcheckgpt": "LLM claims vs web evidence",
                "contractnli": "long documents"}
    names = {"all_families": "path:all", "fold_summaries": "path:s", "fold_dialogue": "path:d", "fold_web": "path:w"}
    assert users_task_folds.left_out_checker(names, "summaries") == "path:s"
    assert users_task_folds.left_out_checker(names, "long documents") == "path:all"

    def row(name, i, supported, called, p):
        measured = {"entailment": p, "contradiction": 0.1, "entailing_share": float(called),
                    "reference_words": 100.0, "claim_words": 10.0, "relevance": 1.0, "mismatch": 0.0}
        return {"id": f"{name}:{i}", "set": name, "family": families[name], "column": "users",
                "supported": supported, "label": "Entailment" if called else "Neutral", "measured": measured,
                "seconds": 0.1}

    # The all-families checker is right on every pair of every family. Each fold is right on the families it
    # trained on and calls nothing supported on the one it left out, ranking that family's pairs the wrong way.
    right = [row(name, i, i % 2 == 0, i % 2 == 0, 0.9 if i % 2 == 0 else 0.1) for name in families for i in range(4)]
    scores = {"path:all": right}
    for checker, left in (("path:s", "summedits"), ("path:d", "begin"), ("path:w", "factcheckgpt")):
        wrong = [row(left, i, i % 2 == 0, False, 0.2 if i % 2 == 0 else 0.3) for i in range(4)]
        scores[checker] = [r for r in right if r["set"] != left] + wrong
    for checker, rows in scores.items():
        text = "\n".join(json.dumps(r) for r in rows) + "\n"
        (tmp_path / f"{checker.replace(':', '_')}.jsonl").write_text(text)
    args = type("Args", (), {"scores": tmp_path, "resamples": 20, "seed": 0, "start": "member"})()
    parts = {f"{name}:{i}": "validation" if i < 2 else "test" for name in families for i in range(4)}
    table = users_task_folds.figures(args, names, parts)

    long_documents = table["per_family"]["long documents"]
    assert not long_documents["recipe_trains_on_it"]
    assert long_documents["left_out"]["labels"] == long_documents["trained_on"]["labels"] == {"ba": 1.0, "auroc": 1.0}
    summaries = table["per_family"]["summaries"]
    assert summaries["recipe_trains_on_it"] and summaries["left_out_checker"] == "path:s"
    # left out: no pair called supported -> BA 0.5; P 0.2 (supported) < 0.3 (not) -> AUROC 0.0
    assert summaries["left_out"]["labels"] == {"ba": 0.5, "auroc": 0.0}
    assert summaries["trained_on"]["labels"] == {"ba": 1.0, "auroc": 1.0}
    assert table["mean"]["left_out"]["labels_ba"] == pytest.approx((0.5 * 3 + 1.0) / 4)
    assert table["mean"]["trained_on"]["labels_ba"] == pytest.approx(1.0)
    assert table["labels_left_out_vs_trained_on"]["difference"]["ba"] == pytest.approx(-0.375)
    # each family's test pairs (2: supported, 3: not) after fitting on its validation pairs (0, 1): at its labels
    # the all-families checker is right on both, the summaries fold calls neither supported (BA 0.5)
    own = table["own_family"]
    assert own["trained_on"]["per_family"]["summaries"]["labels_ba"] == 1.0
    assert own["left_out"]["per_family"]["summaries"]["labels_ba"] == 0.5
    assert own["left_out"]["per_family"]["summaries"]["fit_pairs"] == 2
    assert own["left_out"]["per_family"]["summaries"]["test_pairs"] == 2
    assert own["trained_on"]["mean"]["labels_ba"] == 1.0
    search = table["decision_search"]
    assert search["feature_sets_tried"] == 10 + 45 + 120
    assert search["labels"] == {"left_out_ba": pytest.approx(0.625), "trained_on_ba": 1.0}
    ranked = [entry["left_out_ba"] for entry in search["best_on_left_out"]]
    assert len(ranked) == 10 and ranked == sorted(ranked, reverse=True)


def test_a_scores_file_is_continued_only_with_the_settings_it_was_scored_with(tmp_path):
    checker = tmp_path / "checker"
    checker.mkdir()
    (checker / "manifest.json").write_text("{}")
    files = users_task.checker_files(f"path:{checker}")
    assert files.startswith("sha256:") and users_task.checker_files("nli:some/model") is None
    out = tmp_path / "scores" / "path_checker.jsonl"
    out.parent.mkdir()
    settings = {"checker": f"path:{checker}", "files": files, "seed": 0, "draw": 400, "nli_draw": 80}
    users_task.same_scoring(out, settings)
    users_task.same_scoring(out, dict(settings))  # the same settings: continued

    (checker / "manifest.json").write_text('{"retrained": true}')
    changed = {**settings, "files": users_task.checker_files(f"path:{checker}")}
    with pytest.raises(SystemExit, match=r"scored with other settings \(files: .*another --scores folder"):
        users_task.same_scoring(out, changed)
    with pytest.raises(SystemExit, match=r"\(draw: \[400\] then, \[200\] now\)"):
        users_task.same_scoring(out, {**settings, "draw": 200})


def test_a_checker_scored_in_int8_has_its_own_scores_file_and_settings(tmp_path):
    def settings(precision):
        return users_task.scoring_settings(
            users_task.argparse.Namespace(checker="mpnet", precision=precision, seed=0, draw=400, nli_draw=80)
        )

    assert "precision" not in settings("fp32") and settings("int8")["precision"] == "int8"
    assert users_task.scores_file(tmp_path, "mpnet.int8") == tmp_path / "mpnet.int8.jsonl"
    assert users_task.scores_file(tmp_path, "path:/a/b") == tmp_path / "path__a_b.jsonl"
