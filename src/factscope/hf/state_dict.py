"""Weights read directly from a checkpoint into a module built here: every key must match, none may be left over."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from factscope.core.errors import ConfigError

SHOWN_KEYS = 5
"""How many missing or unexpected keys an error names."""


def read_safetensors(path: Path) -> dict[str, Any]:
    """The tensors of a ``.safetensors`` file (no code runs while reading it)."""
    from safetensors.torch import load_file

    return load_file(str(path))


def load_exactly(
    module: Any, weights: Mapping[str, Any], what: str, *, tied: Mapping[str, str] | None = None
) -> None:
    """Copy ``weights`` into ``module``; a key the module has and the weights lack, or the other way round, raises
    ConfigError naming the first few. ``tied`` maps a module key to the key it shares its tensor with (a checkpoint
    holds one of the two)."""
    expected = set(module.state_dict())
    given = dict(weights)
    for alias, source in (tied or {}).items():
        if alias not in given and source in given:
            given[alias] = given[source]
    refuse_partial_weights(
        {"missing_keys": expected - set(given), "unexpected_keys": set(given) - expected}, what
    )
    module.load_state_dict(given, strict=True)


def refuse_partial_weights(info: Mapping[str, Any], what: str) -> None:
    """Raise ConfigError when ``from_pretrained``'s loading info has missing or unexpected keys: a head left at
    random (a base model loaded as a classifier) must not pass silently."""
    missing, unexpected = list(info.get("missing_keys", [])), list(info.get("unexpected_keys", []))
    if missing or unexpected:
        raise ConfigError(
            f"the weights of {what} do not fit its architecture: missing {_shown(sorted(missing))}; unexpected "
            f"{_shown(sorted(unexpected))}"
        )


def _shown(keys: list[str]) -> str:
    if not keys:
        return "none"
    more = f" and {len(keys) - SHOWN_KEYS} more" if len(keys) > SHOWN_KEYS else ""
    return ", ".join(keys[:SHOWN_KEYS]) + more
