"""Library errors and warnings name parameters, never command-line flags: below ``factscope.cli`` no text that is
raised or warned spells a flag (--window-sentences, -o); the CLI shows parameters as flags
(``factscope.cli.parameter_flags``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import repo_paths

FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z-]*|-o\b)")
"""A flag as a command line writes it (``pip install --no-deps`` is a flag of pip's, and is allowed)."""

OTHER_TOOLS = ("pip install",)
"""Texts that quote another program's command line."""


def _library_modules() -> list[Path]:
    cli = repo_paths.PACKAGE / "cli"
    return [path for path in sorted(repo_paths.PACKAGE.rglob("*.py")) if cli not in path.parents]


def _texts(node: ast.AST) -> list[str]:
    """The literal text pieces of the message expressions under ``node``."""
    return [part.value for part in ast.walk(node) if isinstance(part, ast.Constant) and isinstance(part.value, str)]


def _messages(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, text) of every literal raised or warned in ``tree``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            found += [(node.lineno, text) for text in _texts(node.exc)]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "warn":
            found += [(node.lineno, text) for text in _texts(node)]
    return found


def _spells_a_flag(text: str) -> bool:
    return FLAG.search(text) is not None and not any(tool in text for tool in OTHER_TOOLS)


def test_no_library_error_or_warning_spells_a_flag():
    offending = [
        f"{path.relative_to(repo_paths.ROOT)}:{line}: {text!r}"
        for path in _library_modules()
        for line, text in _messages(ast.parse(path.read_text(encoding="utf-8")))
        if _spells_a_flag(text)
    ]
    assert offending == []


def test_the_check_finds_a_flag_in_a_raised_or_warned_text():
    tree = ast.parse(
        'raise ConfigError("give --window-sentences too")\n'
        'raise InputError(f"name another output with -o", path=p)\n'
        'warnings.warn(f"pass --lm {name}")\n'
        'raise ConfigError("give `window_sentences` too; pip install --no-deps x")\n'
    )
    assert [line for line, text in _messages(tree) if _spells_a_flag(text)] == [1, 2, 3]
