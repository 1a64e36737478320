"""Where factscope keeps a user's files: the XDG base directories, with their usual defaults."""

from __future__ import annotations

import os
from pathlib import Path


def config_home() -> Path:
    """``$XDG_CONFIG_HOME/factscope`` (``~/.config/factscope``)."""
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "factscope"


def cache_home() -> Path:
    """``$XDG_CACHE_HOME/factscope`` (``~/.cache/factscope``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "factscope"
