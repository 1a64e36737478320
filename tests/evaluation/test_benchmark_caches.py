"""Benchmarks that keep a checker's scores between runs reuse them only for the same checker: a retrained
checker in the same folder scores again."""

import json
import shutil
import sys

import repo_paths

sys.path.insert(0, str(repo_paths.ROOT / "benchmarks"))
import mismatch_with_checker
import presence_models

from factscope.checkers import embedded

CONTEXT = "The bridge was opened in 1932. It carries the coast road over the river Tay."


def retrained(folder):
    """Stand for a retraining into the same folder: its manifest changes."""
    manifest = folder / "manifest.json"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "\n", encoding="utf-8")


def test_presence_scores_are_kept_per_checker(tmp_path):
    folder = tmp_path / "checker"
    shutil.copytree(embedded.shipped_checker_dir(), folder)
    document = presence_models.Document(
        dataset="d", group="g", part="test", context=CONTEXT,
        faithful=["The bridge opened in 1932."], counterfactual=["The bridge opened in 1956."],
    )
    cache = tmp_path / "cache"
    presence_models.score_documents([document], f"path:{folder}", 1, cache)
    first = set(cache.iterdir())
    presence_models.score_documents([document], f"path:{folder}", 1, cache)
    assert set(cache.iterdir()) == first and len(first) == 1

    retrained(folder)
    presence_models.score_documents([document], f"path:{folder}", 1, cache)
    assert len(set(cache.iterdir())) == 2


def test_mismatch_verdicts_are_named_by_checker(tmp_path, monkeypatch):
    folder = tmp_path / "checker"
    shutil.copytree(embedded.shipped_checker_dir(), folder)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        json.dumps({"id": "a", "premise": CONTEXT, "hypothesis": "The bridge opened in 1956.", "label": "contradiction"})
        + "\n",
        encoding="utf-8",
    )
    verdicts = tmp_path / "verdicts"

    def run():
        argv = ["mismatch_with_checker.py", str(pairs), "--checker", f"path:{folder}", "--verdicts", str(verdicts),
                "--out", str(tmp_path / "figures.json")]
        monkeypatch.setattr(sys, "argv", argv)
        mismatch_with_checker.main()
        return {path.name for path in verdicts.iterdir()}

    first = run()
    assert run() == first and len(first) == 1
    retrained(folder)
    assert len(run()) == 2
