"""Help texts laid out for the terminal: typer keeps every line break of the source, so a paragraph's lines
are joined to flow to the terminal's width; examples (indented lines) and list items keep their own lines."""

from __future__ import annotations

import re
from typing import Any

_ITEM = re.compile(r"^(?:[-*] |\d+[.)] )")


def reflow(text: str) -> str:
    """``text`` with each paragraph's wrapped lines joined; indented lines and list items keep their own lines."""
    return "\n\n".join(_reflow_paragraph(paragraph) for paragraph in text.split("\n\n"))


def _reflow_paragraph(paragraph: str) -> str:
    lines: list[str] = []
    in_item = False
    for line in paragraph.split("\n"):
        indented = line[:1].isspace()
        if _ITEM.match(line):
            lines.append(line.rstrip())
            in_item = True
        elif indented and in_item and lines:
            lines[-1] += " " + line.strip()
        elif indented or not lines or lines[-1][:1].isspace():
            lines.append(line.rstrip())
            in_item = False
        else:
            lines[-1] += " " + line.strip()
    return "\n".join(lines)


def reflow_commands(app: Any) -> None:
    """Reflow the help of the typer ``app`` and of every command and command group registered on it, recursively."""
    for info in [app.info, *app.registered_commands, *app.registered_groups]:
        if info.help:
            info.help = reflow(info.help)
    for group in app.registered_groups:
        reflow_commands(group.typer_instance)
