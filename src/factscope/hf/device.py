"""Which device a model runs on: ``auto`` picks the GPU when there is one."""

from __future__ import annotations

from importlib import metadata
from typing import Literal, get_args

from factscope.core.errors import ConfigError

Device = Literal["auto", "cpu", "cuda"]
"""Where a model runs: ``auto`` (a CUDA GPU when there is one), ``cpu`` or ``cuda``."""


def cpu_only_torch() -> bool:
    """True when the installed torch is a CPU-only build (its version ends in ``+cpu``): it has no GPU to offer, which
    is known without importing it (seconds)."""
    try:
        return metadata.version("torch").endswith("+cpu")
    except metadata.PackageNotFoundError:
        return False


def resolve_device(name: str) -> Literal["cpu", "cuda"]:
    """``cpu`` or ``cuda`` for ``auto`` / ``cpu`` / ``cuda``; asking for ``cuda`` without a GPU is a ConfigError.
    ``cpu``, and ``auto`` with a CPU-only torch, are answered without importing torch."""
    if name not in get_args(Device):
        raise ConfigError(f"unknown device {name!r}; use auto, cpu or cuda")
    if name == "cpu" or (name == "auto" and cpu_only_torch()):
        return "cpu"
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if not torch.cuda.is_available():
        raise ConfigError(
            "`device='cuda'`: no CUDA GPU is visible to PyTorch; use `device='cpu'` or `device='auto'`"
        )
    return "cuda"
