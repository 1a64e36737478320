"""A GGUF model file as a Hugging Face model folder: dequantised once by transformers' GGUF reader, then kept.

Transformers reads a GGUF file (with the ``gguf`` package) and dequantises its weights to float32; that takes
tens of seconds for a 135M model on 2 cores. The result is written once as safetensors, with the configuration and
tokenizer, to ``$XDG_CACHE_HOME/factscope/gguf/<SHA-256 of the file>/``, and every later load reads that folder
(under a second). The folder is named by the file's content, so a changed file is converted afresh and two copies
of one file share a folder. No C or C++ code is involved: no llama.cpp build.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import tempfile
from pathlib import Path

from factscope.core.errors import ConfigError
from factscope.core.files.user_dirs import cache_home

READER_HINT = "pip install 'factscope[lm]'"
"""How to install what reads a GGUF file (the ``gguf`` and ``accelerate`` packages, with torch and transformers)."""
WEIGHTS = "model.safetensors"
HASH_CHUNK = 1 << 20


def gguf_cache_root() -> Path:
    """``$XDG_CACHE_HOME/factscope/gguf``: where the dequantised folders are kept."""
    return cache_home() / "gguf"


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, as hex."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def gguf_reader_available() -> bool:
    """Whether transformers can read GGUF files here (transformers, gguf and accelerate installed)."""
    return all(importlib.util.find_spec(name) is not None for name in ("transformers", "gguf", "accelerate"))


def dequantised_folder(gguf_path: str | Path, cache_root: Path | None = None) -> Path:
    """The Hugging Face folder (safetensors, config, tokenizer) of a GGUF file, converted on the first call.

    ``cache_root`` defaults to ``gguf_cache_root()``. Raises ConfigError when the file is missing, when the
    reader is not installed, or when transformers cannot read the file (an architecture its GGUF reader lacks).
    """
    path = Path(gguf_path).expanduser()
    if not path.is_file():
        raise ConfigError(f"no GGUF model file at {path}")
    folder = (cache_root or gguf_cache_root()) / file_sha256(path)
    if (folder / WEIGHTS).is_file():
        return folder
    if not gguf_reader_available():
        raise ConfigError(
            f"reading the GGUF file {path} needs transformers, gguf and accelerate: {READER_HINT}"
        )
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name[:16]}-", dir=folder.parent))
    try:
        _convert(path, staging)
        try:
            os.replace(staging, folder)
        except OSError:  # another process finished the same conversion first
            if not (folder / WEIGHTS).is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder


def _convert(path: Path, target: Path) -> None:
    """Dequantise ``path`` with transformers and write it to ``target`` as a Hugging Face folder."""
    import torch
    from safetensors.torch import save_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from factscope.hf.loading import quiet_transformers

    quiet_transformers()
    try:
        tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
        model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32)
    except (OSError, ValueError, KeyError, RuntimeError) as error:
        raise ConfigError(f"transformers cannot read the GGUF file {path}: {error}") from None
    # The loaded model still carries the GGUF "quantization" marker, which save_pretrained refuses; its weights
    # are plain float32 tensors by now, so they are saved as they are (tied embeddings once).
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    save_model(model, str(target / WEIGHTS))
    model.config.save_pretrained(target)
    model.generation_config.save_pretrained(target)
    tokenizer.save_pretrained(target)
