"""A command's --help page laid out for a terminal of any width: its options in panels by what they are for (in the
order of ``factscope.core.options.panels.PANELS``), each option's name and value whole on the left, its help
wrapped beside it (or under it, when the name is wider than the name column), a flag shown without a value
placeholder."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from rich.console import Console
from rich.padding import Padding
from rich.panel import Panel
from rich.text import Text
from typer import rich_utils
from typer.core import TyperArgument, TyperCommand, TyperGroup

from factscope.cli.option_groups import range_text
from factscope.core.options.panels import ARGUMENTS, OPTIONS, PANELS

NAME_STYLE = "bold cyan"
VALUE_STYLE = "bold yellow"
NOTE_STYLE = "dim"
_TYPE_NAMES = {"int": "INT", "float": "FLOAT", "str": "TEXT", "path": "PATH", "file": "FILE", "dir": "DIR",
               "directory": "DIR"}
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
        commands = [sub for name in command.list_commands(ctx)
                    if (sub := command.get_command(ctx, name)) is not None and not sub.hidden]
        width = max(len(sub.name or "") for sub in commands)
        for title, listed in _by_panel(commands, lambda sub: "Commands").items():
            rows = [(Text(sub.name or "", style=NAME_STYLE), Text.from_markup(_summary(sub))) for sub in listed]
            shown.print(_panel(title, rows, width, shown))
    help_option = command.get_help_option(ctx)
    params = [param for param in command.get_params(ctx) if not param.hidden and param is not help_option]
    panels = _by_panel(params, lambda param: ARGUMENTS if isinstance(param, TyperArgument) else OPTIONS)
    order = {title: PANELS.index(title) if title in PANELS else PANELS.index(OPTIONS) + 0.5 for title in panels}
    for title in sorted(panels, key=order.__getitem__):
        shown.print(_panel(title, _option_rows(panels[title], ctx, shown), None, shown))


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
    console.print(_panel(title, rows, None, console))


def usage(command: Any, ctx: Any) -> str:
    """``Usage: factscope check [OPTIONS] INPUT``: the command's path, then its arguments by name."""
    pieces = [f"Usage: {ctx.command_path}", "[OPTIONS]"]
    for param in command.get_params(ctx):
        if isinstance(param, TyperArgument):
            name = (param.metavar or param.name.upper()) + ("..." if param.nargs != 1 else "")
            pieces.append(name if param.required else f"[{name}]")
    return " ".join(pieces + (["COMMAND [ARGS]..."] if isinstance(command, TyperGroup) else []))


def _description(help: str, console: Console) -> Text:
    """A command's help wrapped to the page: its first paragraph as is, the rest dim; an indented line (an
    example) that does not fit goes on under itself, indented further."""
    lines: list[Text] = []
    for number, paragraph in enumerate(help.strip().split("\n\n")):
        lines += [Text("")] if number else []
        for line in paragraph.split("\n"):
            indent = len(line) - len(line.lstrip())
            hang = indent + _HANG if indent else 0
            text = Text.from_markup(line.strip(), style=NOTE_STYLE if number else "")
            head = text.wrap(console, max(console.width - 2 - indent, 20))[0]
            tail = text[len(head.plain):]
            tail = tail[len(tail.plain) - len(tail.plain.lstrip()):]
            wrapped = [head, *(tail.wrap(console, max(console.width - 2 - hang, 20)) if tail.plain else [])]
            lines += [Text.assemble(" " * (hang if i else indent), part) for i, part in enumerate(wrapped)]
    return Text("\n").join(lines)


def _summary(command: Any) -> str:
    """The first paragraph of ``command``'s help."""
    return (command.short_help or command.help or "").strip().partition("\n\n")[0]


def _by_panel(items: Iterable[Any], default: Any) -> dict[str, list[Any]]:
    """``items`` (commands or parameters) by their panel (``default(item)`` for one of none), in order."""
    panels: dict[str, list[Any]] = {}
    for item in items:
        panels.setdefault(getattr(item, "rich_help_panel", None) or default(item), []).append(item)
    return panels


def _panel(title: str, rows: Sequence[tuple[Text, Text]], width: int | None, console: Console) -> Panel:
    """A panel under ``title`` of ``rows``: each name with its help wrapped beside it, in a name column ``width``
    wide (default: the widest name that fits a third of the panel; a wider one goes on a line of its own)."""
    widest = (console.width - _BORDER) // 3
    width = width or max([len(name) for name, _ in rows if len(name) <= widest], default=widest)
    lines = (line for name, help in rows for line in _row(name, help, width, console))
    return Panel(Text("\n").join(lines), title=title, title_align="left", border_style="dim")


