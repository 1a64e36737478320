"""Put a folder of installed distributions on sys.path for one test and let a registry find their plugins."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


@contextmanager
def plugins_from(folder: Path, registry: Any, module: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``folder`` on sys.path and ``registry`` rescanned for the test; afterwards ``module`` is forgotten and the
    registry rescanned again, so the next test sees no trace of the plugin."""
    monkeypatch.syspath_prepend(str(folder))
    registry.rescan()
    try:
        yield
    finally:
        sys.modules.pop(module, None)
        registry.rescan()
