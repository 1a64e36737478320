"""Per-row int8 storage of a model's weight matrices: half the size of fp16 on disk, read back as fp32.

Each matrix with at least ``MIN_ELEMENTS`` entries is stored as int8 values ``q`` and one fp32 scale per row
``s = max |w_row| / 127``, so that ``w ~ q * s`` (symmetric rounding to the nearest step, error at most s / 2);
vectors and small matrices (biases, LayerNorm) are stored in fp16. On the shipped checker this changed 0.7% of
validation argmax labels and validation macro-F1 by +0.002 (README, "Model card").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

INT8_WEIGHTS = "model.int8.safetensors"
"""File name of int8 weights inside a model folder (beside config.json and the tokenizer files)."""
MIN_ELEMENTS = 4096
SCALE_SUFFIX = ".int8_row_scale"


def quantize_state_dict(state: dict[str, Any]) -> dict[str, Any]:
    """The tensors to store: int8 values plus a per-row fp32 scale for large matrices, fp16 for the rest."""
    import torch

    stored: dict[str, Any] = {}
    for name, tensor in state.items():
        weight = tensor.detach().float()
        if weight.ndim == 2 and weight.numel() >= MIN_ELEMENTS:
            scale = weight.abs().amax(dim=1, keepdim=True).clamp_min(1e-12) / 127.0
            stored[name] = torch.round(weight / scale).clamp(-127, 127).to(torch.int8).contiguous()
            stored[name + SCALE_SUFFIX] = scale.contiguous()
        else:
            stored[name] = weight.half().contiguous()
    return stored


def dequantize_state_dict(stored: dict[str, Any]) -> dict[str, Any]:
    """fp32 tensors back from :func:`quantize_state_dict`'s output."""
    state: dict[str, Any] = {}
    for name, tensor in stored.items():
        if name.endswith(SCALE_SUFFIX):
            continue
        scale = stored.get(name + SCALE_SUFFIX)
        state[name] = tensor.float() * scale if scale is not None else tensor.float()
    return state


def save_int8_model(model: Any, tokenizer: Any, folder: Path) -> None:
    """Write config, tokenizer and int8 weights of a transformers model to ``folder``."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    model.config.architectures = [type(model).__name__]
    model.config.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    save_file(quantize_state_dict(model.state_dict()), str(folder / INT8_WEIGHTS), metadata={"format": "pt"})


def load_int8_model(model_class: Any, folder: Path) -> Any:
    """A ``model_class`` (e.g. AutoModelForSequenceClassification) built from ``folder``'s config and int8 weights."""
    from safetensors.torch import load_file
    from transformers import AutoConfig

    model = model_class.from_config(AutoConfig.from_pretrained(str(folder)))
    model.load_state_dict(dequantize_state_dict(load_file(str(folder / INT8_WEIGHTS))))
    return model.float().eval()
