"""ONNX Runtime gives the PyTorch classifier's probabilities and labels, from an export cached by its weights."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.special import softmax

from factscope.checkers.embedded import (
    CrossEncoderModel,
    EmbeddedScorer,
    OnnxCrossEncoder,
    shipped_checker_dir,
)
from factscope.checkers.registry import make_checker
from factscope.core.errors import ConfigError
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


def test_the_attention_is_exported_in_its_eager_form_and_the_model_keeps_its_own(tmp_path):
    member = tiny_member(tmp_path / "model")
    member.model.set_attn_implementation("sdpa")
    expected = member.probs(PREMISES, HYPOTHESES)
    member.use_onnx_runtime(weights_digest(member.model), tmp_path / "cache")
    assert member.model.config._attn_implementation == "sdpa"
    exported = operators(member.onnx.path)
    assert "Softmax" in exported and "IsNaN" not in exported
    np.testing.assert_allclose(member.probs(PREMISES, HYPOTHESES), expected, atol=1e-5)


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


def operators(path) -> set[str]:
    import onnx

    return {node.op_type for node in onnx.load(str(path)).graph.node}


def test_int8_quantises_the_export_once_and_keeps_the_labels_close(tmp_path):
    member = tiny_member(tmp_path / "model")
    expected = member.probs(PREMISES, HYPOTHESES)
    key = weights_digest(member.model)
    events = []
    with reporting_setup(events.append):
        int8 = onnx_classifier(member.model, member.tokenizer, key, tmp_path / "cache", precision="int8")
    assert int8.path == tmp_path / "cache" / f"{key}-int8.onnx"
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [f"{key}-int8.onnx", f"{key}.onnx"]
    assert any("ONNX Runtime" in event.stage for event in events)
    assert any("int8" in event.stage for event in events)
    assert "MatMulInteger" in operators(int8.path)
    assert "MatMulInteger" not in operators(tmp_path / "cache" / f"{key}.onnx")
    got = softmax(int8.logits(member.tokenizer, PREMISES, HYPOTHESES, max_length=24), axis=1)
    assert np.abs(got - expected).max() < 0.05
    events.clear()
    with reporting_setup(events.append):
        again = onnx_classifier(member.model, member.tokenizer, key, tmp_path / "cache", precision="int8")
    assert again.path == int8.path and not events


def test_a_checker_directory_in_int8_loads_from_its_quantised_export_and_says_so_in_its_settings(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    folder = tiny_checker(tmp_path / "checker")
    fp32 = EmbeddedScorer.from_dir(folder, onnx=True)
    quantising = EmbeddedScorer.from_dir(folder, precision="int8")
    quantised = EmbeddedScorer.from_dir(folder, precision="int8")
    assert isinstance(quantising._model.members[0], CrossEncoderModel)
    assert isinstance(quantised._model.members[0], OnnxCrossEncoder)
    assert quantised._model.members[0].onnx.path.name == f"{folder_digest(folder / 'encoder')}-int8.onnx"
    expected = fp32.score(PREMISES, HYPOTHESES)
    np.testing.assert_allclose(quantised.score(PREMISES, HYPOTHESES), quantising.score(PREMISES, HYPOTHESES))
    assert np.abs(quantised.score(PREMISES, HYPOTHESES) - expected).max() < 0.05
    assert "precision" not in fp32.result_settings()
    assert quantised.result_settings() == {**fp32.result_settings(), "precision": "int8"}


@pytest.mark.parametrize(
    ("settings", "said"),
    [({"device": "cuda"}, "on the CPU"), ({"onnx": False}, "ONNX Runtime")],
)
def test_int8_is_refused_where_it_cannot_run(tmp_path, monkeypatch, settings, said):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    folder = tiny_checker(tmp_path / "checker")
    with pytest.raises(ConfigError, match=said):
        EmbeddedScorer.from_dir(folder, precision="int8", **settings)
    assert not (tmp_path / "xdg").exists()


def test_int8_is_refused_for_a_checker_that_is_not_fine_tuned_and_for_a_hub_model_folder(tmp_path):
    repc = tmp_path / "repc"
    repc.mkdir()
    (repc / "manifest.json").write_text(json.dumps({"method": "repc", "classes": list(LABELS.values())}))
    with pytest.raises(ConfigError, match="'repc'"):
        EmbeddedScorer.from_dir(repc, precision="int8")
    build_nli_classifier(tmp_path / "hub", LABELS, seed=1)
    with pytest.raises(ConfigError, match="Hugging Face model folder"):
        make_checker(f"path:{tmp_path / 'hub'}", precision="int8", device="cpu")
    with pytest.raises(ConfigError, match="precision"):
        make_checker("similarity", precision="int8")
