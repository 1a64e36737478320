"""The leave-one-family-out benchmark continues a results file only from the same base, sample and recipes, and
keeps each fold's checkpoint apart by base."""

import json
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

import repo_paths

sys.path.insert(0, str(repo_paths.ROOT / "benchmarks"))
import leave_one_family_out as lofo

RECIPES = {name: asdict(recipe) for name, recipe in lofo.RECIPES.items()}


def protocol(**changes):
    return {"base": "/models/base", "base_digest": "sha256:0123456789abcdef", "per_family": 300, "seed": 13,
            "recipes": RECIPES, **changes}


def test_the_same_protocol_continues():
    lofo.refuse_other_protocol(Path("lofo.json"), protocol(), protocol(base="/elsewhere/base"), ["pool", "base"])


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"base_digest": "sha256:fedcba9876543210"}, "base_digest"),
        ({"per_family": 120}, "per_family"),
        ({"seed": 7}, "seed"),
        ({"recipes": {**RECIPES, "pool": {**RECIPES["pool"], "epochs": 2}}}, "recipe 'pool'"),
    ],
)
def test_another_base_sample_or_recipe_is_refused(change, named):
    with pytest.raises(SystemExit) as stopped:
        lofo.refuse_other_protocol(Path("lofo.json"), protocol(**change), protocol(), ["pool"])
    assert named in str(stopped.value)
    assert "lofo.json" in str(stopped.value) and "--out" in str(stopped.value)


def test_a_file_without_a_base_digest_is_refused():
    recorded = protocol()
    del recorded["base_digest"]
    with pytest.raises(SystemExit, match="base_digest"):
        lofo.refuse_other_protocol(Path("lofo.json"), recorded, protocol(), ["pool"])


def test_a_recipe_this_run_does_not_train_is_not_compared():
    changed = {**RECIPES, "cap3000": {**RECIPES["cap3000"], "per_set": 10}}
    lofo.refuse_other_protocol(Path("lofo.json"), protocol(recipes=changed), protocol(), ["pool"])


def test_fold_checkpoints_are_kept_apart_by_recipe_family_and_base(tmp_path):
    assert lofo.fold_checkpoint(None, "pool", "news stance", "sha256:0123456789abcdef") is None
    one = lofo.fold_checkpoint(tmp_path, "pool", "news stance", "sha256:0123456789abcdef")
    assert one == tmp_path / "pool.news_stance.0123456789abcdef"
    assert one != lofo.fold_checkpoint(tmp_path, "pool", "news stance", "sha256:fedcba9876543210")
    assert one != lofo.fold_checkpoint(tmp_path, "cap3000", "news stance", "sha256:0123456789abcdef")
    assert one != lofo.fold_checkpoint(tmp_path, "pool", "dialogue", "sha256:0123456789abcdef")


def test_the_base_digest_reads_weights_and_vocabulary_not_config_metadata(tmp_path):
    one, other = tmp_path / "one", tmp_path / "other"
    for folder, version in ((one, "5.23.0"), (other, "5.24.0")):
        folder.mkdir()
        (folder / "model.safetensors").write_bytes(b"weights")
        (folder / "vocab.txt").write_text("[PAD]\nclaim\n")
        (folder / "config.json").write_text(f'{{"transformers_version": "{version}"}}')
    assert lofo.weights_digest(one) == lofo.weights_digest(other)
    (other / "vocab.txt").write_text("[PAD]\nclaims\n")
    assert lofo.weights_digest(one) != lofo.weights_digest(other)
    before = lofo.weights_digest(one)
    (one / "model.safetensors").write_bytes(b"weight!")
    assert lofo.weights_digest(one) != before


def test_a_base_without_weights_is_refused(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(SystemExit, match="no weights"):
        lofo.weights_digest(tmp_path)


def test_training_progress_prints_about_ten_lines(capsys):
    on_step = lofo.training_progress("pool / news stance", 1000)
    for _ in range(100):
        on_step(10)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 10
    assert lines[0].startswith("pool / news stance: 100 of 1000 pairs trained")
    assert lines[-1].startswith("pool / news stance: 1000 of 1000 pairs")


def test_a_resumed_fold_reports_its_checkpoint_once(capsys):
    on_step = lofo.training_progress("pool / dialogue", 1000)
    on_step(600)  # the pairs the checkpoint holds
    for _ in range(40):
        on_step(10)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[1].split(" of")[0].strip() for line in lines] == ["600", "700", "800", "900", "1000"]


def test_a_scores_folder_keeps_one_protocol(tmp_path):
    folder = tmp_path / "scores"
    lofo.claim_scores_folder(folder, protocol(), ["pool"])
    recorded = json.loads((folder / lofo.SCORES_PROTOCOL).read_text())
    assert recorded["base_digest"] == protocol()["base_digest"]
    lofo.claim_scores_folder(folder, protocol(base="/elsewhere/base"), ["pool"])
    with pytest.raises(SystemExit) as stopped:
        lofo.claim_scores_folder(folder, protocol(base_digest="sha256:fedcba9876543210"), ["pool"])
    assert "base_digest" in str(stopped.value) and "--scores" in str(stopped.value)