def _row(name: Text, help: Text, width: int, console: Console) -> Iterator[Text]:
    """``name`` with ``help`` wrapped to the rest of the panel beside it; under it when ``name`` is wider than
    ``width``."""
    indent = width + _GAP
    lines = list(help.wrap(console, max(console.width - _BORDER - indent, 20))) or [Text("")]
    if len(name) > width:
        yield name
    first = Text(" " * indent) if len(name) > width else Text.assemble(name, " " * (indent - len(name)))
    yield Text.assemble(first, lines[0])
    yield from (Text.assemble(" " * indent, line) for line in lines[1:])


def _option_rows(params: Sequence[Any], ctx: Any, console: Console) -> list[tuple[Text, Text]]:
    """One row per parameter: its name and value, and its help with its range, default and environment
    variable. Choices too many for the name column show as CHOICE, listed after the help unless it names them."""
    rows = []
    for param in params:
        name, choices = option_name(param, ctx), _choices(param, ctx)
        if len(name) > (console.width - _BORDER) // 3 and choices:
            rows.append((option_name(param, ctx, CHOICE), _option_help(param, choices)))
        else:
            rows.append((name, _option_help(param, [])))
    return rows


def option_name(param: Any, ctx: Any, value: str | None = None) -> Text:
    """How ``param`` is written: ``-o, --output PATH`` (``value``, when given, in place of its own placeholder),
    ``--[no-]abstention-detection`` for a flag with its negation (no value), ``INPUT`` for an argument."""
    if isinstance(param, TyperArgument):
        return Text(param.metavar or param.name.upper(), style=NAME_STYLE)
    shorts = [opt for opt in param.opts if not opt.startswith("--")]
    longs = [opt for opt in param.opts if opt.startswith("--")]
    negated = [opt for opt in param.secondary_opts if opt.startswith("--")]
    if len(longs) == 1 and negated == ["--no-" + longs[0][2:]]:
        longs = ["--[no-]" + longs[0][2:]]
    elif negated:
        longs = [f"{longs[0]} / {negated[0]}"] if longs else negated
    name = Text(", ".join([*shorts, *longs]), style=NAME_STYLE)
    if not param.is_flag and not param.count:
        name.append(" " + (value or _value_name(param, ctx)), style=VALUE_STYLE)
    return name


def _shown_type(param: Any, ctx: Any) -> str:
    """The type of ``param``'s value as typer shows it: int, path, a|b, list[str]..."""
    return param.display_type(ctx).strip("<>") if hasattr(param, "display_type") else str(param.type.name)


def _choices(param: Any, ctx: Any) -> list[str]:
    """The values ``param`` takes, when it takes one of a few."""
    shown = _shown_type(param, ctx)
    return shown.split("|") if "|" in shown else []


def _value_name(param: Any, ctx: Any) -> str:
    """The placeholder of ``param``'s value: its metavar, its choices (a|b), or its type (INT, PATH, TEXT...)."""
    if param.metavar is not None:
        return str(param.metavar)
    shown = _shown_type(param, ctx)
    bare = shown.removeprefix("list[").removesuffix("]").removesuffix(" range")
    return _TYPE_NAMES.get(bare, bare) + ("..." if shown.startswith("list[") else "")


def _option_help(param: Any, choices: Sequence[str]) -> Text:
    """``param``'s help followed by its ``choices`` (those the help does not name all of), range (an option of
    typer's own; a field's help shows its own), default, environment variable and whether it is required (an
    option: the usage line shows which arguments are)."""
    help = Text.from_markup(getattr(param, "help", None) or "")
    named = set(re.findall(r"\w(?:[\w:.-]*\w)?", help.plain))
    notes = ["one of " + ", ".join(choices)] if not set(choices) <= named else []
    notes += [note for note in (range_text(vars(param)), _default(param), _envvar(param)) if note]
    notes += ["required"] if param.required and not isinstance(param, TyperArgument) else []
    if notes:
        help.append(("" if not help else " ") + f"[{'; '.join(notes)}]", style=NOTE_STYLE)
    return help


def _default(param: Any) -> str:
    """``default: 32``: the default a parameter shows, if any (a flag with its negation shows on / off)."""
    value = param.default
    if not getattr(param, "show_default", None) or param.required or value is None or value in ([], ()):
        return ""
    if getattr(param, "is_flag", False):
        return f"default: {'on' if value else 'off'}" if param.secondary_opts else ""
    return "default: " + (", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value))


def _envvar(param: Any) -> str:
    """``env: NAME``: the environment variable the option is read from, when it shows it."""
    envvar = getattr(param, "envvar", None)
    if not envvar or not getattr(param, "show_envvar", False):
        return ""
    return "env: " + (envvar if isinstance(envvar, str) else ", ".join(envvar))
