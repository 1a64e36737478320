"""ONNX Runtime gives the PyTorch classifier's probabilities and labels, from an export cached by its weights."""

from __future__ import annotations

import json

import numpy as np

from factscope.checkers.embedded import (
    CrossEncoderModel,
    EmbeddedScorer,
    OnnxCrossEncoder,
    shipped_checker_dir,
)
from factscope.core.runs.loop import reporting_setup
from factscope.hf.onnx_classifier import (
    folder_digest,
    onnx_classifier,
    onnx_runtime_installed,
    prune_exports,
    weights_digest,
)
from optional_extras import needs_extra
from tiny_models import build_nli_classifier

pytestmark = needs_extra(onnx_runtime_installed(), "onnx")

LABELS = {0: "entailment", 1: "neutral", 2: "contradiction"}
PREMISES = [
    "the cat sat on the mat .",
    "marie curie won the nobel prize in physics in 1903 and in chemistry in 1911 .",
    "paris is the capital of france .",
    "everest was first climbed in 1953 . it is tall .",
    "the cat sat on the mat .",
    "guido created python and it was released in 1991 , not by james gosling .",
    "berlin",
]
HYPOTHESES = [
    "a cat sat .",
    "curie was born in paris .",
    "paris is a city in france .",
    "everest was climbed in 1953 .",
    "a cat sat .",
    "python was created by guido .",
    "berlin is the capital of germany .",
]


def tiny_member(folder, seed: int = 3) -> CrossEncoderModel:
    build_nli_classifier(folder, LABELS, seed=seed)
    return CrossEncoderModel.from_pretrained(folder, batch_size=2, max_length=24)


def test_probabilities_and_labels_match_pytorch_over_batches_of_every_length(tmp_path):
    member = tiny_member(tmp_path / "model")
    expected = member.probs(PREMISES, HYPOTHESES)
    member.use_onnx_runtime(weights_digest(member.model), tmp_path / "cache")
    got = member.probs(PREMISES, HYPOTHESES)
    assert member.onnx is not None
    assert got.shape == expected.shape == (len(PREMISES), 3)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert (got.argmax(axis=1) == expected.argmax(axis=1)).all()
    assert np.array_equal(got[0], got[4])
    assert member.probs([], []).shape == (0, 3)


def test_the_export_is_made_once_and_reported_as_a_setup_stage(tmp_path):
    member = tiny_member(tmp_path / "model")
    events = []
    with reporting_setup(events.append):
        first = onnx_classifier(
            member.model, member.tokenizer, weights_digest(member.model), tmp_path / "cache"
        )
    assert first.path == tmp_path / "cache" / f"{weights_digest(member.model)}.onnx"
    assert any("ONNX Runtime" in event.stage for event in events)
    written = first.path.stat().st_mtime_ns
    events.clear()
    with reporting_setup(events.append):
        again = onnx_classifier(
            member.model, member.tokenizer, weights_digest(member.model), tmp_path / "cache"
        )
    assert again.path == first.path and not events
    assert first.path.stat().st_size > 0 and written <= first.path.stat().st_mtime_ns
    assert sorted(found.name for found in (tmp_path / "cache").iterdir()) == [first.path.name]


def test_other_weights_get_their_own_export_and_the_least_recently_used_go_beyond_the_budget(tmp_path):
    cache = tmp_path / "cache"
    paths = []
    for seed in range(3):
        member = tiny_member(tmp_path / f"model{seed}", seed=seed)
        paths.append(
            onnx_classifier(member.model, member.tokenizer, weights_digest(member.model), cache).path
        )
    assert len(set(paths)) == 3 and all(path.is_file() for path in paths)
    first = tiny_member(tmp_path / "model0", seed=0)
    onnx_classifier(first.model, first.tokenizer, weights_digest(first.model), cache)
    size = paths[0].stat().st_size
    prune_exports(cache, paths[2], budget=2 * size)
    assert sorted(cache.glob("*.onnx")) == sorted([paths[0], paths[2]])
    prune_exports(cache, paths[2], budget=0)
    assert list(cache.glob("*.onnx")) == [paths[2]]


def tiny_checker(folder, seed: int = 5):
    """A checker directory around a tiny classifier, with the shipped checker's manifest."""
    build_nli_classifier(folder / "encoder", LABELS, seed=seed)
    manifest = json.loads((shipped_checker_dir() / "manifest.json").read_text())
    manifest.pop("cues", None)
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def test_a_checker_directory_scores_alike_in_both_runtimes_and_loads_without_pytorch_once_exported(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    folder = tiny_checker(tmp_path / "checker")
    in_pytorch = EmbeddedScorer.from_dir(folder, onnx=False)
    exporting = EmbeddedScorer.from_dir(folder, onnx=True)
    exported = EmbeddedScorer.from_dir(folder, onnx=True)
    assert in_pytorch._model.members[0].onnx is None
    assert isinstance(exporting._model.members[0], CrossEncoderModel) and exporting._model.members[0].onnx
    assert isinstance(exported._model.members[0], OnnxCrossEncoder)
    assert [p.name for p in (tmp_path / "xdg" / "factscope" / "onnx").glob("*.onnx")] == [
        f"{folder_digest(folder / 'encoder')}.onnx"
    ]
    expected = in_pytorch.score(PREMISES, HYPOTHESES)
    np.testing.assert_allclose(exporting.score(PREMISES, HYPOTHESES), expected, atol=1e-5)
    np.testing.assert_allclose(exported.score(PREMISES, HYPOTHESES), expected, atol=1e-5)
    assert [exported.count_tokens(text) for text in PREMISES] == [
        in_pytorch.count_tokens(text) for text in PREMISES
    ]
