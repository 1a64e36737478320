"""train-checker checkpoints: an interrupted fine-tuning run continues from its last checkpoint."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from factscope.core.errors import ConfigError
from factscope.training.finetune import FinetuneConfig, finetune_cross_encoder
from factscope.training.nli_data import NLIExample, NLISplit
from factscope.training.options import TrainOptions
from factscope.training.resume import SETTINGS_FILE, cap_per_set, prepare_staging
from tiny_models import build_nli_classifier

PAIRS = [
    NLIExample(premise=f"the cat number {i} sat on the mat .", hypothesis="the cat sat .", label=i % 3, line=i)
    for i in range(40)
]
CLASSES = ("entailment", "neutral", "contradiction")


class Interrupt(Exception):
    """Raised from the progress callback to stop a run part-way, as a kill would."""


@pytest.fixture(scope="module")
def tiny_encoder(tmp_path_factory) -> Path:
    """A 2-layer BERT with no dropout, so that two runs over the same batches give the same weights."""
    folder = tmp_path_factory.mktemp("tiny_resume_encoder")
    path = build_nli_classifier(folder, dict(enumerate(CLASSES)))
    config_file = Path(path) / "config.json"
    config = json.loads(config_file.read_text())
    config.update(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    config_file.write_text(json.dumps(config))
    return path


def _weights(result) -> dict:
    return {name: value.clone() for name, value in result.model.model.state_dict().items()}


@pytest.mark.parametrize("lora_rank", [0, 4], ids=["full", "lora"])
def test_an_interrupted_run_resumes_where_it_stopped_and_ends_as_an_uninterrupted_one(tmp_path, tiny_encoder, lora_rank):
    config = FinetuneConfig(
        epochs=2, batch_size=4, precision="fp32", checkpoint_every=3, fast_dropout=False, lora_rank=lora_rank
    )
    whole = finetune_cross_encoder(str(tiny_encoder), PAIRS, PAIRS[:6], CLASSES, config)

    checkpoint = tmp_path / "checkpoint_1.pt"
    seen: list[int] = []

    def stop_after_seven_batches(n: int) -> None:
        seen.append(n)
        if len(seen) == 7:
            raise Interrupt

    with pytest.raises(Interrupt):
        finetune_cross_encoder(
            str(tiny_encoder), PAIRS, PAIRS[:6], CLASSES, replace(config, checkpoint=checkpoint),
            on_step=stop_after_seven_batches,
        )
    assert checkpoint.exists()
    advanced: list[int] = []
    resumed = finetune_cross_encoder(
        str(tiny_encoder), PAIRS, PAIRS[:6], CLASSES, replace(config, checkpoint=checkpoint), on_step=advanced.append
    )
    # the checkpoint after batch 6 is the last one: progress restarts there and covers both epochs exactly once
    assert advanced[0] == 6 * 4 and sum(advanced) == 2 * len(PAIRS)
    assert [h["epoch"] for h in resumed.history] == [1, 2]
    before, after = _weights(whole), _weights(resumed)
    assert all(torch.allclose(before[name], after[name], atol=1e-6) for name in before)


def test_a_finished_run_resumed_is_not_trained_again(tmp_path, tiny_encoder):
    config = FinetuneConfig(epochs=1, batch_size=8, precision="fp32", checkpoint=tmp_path / "c.pt")
    first = finetune_cross_encoder(str(tiny_encoder), PAIRS, PAIRS[:6], CLASSES, config)
    steps: list[int] = []
    again = finetune_cross_encoder(str(tiny_encoder), PAIRS, PAIRS[:6], CLASSES, config, on_step=steps.append)
    assert steps == []
    before, after = _weights(first), _weights(again)
    assert all(torch.equal(before[name], after[name]) for name in before)


def test_resume_is_refused_when_the_settings_or_data_differ(tmp_path):
    data = tmp_path / "pairs.jsonl"
    data.write_text('{"premise": "a", "hypothesis": "b", "label": "entailment"}\n', encoding="utf-8")
    staging = tmp_path / "out.partial"
    options = TrainOptions(data=[data], out=tmp_path / "out", epochs=2)
    prepare_staging(staging, options)
    (staging / "checkpoint_1.pt").write_bytes(b"state")
    prepare_staging(staging, replace(options, resume=True, threads=1))
    assert (staging / "checkpoint_1.pt").exists()
    with pytest.raises(ConfigError, match=r"other settings \(`epochs`\)"):
        prepare_staging(staging, replace(options, resume=True, epochs=3))
    data.write_text('{"premise": "a", "hypothesis": "c", "label": "entailment"}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"other settings \(`data`\)"):
        prepare_staging(staging, replace(options, resume=True))
    prepare_staging(staging, replace(options, epochs=3))
    assert not (staging / "checkpoint_1.pt").exists()
    assert json.loads((staging / SETTINGS_FILE).read_text())["epochs"] == 3


def test_cap_per_set_samples_each_set_and_keeps_a_quarter_for_validation_and_test():
    pairs = [replace(PAIRS[0], line=i, source="big" if i < 30 else "small") for i in range(40)]
    split = cap_per_set(NLISplit(train=pairs, validation=pairs, test=pairs), 8, seed=1)
    assert [sum(e.source == s for e in split.train) for s in ("big", "small")] == [8, 8]
    assert [sum(e.source == s for e in split.validation) for s in ("big", "small")] == [2, 2]
    assert [e.line for e in split.train] == sorted(e.line for e in split.train)
    assert cap_per_set(split, None, seed=1) == split
