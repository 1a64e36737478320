"""A command's --help page laid out for a terminal of any width: its options in panels by what they are for (in the
order of ``help_panels.PANELS``), each option's name and value whole on the left, its help wrapped beside it (or
under it, when the name is wider than the name column), a flag shown without a value placeholder."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from enum import Enum
from typing import Any

import typer
from rich.console import Console
from rich.padding import Padding
from rich.panel import Panel
from rich.text import Text
from typer import rich_utils
from typer.core import TyperCommand, TyperGroup

from factscope.cli.help_panels import ARGUMENTS, OPTIONS, PANELS

NAME_STYLE = "bold cyan"
VALUE_STYLE = "bold yellow"
NOTE_STYLE = "dim"
_TYPE_NAMES = {"int": "INT", "float": "FLOAT", "str": "TEXT", "path": "PATH", "file": "FILE", "dir": "DIR",
               "directory": "DIR", "bool": "BOOL"}
CHOICE = "CHOICE"
"""The value placeholder of an option whose choices do not fit the name column."""
_GAP = 2
_HANG = 4
_BORDER = 4


class HelpCommand(TyperCommand):
    """A typer command whose --help is laid out by ``print_help``."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        print_help(self, ctx)


class HelpGroup(TyperGroup):
    """A typer group whose --help is laid out by ``print_help``: its commands first, by panel."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        print_help(self, ctx)


def print_help(command: Any, ctx: Any, console: Console | None = None) -> None:
    """Print the --help page of the click ``command`` (a group's commands, then its options) on ``console``
    (default: stdout, as wide as the terminal)."""
    shown = console or help_console()
    shown.print(Padding(Text(usage(command, ctx), style="bold"), 1))
    if command.help:
        shown.print(Padding(_description(command.help, shown), (0, 1, 1, 1)))
    if isinstance(command, TyperGroup):
        panels = _command_panels(command, ctx)
        width = max(len(name or "") for commands in panels.values() for name in (c.name for c in commands))
        for title, commands in panels.items():
            shown.print(_panel(title, _command_rows(commands, width, shown)))
    for title, params in _option_panels(command, ctx).items():
        shown.print(_panel(title, _option_rows(params, ctx, shown)))


def help_console() -> Console:
    """The console help is printed on: stdout, as wide as the terminal (typer's TERMINAL_WIDTH, else COLUMNS),
    in colour where typer would use it."""
    return Console(
        highlight=False, color_system=rich_utils.COLOR_SYSTEM, force_terminal=rich_utils.FORCE_TERMINAL,
        width=rich_utils.MAX_WIDTH,
    )


def print_listing(title: str, rows: Sequence[tuple[Text, Text]], console: Console) -> None:
    """A panel under ``title`` of ``rows`` (a name, and its help wrapped beside it), laid out as a help page's
    options."""
    width = _column([name for name, _ in rows], console)
    console.print(_panel(title, (line for name, help in rows for line in _row(name, help, width, console))))


def usage(command: Any, ctx: Any) -> str:
    """``Usage: factscope check [OPTIONS] INPUT``: the command's path, then its arguments by name."""
    pieces = [f"Usage: {ctx.command_path}", "[OPTIONS]"]
    for param in command.get_params(ctx):
        if isinstance(param, typer.core.TyperArgument):
            name = param.metavar or param.name.upper()
            name += "..." if param.nargs != 1 else ""
            pieces.append(name if param.required else f"[{name}]")
    if isinstance(command, TyperGroup):
        pieces.append("COMMAND [ARGS]...")
    return " ".join(pieces)


def _description(help: str, console: Console) -> Text:
    """A command's help wrapped to the page: its first paragraph as is, the rest dim; an indented line (an
    example) that does not fit goes on under itself, indented further."""
    width = console.width - 2
    lines: list[Text] = []
    for number, paragraph in enumerate(help.strip().split("\n\n")):
        style = "" if number == 0 else NOTE_STYLE
        lines += [Text("")] if number else []
        for line in paragraph.split("\n"):
            indent = len(line) - len(line.lstrip())
            hang = indent + _HANG if indent else 0
            wrapped = _hanging(Text.from_markup(line.strip(), style=style), width - indent, width - hang, console)
            lines += [Text.assemble(" " * (indent if i == 0 else hang), part) for i, part in enumerate(wrapped)]
    return Text("\n").join(lines)


def _hanging(text: Text, first: int, rest: int, console: Console) -> list[Text]:
    """``text`` wrapped to ``first`` columns on its first line and ``rest`` on the others."""
    head = text.wrap(console, max(first, 20))[0]
    tail = text[len(head.plain):]
    tail = tail[len(tail.plain) - len(tail.plain.lstrip()):]
    return [head, *tail.wrap(console, max(rest, 20))] if tail.plain else [head]


def _command_panels(group: TyperGroup, ctx: Any) -> dict[str, list[Any]]:
    """The group's visible commands by their panel, in the order they were added."""
    panels: dict[str, list[Any]] = {}
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is not None and not command.hidden:
            panels.setdefault(getattr(command, "rich_help_panel", None) or "Commands", []).append(command)
    return panels


def _option_panels(command: Any, ctx: Any) -> dict[str, list[Any]]:
    """The command's visible parameters by panel (--help aside: the page is its own), in the order of
    ``PANELS``; a panel not named there follows the options of no panel, in the order it first appears."""
    found: dict[str, list[Any]] = {}
    help_option = command.get_help_option(ctx)
    for param in command.get_params(ctx):
        if not getattr(param, "hidden", False) and param is not help_option:
            default = ARGUMENTS if isinstance(param, typer.core.TyperArgument) else OPTIONS
            found.setdefault(getattr(param, "rich_help_panel", None) or default, []).append(param)
    appearance = list(found)

    def rank(title: str) -> tuple[int, int]:
        if title in PANELS:
            return (PANELS.index(title), 0)
        return (PANELS.index(OPTIONS), 1 + appearance.index(title))

    return {title: found[title] for title in sorted(found, key=rank)}


def _panel(title: str, rows: Iterable[Text]) -> Panel:
    return Panel(Text("\n").join(rows), title=title, title_align="left", border_style="dim")


def _command_rows(commands: Sequence[Any], width: int, console: Console) -> Iterator[Text]:
    """One row per command: its name in a column ``width`` wide, and the first paragraph of its help wrapped
    beside it."""
    for command in commands:
        text = (command.short_help or command.help or "").strip().partition("\n\n")[0]
        yield from _row(Text(command.name or "", style=NAME_STYLE), Text.from_markup(text), width, console)


def _option_rows(params: Sequence[Any], ctx: Any, console: Console) -> Iterator[Text]:
    """One row per parameter: its name and value, and its help with its range, default and environment
    variable. Choices too many for the name column show as CHOICE, listed after the help unless it names them."""
    widest = _name_width(console)
    names = [option_name(param, ctx) for param in params]
    listed = [len(name) > widest and bool(_choices(param, ctx)) for param, name in zip(params, names, strict=True)]
    names = [option_name(param, ctx, CHOICE) if long else name
             for param, name, long in zip(params, names, listed, strict=True)]
    width = _column(names, console)
    for param, name, long in zip(params, names, listed, strict=True):
        yield from _row(name, _option_help(param, ctx, _choices(param, ctx) if long else []), width, console)


def _name_width(console: Console) -> int:
    """The widest name column: a third of the panel's inside."""
    return (console.width - _BORDER) // 3


def _column(names: Sequence[Text], console: Console) -> int:
    """The width of a panel's name column: its widest name that fits ``_name_width`` (the wider go on a line of
    their own)."""
    widest = _name_width(console)
    return max([len(name) for name in names if len(name) <= widest], default=widest)


def _row(name: Text, help: Text, width: int, console: Console) -> Iterator[Text]:
    """``name`` with ``help`` wrapped to the rest of the panel beside it; under it when ``name`` is wider than
    ``width``."""
    indent = width + _GAP
    lines = list(help.wrap(console, max(console.width - _BORDER - indent, 20))) or [Text("")]
    if len(name) > width:
        yield name
        first = Text(" " * indent)
    else:
        first = Text.assemble(name, " " * (indent - len(name)))
    yield Text.assemble(first, lines[0])
    for line in lines[1:]:
        yield Text.assemble(" " * indent, line)


def option_name(param: Any, ctx: Any, value: str | None = None) -> Text:
    """How ``param`` is written: ``-o, --output PATH`` (``value``, when given, in place of its own placeholder),
    ``--[no-]abstention-detection`` for a flag with its negation (no value), ``INPUT`` for an argument."""
    if isinstance(param, typer.core.TyperArgument):
        return Text(param.metavar or param.name.upper(), style=NAME_STYLE)
    shorts = [opt for opt in param.opts if not opt.startswith("--")]
    longs = [opt for opt in param.opts if opt.startswith("--")]
    negated = [opt for opt in param.secondary_opts if opt.startswith("--")]
    if len(longs) == 1 and negated == ["--no-" + longs[0][2:]]:
        longs = ["--[no-]" + longs[0][2:]]
    elif negated:
        longs = [f"{longs[0]} / {negated[0]}"] if longs else negated
    name = Text(", ".join([*shorts, *longs]), style=NAME_STYLE)
    if not getattr(param, "is_flag", False) and not getattr(param, "count", False):
        name.append(" " + (value or _value_name(param, ctx)), style=VALUE_STYLE)
    return name


def _choices(param: Any, ctx: Any) -> list[str]:
    """The values ``param`` takes, when it takes one of a few."""
    shown = param.display_type(ctx).strip("<>") if hasattr(param, "display_type") else ""
    return shown.split("|") if "|" in shown else []


def _value_name(param: Any, ctx: Any) -> str:
    """The placeholder of ``param``'s value: its metavar, its choices (a|b), or its type (INT, PATH, TEXT...)."""
    if param.metavar is not None:
        return str(param.metavar)
    shown = param.display_type(ctx).strip("<>") if hasattr(param, "display_type") else str(param.type.name)
    repeated = shown.startswith("list[")
    shown = shown.removeprefix("list[").removesuffix("]").removesuffix(" range")
    shown = _TYPE_NAMES.get(shown, shown)
    return shown + "..." if repeated else shown


def _option_help(param: Any, ctx: Any, choices: Sequence[str] = ()) -> Text:
    """``param``'s help followed by its ``choices`` (those the help does not name all of), range, default,
    environment variable and whether it is required (an option: the usage line shows which arguments are)."""
    help = Text.from_markup(getattr(param, "help", None) or "")
    named = set(re.findall(r"\w(?:[\w:.-]*\w)?", help.plain))
    notes = ["one of " + ", ".join(choices)] if not set(choices) <= named else []
    notes += [note for note in (_range(param), _default(param, ctx), _envvar(param)) if note]
    if param.required and not isinstance(param, typer.core.TyperArgument):
        notes.append("required")
    if notes:
        help.append(("" if not help else " ") + f"[{'; '.join(notes)}]", style=NOTE_STYLE)
    return help


def _range(param: Any) -> str:
    """``x>=1``, ``0<=x<=1``: the range of a number option that has one."""
    low, high = getattr(param, "min", None), getattr(param, "max", None)
    if low is not None and high is not None:
        return f"{low}<=x<={high}"
    if low is not None:
        return f"x>={low}"
    return f"x<={high}" if high is not None else ""


def _default(param: Any, ctx: Any) -> str:
    """``default: 32``: the default a parameter shows, if any (a flag with its negation shows on / off)."""
    show = getattr(param, "show_default", None)
    if isinstance(show, str):
        return f"default: {show}"
    if not show or param.required:
        return ""
    value = param.default
    if getattr(param, "is_flag", False):
        return f"default: {'on' if value else 'off'}" if param.secondary_opts else ""
    if value is None or callable(value) or value == [] or value == ():
        return ""
    if isinstance(value, list | tuple):
        return "default: " + ", ".join(str(_plain(item)) for item in value)
    return f"default: {_plain(value)}"


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value


def _envvar(param: Any) -> str:
    """``env: NAME``: the environment variable the option is read from, when it shows it."""
    envvar = getattr(param, "envvar", None)
    if not envvar or not getattr(param, "show_envvar", False):
        return ""
    return "env: " + (envvar if isinstance(envvar, str) else ", ".join(envvar))
