"""Help texts laid out for the terminal: typer keeps every line break of the source, so a paragraph's lines
are joined to flow to the terminal's width; examples (indented lines) and list items keep their own lines; and
every page is drawn by ``help_page``."""

from __future__ import annotations

import re
import typing
from typing import Any

from typer.core import TyperCommand, TyperGroup
from typer.models import DefaultPlaceholder

from factscope.cli.help_page import HelpCommand, HelpGroup
from factscope.cli.help_panels import command_panel

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


def lay_out(app: Any) -> None:
    """Reflow the help of the typer ``app`` and of every command and command group registered on it, recursively,
    and have ``help_page`` draw their --help pages."""
    app.info.cls = _drawn(app.info.cls, TyperGroup, HelpGroup)
    for info in [app.info, *app.registered_commands, *app.registered_groups]:
        if info.help:
            info.help = reflow(info.help)
    for command in app.registered_commands:
        command.cls = _drawn(command.cls, TyperCommand, HelpCommand)
        command.rich_help_panel = command_panel(command.name or "", command.rich_help_panel)
    for group in app.registered_groups:
        group.rich_help_panel = command_panel(group.name or "", group.rich_help_panel)
        lay_out(group.typer_instance)


def _drawn(chosen: Any, plain: type, drawn: type) -> type:
    """The class of a command or group whose --help ``help_page`` draws: ``drawn`` for typer's own (``plain``,
    or none chosen), else the one chosen, which must build on ``drawn``."""
    if isinstance(chosen, DefaultPlaceholder) or chosen is None or chosen is plain:
        return drawn
    if not issubclass(chosen, drawn):
        raise TypeError(f"{chosen.__name__} must subclass {drawn.__name__}, which draws its --help")
    return typing.cast(type, chosen)
