"""Prompts are text files in ``factscope/prompts``, loaded by name: ``load_prompt("check_triplet")``."""

from __future__ import annotations

from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

from factscope.core.errors import ConfigError


def _folder() -> Traversable:
    return resources.files("factscope") / "prompts"


def available_prompts() -> list[str]:
    """Names of the prompt files shipped with factscope (without the .txt / .json suffix)."""
    names = []
    for entry in _folder().iterdir():
        if entry.is_file() and entry.name.endswith((".txt", ".json")):
            names.append(entry.name.rsplit(".", 1)[0])
    return sorted(names)


@cache
def load_prompt(name: str) -> str:
    """The text of the prompt file ``name`` (``name.txt``, ``name.json`` or the exact file name)."""
    package = _folder()
    for candidate in (name, f"{name}.txt", f"{name}.json"):
        entry = package / candidate
        if entry.is_file():
            return entry.read_text(encoding="utf-8")
    raise ConfigError(
        f"no prompt named {name!r}; shipped prompts: {', '.join(available_prompts()) or 'none'}"
    )
