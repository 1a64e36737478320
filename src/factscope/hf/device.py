"""Which device a model runs on: ``auto`` picks the GPU when there is one."""

from __future__ import annotations

from typing import Literal, get_args

from factscope.core.errors import ConfigError

Device = Literal["auto", "cpu", "cuda"]
"""Where a model runs: ``auto`` (a CUDA GPU when there is one), ``cpu`` or ``cuda``."""


def resolve_device(name: str) -> Literal["cpu", "cuda"]:
    """``cpu`` or ``cuda`` for ``auto`` / ``cpu`` / ``cuda``; asking for ``cuda`` without a GPU is a ConfigError."""
    import torch

    if name not in get_args(Device):
        raise ConfigError(f"unknown device {name!r}; use auto, cpu or cuda")
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cpu":
        return "cpu"
    if not torch.cuda.is_available():
        raise ConfigError("`device='cuda'`: no CUDA GPU is visible to PyTorch; use `device='cpu'` or `device='auto'`")
    return "cuda"
