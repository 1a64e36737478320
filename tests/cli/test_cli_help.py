"""Every --help text survives rich markup: a bracket that rich would read as a tag is escaped."""

import re
from typing import Any

import typer

from command_line import command_line

_TAG = re.compile(r"(?<!\\)\[[a-zA-Z/#@]")


def _texts(command: Any, path: str) -> list[tuple[str, str]]:
    found = [(path, command.help or "")]
    found += [(f"{path} {param.name}", getattr(param, "help", None) or "") for param in command.params]
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            found += _texts(sub, f"{path} {name}")
    return found


def test_no_help_text_has_an_unescaped_markup_bracket():
    texts = _texts(typer.main.get_command(command_line()), "factscope")
    assert len(texts) > 100
    assert [(where, match.group()) for where, text in texts for match in _TAG.finditer(text)] == []
