"""Two leave-one-family-out runs compared pair by pair, on a hand-computed example."""

import json
import sys

import pytest

import repo_paths

sys.path.insert(0, str(repo_paths.ROOT / "benchmarks"))
import compare_lofo
from claim_families import FAMILIES


def write_fold(folder, recipe, family, labels, best_windows):
    """A fold's scores file: each pair's 1- and 2-sentence windows, the best P(Entailment) in its win2 windows."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = [
        {"source": "set", "label": label,
         "probs": {"win1": [[0.05, 0.9, 0.05], [best / 2, 0.5, 0.5 - best / 2]], "win2": [[best, 1 - best, 0.0]]}}
        for label, best in zip(labels, best_windows)
    ]
    (folder / f"{recipe}.{family.replace(' ', '_')}.json").write_text(json.dumps(rows))


def run(monkeypatch, tmp_path, *extra):
    out = tmp_path / "compare.json"
    argv = ["compare_lofo.py", "--candidate", f"{tmp_path / 'cand'}:pool", "--reference", f"{tmp_path / 'ref'}:base",
            "--resamples", "200", "--out", str(out), *extra]
    monkeypatch.setattr(sys, "argv", argv)
    compare_lofo.main()
    return json.loads(out.read_text())["figures"]


def test_differences_by_family_and_their_mean(monkeypatch, tmp_path):
    labels = [0, 0, 1, 2]  # two entailed pairs, two not
    # candidate: BA (2/2 + 1/2) / 2 = 0.75; AUROC: 0.9 and 0.6 against 0.2 and 0.7 -> 3 of 4 = 0.75
    write_fold(tmp_path / "cand", "pool", FAMILIES[0], labels, [0.9, 0.6, 0.2, 0.7])
    # reference: BA (1/2 + 2/2) / 2 = 0.75; AUROC 1.0
    write_fold(tmp_path / "ref", "base", FAMILIES[0], labels, [0.4, 0.6, 0.3, 0.1])
    # second family: candidate BA 1.0, AUROC 1.0; reference BA 0.5 (all called Entailment), AUROC 0.5 (all tied)
    write_fold(tmp_path / "cand", "pool", FAMILIES[1], labels, [0.8, 0.7, 0.1, 0.2])
    write_fold(tmp_path / "ref", "base", FAMILIES[1], labels, [0.6, 0.6, 0.6, 0.6])
    figures = run(monkeypatch, tmp_path, "--margin", "0.03")

    first = figures["families"][FAMILIES[0]]
    assert first["candidate"] == {"balanced_accuracy": 0.75, "auroc": 0.75}
    assert first["reference"] == {"balanced_accuracy": 0.75, "auroc": 1.0}
    assert first["balanced_accuracy_difference"] == 0.0 and first["auroc_difference"] == -0.25
    second = figures["families"][FAMILIES[1]]
    assert second["balanced_accuracy_difference"] == 0.5 and second["auroc_difference"] == 0.5
    mean = figures["mean"]
    assert mean["families"] == 2
    assert mean["balanced_accuracy_difference"] == pytest.approx(0.25)
    assert mean["auroc_difference"] == pytest.approx(0.125)
    low, high = mean["balanced_accuracy_interval"]
    assert low <= high
    assert figures["verdict"] == {"margin": 0.03, "reached": None, "families": f"2 of {len(FAMILIES)}"}
    assert figures["runs"]["candidate"]["recipe"] == "pool" and figures["runs"]["candidate"]["protocol"] is None


def test_each_side_records_the_protocol_of_its_scores(monkeypatch, tmp_path):
    labels = [0, 1]
    write_fold(tmp_path / "cand", "pool", FAMILIES[0], labels, [0.9, 0.1])
    write_fold(tmp_path / "ref", "base", FAMILIES[0], labels, [0.6, 0.4])
    recorded = {"base": "/models/mpnet", "base_digest": "sha256:0123456789abcdef", "per_family": 2, "seed": 13}
    (tmp_path / "cand" / "protocol.json").write_text(json.dumps({**recorded, "recipes": {}}))
    runs = run(monkeypatch, tmp_path)["runs"]
    assert runs["candidate"]["protocol"] == recorded and runs["reference"]["protocol"] is None


def test_the_verdict_comes_with_every_family(monkeypatch, tmp_path):
    labels = [0, 0, 1, 2]
    for family in FAMILIES:
        write_fold(tmp_path / "cand", "pool", family, labels, [0.9, 0.6, 0.2, 0.7])
        write_fold(tmp_path / "ref", "base", family, labels, [0.4, 0.6, 0.3, 0.1])
    assert run(monkeypatch, tmp_path, "--margin", "0.0")["verdict"]["reached"] is True
    assert run(monkeypatch, tmp_path, "--margin", "0.01")["verdict"]["reached"] is False


def test_runs_over_different_pairs_are_refused(monkeypatch, tmp_path):
    write_fold(tmp_path / "cand", "pool", FAMILIES[0], [0, 1], [0.9, 0.1])
    write_fold(tmp_path / "ref", "base", FAMILIES[0], [1, 0], [0.9, 0.1])
    with pytest.raises(SystemExit) as stopped:
        run(monkeypatch, tmp_path)
    assert FAMILIES[0] in str(stopped.value) and "different pairs" in str(stopped.value)
