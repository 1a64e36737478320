"""The shipped embedded checker: loads offline, probabilities are consistent, clear pairs are decided right."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from factscope.checkers.base import CheckTask
from factscope.checkers.embedded import (
    CPU_BATCH_TOKENS,
    EmbeddedScorer,
    directory_digest,
    load_embedded_scorer,
    shipped_checker_dir,
)
from factscope.core.errors import ConfigError
from factscope.core.files.manifest import describe
from factscope.core.schema import LABELS, Label

ENTAILED = [
    ("Marie Curie won the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911.",
     "Marie Curie won a Nobel Prize."),
    ("The Eiffel Tower is located in Paris, the capital of France.", "The Eiffel Tower is in Paris."),
    ("John bought three apples and two oranges at the market on Monday.", "John bought apples."),
    ("All of the employees attended the meeting yesterday afternoon.", "The employees attended a meeting."),
]
CONTRADICTED = [
    ("The restaurant only serves vegetarian food.", "The restaurant serves steak."),
    ("The meeting was cancelled because of the storm.", "The meeting took place as planned."),
    ("The Eiffel Tower is located in Paris, the capital of France.", "The Eiffel Tower is not in France."),
    ("She has never been to Japan.", "She has visited Japan many times."),
    ("The store was completely empty when we arrived.", "The store was crowded with people when we arrived."),
]


@pytest.fixture(scope="module")
def shipped() -> EmbeddedScorer:
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    return load_embedded_scorer()


def test_shipped_manifest_describes_the_checker():
    manifest = json.loads((shipped_checker_dir() / "manifest.json").read_text())
    assert manifest["classes"] == ["entailment", "neutral", "contradiction"]
    assert manifest["label_order"] == [label.value for label in LABELS]
    assert manifest["encoder"] == "packaged-minilm"
    assert all(len(data["sha256"]) == 64 for data in manifest["training"]["data"])
    assert {"factcheckgpt", "summedits", "begin"} <= set(manifest["held_out_by_set"])
    # held-out groups of each human-labelled claim set: balanced accuracy of entailment vs not (chance 0.5)
    assert all(manifest["held_out_by_set"][name]["balanced_accuracy"] > 0.55 for name in ("factcheckgpt", "summedits", "begin"))
    assert manifest["held_out"]["macro_f1"] >= 0.65
    assert all((shipped_checker_dir() / folder / "config.json").is_file() for folder in manifest["members"])


def test_shipped_model_files_fit_the_budget():
    size = sum(path.stat().st_size for path in shipped_checker_dir().rglob("*") if path.is_file())
    assert size < 50 * 1024 * 1024


def test_results_record_the_checker_contents_not_its_location(shipped, tmp_path):
    described = describe(shipped)
    assert described["contents"] == directory_digest(shipped_checker_dir())
    assert str(shipped_checker_dir()) not in json.dumps(described)
    moved = shutil.copytree(shipped_checker_dir(), tmp_path / "elsewhere")
    assert directory_digest(moved) == described["contents"]


def test_directory_digest_follows_every_file(tmp_path):
    (tmp_path / "encoder").mkdir()
    (tmp_path / "encoder" / "model.safetensors").write_bytes(b"weights")
    (tmp_path / "manifest.json").write_text('{"inference": {"window_sentences": 2}}')
    first = directory_digest(tmp_path)
    assert first.startswith("sha256:") and len(first) == len("sha256:") + 16
    assert directory_digest(tmp_path) == first
    (tmp_path / "manifest.json").write_text('{"inference": {"window_sentences": 3}}')
    relaid = directory_digest(tmp_path)
    assert relaid != first
    (tmp_path / "encoder" / "model.safetensors").write_bytes(b"retrained")
    assert directory_digest(tmp_path) not in {first, relaid}
    (tmp_path / "encoder" / "model.safetensors").rename(tmp_path / "encoder" / "other.safetensors")
    assert directory_digest(tmp_path) not in {first, relaid}


def test_a_checker_retrained_into_its_folder_loads_afresh(tmp_path):
    folder = tmp_path / "checker"
    shutil.copytree(shipped_checker_dir(), folder)
    first = load_embedded_scorer(folder)
    assert load_embedded_scorer(folder) is first
    before = first.contents_digest
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["retrained"] = True
    (folder / "manifest.json").write_text(json.dumps(manifest))
    again = load_embedded_scorer(folder)
    assert again is not first
    assert again.contents_digest == directory_digest(folder) != before


def test_probabilities_are_consistent(shipped):
    premises = [p for p, _ in ENTAILED + CONTRADICTED]
    hypotheses = [h for _, h in ENTAILED + CONTRADICTED]
    probs = shipped.score(premises, hypotheses)
    assert probs.shape == (len(premises), 3)
    assert np.all(probs >= 0) and np.allclose(probs.sum(axis=1), 1.0)
    # duplicates and order do not change a pair's probabilities
    again = shipped.score(premises[::-1] + premises[:1], hypotheses[::-1] + hypotheses[:1])
    assert np.allclose(again[: len(premises)][::-1], probs, atol=1e-5)
    assert np.allclose(again[-1], probs[0], atol=1e-5)
    assert shipped.score([], []).shape == (0, 3)


def test_on_a_cpu_batches_are_sized_by_tokens_with_the_same_probabilities(shipped):
    members = shipped._model.members
    assert [member.batch_tokens for member in members] == [CPU_BATCH_TOKENS] * len(members)
    # pairs of many lengths: batches of up to 512 tokens hold many short pairs and few long ones
    premises = [" ".join([p for p, _ in ENTAILED + CONTRADICTED][: n % 9 + 1]) for n in range(40)]
    hypotheses = [h for _, h in ENTAILED + CONTRADICTED] * 4 + [h for _, h in ENTAILED]
    hypotheses = hypotheses[: len(premises)]
    by_tokens = shipped.score(premises, hypotheses)
    for member in members:
        member.batch_tokens = None
    try:
        by_count = shipped.score(premises, hypotheses)
    finally:
        for member in members:
            member.batch_tokens = CPU_BATCH_TOKENS
    assert np.allclose(by_tokens, by_count, atol=1e-5)
    assert (by_tokens.argmax(axis=1) == by_count.argmax(axis=1)).all()


def test_clear_pairs_are_decided_right(shipped):
    probs = shipped.score([p for p, _ in ENTAILED], [h for _, h in ENTAILED])
    assert [LABELS[i] for i in probs.argmax(axis=1)] == [Label.ENTAILMENT] * len(ENTAILED)
    probs = shipped.score([p for p, _ in CONTRADICTED], [h for _, h in CONTRADICTED])
    assert [LABELS[i] for i in probs.argmax(axis=1)] == [Label.CONTRADICTION] * len(CONTRADICTED)


def test_long_reference_is_segmented_and_merged(shipped):
    from factscope.checkers.registry import make_checker

    topics = [
        "The committee met on Tuesday to discuss the budget for next year.",
        "Several members raised concerns about the rising cost of fuel.",
        "The chair promised a revised draft within two weeks.",
        "Local farmers reported a good harvest of wheat and barley.",
        "A new library opened near the central square in spring.",
        "The football team lost its last three matches at home.",
        "Volunteers cleaned the beach after the summer festival.",
        "The bakery on the corner now sells bread made with rye.",
    ]
    filler = " ".join(f"{sentence[:-1]} in year {i}." for i in range(12) for sentence in topics)
    reference = filler + " The Eiffel Tower is located in Paris, the capital of France. " + filler
    assert shipped.count_tokens(reference) > 600
    checker = make_checker("embedded")
    assert len(checker.segments(reference)) > 3
    verdict = checker.check([CheckTask(claim="The Eiffel Tower is in Paris.", references=(reference,))])[0]
    assert verdict.label == Label.ENTAILMENT
    assert "Eiffel" in (verdict.evidence or "")


def test_not_a_checker_directory_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="train-checker"):
        EmbeddedScorer.from_dir(tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"format": 2, "method": "finetune"}', "checker format 2, newer than the format 1 this factscope reads; upgrade"),
        ('{"method": "finetune",', "not JSON"),
        ('["finetune"]', "is a JSON object"),
        ('{"format": "1", "method": "finetune"}', "not a format number"),
    ],
)
def test_a_newer_or_damaged_manifest_is_a_clear_error(tmp_path, text, message):
    from factscope.checkers.registry import make_checker

    (tmp_path / "manifest.json").write_text(text)
    with pytest.raises(ConfigError, match=message):
        EmbeddedScorer.from_dir(tmp_path)
    with pytest.raises(ConfigError, match=message):
        make_checker(f"path:{tmp_path}")
