"""Loading Hugging Face models from a hub name or a local folder, offline-aware, never with remote code."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from factscope.core.errors import ConfigError


def offline() -> bool:
    """True when the Hugging Face hub must not be contacted (HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE set)."""
    return any(
        os.environ.get(name, "").lower() in {"1", "true", "yes"}
        for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    )


def load_pretrained(loader: Any, name_or_path: str, what: str, **kwargs: Any) -> Any:
    """Call ``loader.from_pretrained`` with a clear error when the model cannot be found."""
    quiet_transformers()
    local = Path(name_or_path).expanduser()
    source = str(local) if local.exists() else name_or_path
    try:
        return loader.from_pretrained(
            source, trust_remote_code=False, local_files_only=offline() or local.exists(), **kwargs
        )
    except (OSError, ValueError) as error:
        hint = (
            "the hub is offline here (HF_HUB_OFFLINE=1): pass a local folder, or download it first where a network is"
            " available"
            if offline()
            else "check the hub name or the folder path"
        )
        raise ConfigError(
            f"cannot load {what} '{name_or_path}': {hint} ({error.__class__.__name__}: {error})"
        ) from None


def model_file(name_or_path: str, filename: str, what: str) -> Path:
    """One file of a model: ``filename`` in a local folder, else in the hub repository (the local cache only when
    offline); a file that cannot be found raises ConfigError."""
    local = Path(name_or_path).expanduser()
    if local.is_dir():
        if not (local / filename).is_file():
            raise ConfigError(f"cannot load {what}: '{local}' has no {filename}")
        return local / filename
    from huggingface_hub import hf_hub_download

    try:
        return Path(hf_hub_download(name_or_path, filename, local_files_only=offline()))
    except (OSError, ValueError) as error:  # the hub's errors: offline, missing repo or file, bad name
        hint = (
            "the hub is offline here (HF_HUB_OFFLINE=1): pass a local folder"
            if offline()
            else "check the name"
        )
        raise ConfigError(
            f"cannot load {what} '{name_or_path}' ({filename}): {hint} ({error.__class__.__name__})"
        ) from None


def set_threads(threads: int | None) -> None:
    """Set torch's intra-op threads (None leaves torch's default: one per core)."""
    if threads:
        import torch

        torch.set_num_threads(threads)


def quiet_transformers() -> None:
    """Hide transformers' own weight-loading bars and warnings; factscope shows its own progress."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        return
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
