"""Low-rank adaptation (LoRA) of a cross-encoder: train rank-r updates of the encoder's linear layers and a full
classification head, and save only those as a checker's delta over its base encoder.

The encoder's matrices stay frozen; each targeted ``nn.Linear`` (attention query / key / value / output and the
feed-forward layers of every encoder layer) learns ``W + (alpha / r) B A`` with ``A`` of shape (r, in) and ``B`` of
shape (out, r) (Hu et al., 2022, with PEFT's implementation). The saved delta holds ``A``, ``B`` with the scale
folded in, and the head's weights, in fp16 (:mod:`factscope.checkers.lora_delta` reads it back).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from factscope.checkers.lora_delta import DELTA_FILE, HEAD_PREFIXES

LORA_TARGETS = r".*encoder\.layer\.\d+\..*\.(q|k|v|o|query|key|value|dense)$"
"""The linear layers a LoRA delta adapts (a regular expression over module names, as PEFT takes it): those inside
the encoder's layers. The embeddings, a BERT pooler and the classification head are not among them; the head is
trained in full."""


def with_lora(model: Any, rank: int, alpha: int | None = None) -> Any:
    """``model`` (a sequence classifier) wrapped for LoRA training: rank-``rank`` adapters on the encoder's linear
    layers (scale ``alpha / rank``; ``alpha`` defaults to ``2 * rank``), the classification head trained in full,
    everything else frozen."""
    from peft import LoraConfig, get_peft_model

    if rank < 1:
        raise ValueError(f"lora rank must be at least 1, not {rank}")
    heads = [name for name in HEAD_PREFIXES if hasattr(model, name)]
    if not heads:
        raise ValueError(f"{type(model).__name__} has no classification head named {' or '.join(HEAD_PREFIXES)}")
    config = LoraConfig(
        r=rank,
        lora_alpha=alpha if alpha is not None else 2 * rank,
        lora_dropout=0.0,
        target_modules=LORA_TARGETS,
        modules_to_save=heads,
        bias="none",
    )
    return get_peft_model(model, config)


def delta_tensors(model: Any) -> dict[str, Any]:
    """The delta of a model made by :func:`with_lora`: ``NAME.lora_A`` and ``NAME.lora_B`` (scale folded in) for
    each adapted layer, and the head's parameters under their names in the plain model, as fp16 CPU tensors."""
    from peft.tuners.lora import LoraLayer
    from peft.utils import ModulesToSaveWrapper

    inner = model.base_model.model
    tensors: dict[str, Any] = {}
    for name, found in inner.named_modules():
        module: Any = found
        if isinstance(found, LoraLayer) and "default" in module.lora_A:
            scale = module.scaling["default"]
            tensors[f"{name}.lora_A"] = module.lora_A["default"].weight.detach()
            tensors[f"{name}.lora_B"] = module.lora_B["default"].weight.detach() * scale
        elif isinstance(found, ModulesToSaveWrapper):
            for key, value in module.modules_to_save["default"].state_dict().items():
                tensors[f"{name}.{key}"] = value.detach()
    if not tensors:
        raise ValueError("the model carries no LoRA adapters: build it with with_lora")
    return {key: value.to("cpu").half().contiguous() for key, value in tensors.items()}


def save_delta(model: Any, folder: Path) -> Path:
    """Write the delta of ``model`` (:func:`delta_tensors`) to ``folder/delta.safetensors``; its path."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / DELTA_FILE
    save_file(delta_tensors(model), str(path))
    return path


def merged(model: Any) -> Any:
    """The plain model with the adapters of a :func:`with_lora` model added into its weights (for scoring)."""
    return model.merge_and_unload()
