"""Per-row int8 weight storage: hand-computed rounding, small tensors in fp16, and a model round trip."""

from __future__ import annotations

import torch

from factscope.checkers.int8_weights import (
    INT8_WEIGHTS,
    SCALE_SUFFIX,
    dequantize_state_dict,
    load_int8_model,
    quantize_state_dict,
    save_int8_model,
)
from tiny_models import build_nli_classifier


def test_rows_are_scaled_by_their_largest_magnitude():
    weight = torch.zeros(64, 64)
    weight[0, :3] = torch.tensor([2.54, 1.312, -0.047])  # scale 2.54 / 127 = 0.02: q = 127, 65.6 -> 66, -2.35 -> -2
    weight[1, :2] = torch.tensor([-12.7, 0.049])  # scale 0.1: q = -127, 0.49 -> 0
    stored = quantize_state_dict({"w": weight, "bias": torch.tensor([0.1, 0.2])})
    assert stored["w"].dtype == torch.int8
    assert stored["w"][0, :3].tolist() == [127, 66, -2] and stored["w"][1, :2].tolist() == [-127, 0]
    assert abs(float(stored["w" + SCALE_SUFFIX][0, 0]) - 0.02) < 1e-7
    assert stored["bias"].dtype == torch.float16  # vectors stay fp16
    back = dequantize_state_dict(stored)
    assert set(back) == {"w", "bias"}
    assert torch.allclose(back["w"][0, :3], torch.tensor([2.54, 1.32, -0.04]), atol=1e-6)
    assert float(back["w"][1, 1]) == 0.0
    scale = stored["w" + SCALE_SUFFIX]
    assert bool(((back["w"] - weight).abs() <= scale / 2 + 1e-6).all())  # error at most half a step


def test_small_matrices_stay_fp16():
    stored = quantize_state_dict({"small": torch.ones(8, 8)})
    assert stored["small"].dtype == torch.float16 and "small" + SCALE_SUFFIX not in stored


def test_int8_model_round_trip_keeps_predictions(tmp_path):
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    folder = build_nli_classifier(tmp_path / "tiny", {0: "entailment", 1: "neutral", 2: "contradiction"}, seed=3)
    model = AutoModelForSequenceClassification.from_pretrained(str(folder)).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    model.config.architectures = ["BertModel"]  # as in a sentence-transformers encoder's config
    save_int8_model(model, tokenizer, tmp_path / "int8")
    assert AutoConfig.from_pretrained(str(tmp_path / "int8")).architectures == ["BertForSequenceClassification"]
    assert (tmp_path / "int8" / INT8_WEIGHTS).stat().st_size < 0.6 * (folder / "model.safetensors").stat().st_size
    loaded = load_int8_model(AutoModelForSequenceClassification, tmp_path / "int8")
    encoded = tokenizer(["the cat sat on the mat ."], ["the cat sat ."], return_tensors="pt")
    with torch.inference_mode():
        expected, got = model(**encoded).logits, loaded(**encoded).logits
    assert torch.allclose(expected, got, atol=0.05) and got.dtype == torch.float32
