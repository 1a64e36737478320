"""Distilling a teacher checker: the loss, the class mapping, the cached probabilities, and `train-checker --teacher`."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from command_line import command_line
from factscope.checkers.embedded import EmbeddedScorer
from factscope.cli import train_checker
from factscope.core.errors import ConfigError
from factscope.training.distil import TEACHER_FILE, student_columns, teacher_probabilities, with_teacher
from factscope.training.finetune import FinetuneConfig, distillation_loss, finetune_cross_encoder
from factscope.training.nli_data import NOT_ENTAILMENT, NLIExample
from factscope.training.options import TrainOptions
from nli_pairs import write_pairs
from tiny_models import build_nli_classifier

CLASSES = ("entailment", "neutral", "contradiction")
PAIRS = [
    NLIExample(premise=f"the dog number {i} ran in the park .", hypothesis="the dog ran .", label=i % 3, line=i)
    for i in range(24)
]


def run_cli(*args: object):
    arguments = ["train-checker", *[str(a) for a in args]]
    return CliRunner().invoke(command_line(train_checker), arguments, catch_exceptions=False)


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory) -> Path:
    """A 2-layer BERT with no dropout, so two runs over the same batches give the same weights."""
    path = build_nli_classifier(tmp_path_factory.mktemp("tiny_distil_encoder"), dict(enumerate(CLASSES)))
    config_file = Path(path) / "config.json"
    config = json.loads(config_file.read_text())
    config.update(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    config_file.write_text(json.dumps(config))
    return path


@pytest.fixture(scope="module")
def teacher(tmp_path_factory, tiny_encoder) -> Path:
    """A checker folder written by train-checker from the tiny encoder."""
    folder = tmp_path_factory.mktemp("teacher")
    data = write_pairs(folder / "pairs.jsonl", n=40)
    out = folder / "checker"
    result = run_cli(
        "--data", data, "--out", out, "--encoder", tiny_encoder, "--epochs", "1", "--cues", "off",
        "--precision", "fp32", "--long-context", "0", "--unrelated-context", "0",
    )
    assert result.exit_code == 0, result.output
    return out


def test_loss_mixes_the_gold_label_and_the_teachers_probabilities_hand_computed():
    # softmax(0, ln 2, 0) = (1/4, 1/2, 1/4); gold entailment: -ln(1/4); teacher (1/2, 1/2, 0):
    # -(1/2 ln(1/4) + 1/2 ln(1/2)) = 1.5 ln 2; half of each: (2 ln 2 + 1.5 ln 2) / 2 = 1.75 ln 2
    logits = torch.tensor([[0.0, math.log(2.0), 0.0]])
    teacher = torch.tensor([[0.5, 0.5, 0.0]])
    loss = distillation_loss(logits, torch.tensor([0]), teacher, 0.5)
    assert float(loss) == pytest.approx(1.75 * math.log(2.0))
    # all weight on the teacher: the gold label is ignored
    assert float(distillation_loss(logits, torch.tensor([2]), teacher, 1.0)) == pytest.approx(1.5 * math.log(2.0))
    # a 2-way pair's gold part is -ln(P(N) + P(C)) = -ln(3/4)
    two_way = distillation_loss(logits, torch.tensor([NOT_ENTAILMENT]), teacher, 0.25)
    assert float(two_way) == pytest.approx(0.75 * -math.log(0.75) + 0.25 * 1.5 * math.log(2.0))


def test_a_three_way_teacher_teaches_a_two_way_checker_by_summing_neutral_and_contradiction():
    columns = student_columns(CLASSES, ("entailment", "not_entailment"))
    assert (np.array([0.6, 0.3, 0.1]) @ columns).tolist() == pytest.approx([0.6, 0.4])
    assert student_columns(CLASSES, CLASSES).tolist() == np.eye(3).tolist()
    with pytest.raises(ConfigError, match="cannot teach"):
        student_columns(("entailment", "not_entailment"), CLASSES)


def test_one_hot_teacher_probabilities_train_exactly_as_the_gold_labels(tiny_encoder):
    config = FinetuneConfig(epochs=1, batch_size=4, precision="fp32", fast_dropout=False)
    gold = finetune_cross_encoder(str(tiny_encoder), PAIRS, PAIRS[:4], CLASSES, config)
    one_hot = with_teacher(PAIRS, np.eye(3)[[e.label for e in PAIRS]])
    taught = finetune_cross_encoder(
        str(tiny_encoder), one_hot, one_hot[:4], CLASSES, FinetuneConfig(**{**config.__dict__, "teacher_weight": 0.7})
    )
    before, after = gold.model.model.state_dict(), taught.model.model.state_dict()
    assert all(torch.allclose(before[name], after[name], atol=1e-6) for name in before)
    # a teacher that disagrees with the labels trains other weights
    uniform = with_teacher(PAIRS, np.full((len(PAIRS), 3), 1 / 3))
    other = finetune_cross_encoder(
        str(tiny_encoder), uniform, uniform[:4], CLASSES, FinetuneConfig(**{**config.__dict__, "teacher_weight": 0.7})
    )
    assert not torch.allclose(before["classifier.weight"], other.model.model.state_dict()["classifier.weight"])


def test_distilling_refuses_pairs_without_the_teachers_probabilities(tiny_encoder):
    config = FinetuneConfig(epochs=1, batch_size=4, precision="fp32", teacher_weight=0.5)
    with pytest.raises(ValueError, match="teacher's probabilities on every training pair"):
        finetune_cross_encoder(str(tiny_encoder), PAIRS, PAIRS[:4], CLASSES, config)


def test_teacher_probabilities_are_cached_for_the_same_pairs_only(tmp_path, teacher):
    copy = tmp_path / "teacher"
    shutil.copytree(teacher, copy)
    cache = tmp_path / TEACHER_FILE
    probs = teacher_probabilities(copy, PAIRS, CLASSES, cache)
    assert probs.shape == (len(PAIRS), 3) and np.allclose(probs.sum(axis=1), 1.0)
    # the same pairs are answered from the cache: the teacher is not loaded again
    (copy / "encoder" / "model.safetensors").unlink()
    np.testing.assert_array_equal(teacher_probabilities(copy, PAIRS, CLASSES, cache), probs)
    # other pairs are scored anew
    with pytest.raises(ConfigError):
        teacher_probabilities(copy, PAIRS[:5], CLASSES, cache)
    assert np.allclose(teacher_probabilities(teacher, PAIRS[:5], CLASSES, cache), probs[:5], atol=1e-5)


def test_train_checker_distils_a_teacher_and_records_it(tmp_path, tiny_encoder, teacher):
    data = write_pairs(tmp_path / "pairs.jsonl", n=40)
    out = tmp_path / "student"
    result = run_cli(
        "--data", data, "--out", out, "--encoder", tiny_encoder, "--epochs", "1", "--cues", "off",
        "--precision", "fp32", "--teacher", teacher, "--teacher-weight", "0.8",
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    recorded = manifest["training"]["teacher"]
    assert recorded["path"] == str(teacher) and recorded["weight"] == 0.8
    assert recorded["contents"].startswith("sha256:")
    assert "teacher (share of the loss)" in result.output
    assert not (out / TEACHER_FILE).exists() and not (tmp_path / "student.partial").exists()


def test_teacher_options_are_checked(tmp_path, teacher):
    data = write_pairs(tmp_path / "pairs.jsonl", n=20)
    with pytest.raises(ConfigError, match="`teacher` needs `method='finetune'`"):
        run_cli("--data", data, "--out", tmp_path / "x", "--teacher", teacher, "--method", "repc")
    refused = run_cli("--data", data, "--out", tmp_path / "x", "--teacher", teacher, "--teacher-weight", "0")
    assert refused.exit_code == 2 and "--teacher-weight" in refused.output
    with pytest.raises(ConfigError, match="`teacher_weight` must be at most 1, not 1.5"):
        TrainOptions(data=[data], out=tmp_path / "x", teacher=teacher, teacher_weight=1.5)


def test_a_folder_that_is_no_checker_cannot_teach(tmp_path):
    data = write_pairs(tmp_path / "pairs.jsonl", n=20)
    with pytest.raises(ConfigError, match="no manifest.json there"):
        run_cli("--data", data, "--out", tmp_path / "x", "--teacher", tmp_path)


def test_a_checker_saved_as_a_delta_teaches_as_it_checks(tmp_path, tiny_encoder):
    data = write_pairs(tmp_path / "pairs.jsonl", n=40)
    delta = tmp_path / "delta_teacher"
    result = run_cli(
        "--data", data, "--out", delta, "--encoder", tiny_encoder, "--epochs", "1", "--cues", "off",
        "--precision", "fp32", "--long-context", "0", "--unrelated-context", "0", "--lora-rank", "4",
    )
    assert result.exit_code == 0, result.output
    assert "delta" in json.loads((delta / "manifest.json").read_text())
    probs = teacher_probabilities(delta, PAIRS, CLASSES, tmp_path / TEACHER_FILE)
    checked = EmbeddedScorer.from_dir(delta).model_probs([e.premise for e in PAIRS], [e.hypothesis for e in PAIRS])
    np.testing.assert_allclose(probs, checked, atol=1e-5)
