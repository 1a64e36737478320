"""The one place that maps a parameter a library message names (`window_sentences`, `method='finetune'`) to
the running command's flag (--window-sentences, --method finetune), read from the command itself. A parameter
the command lacks takes the flag it has everywhere else in the CLI; one no command has, or two spell
differently, stays as the library wrote it."""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeAlias

import typer
from typer.core import TyperArgument, TyperGroup

from factscope.cli.output_paths import running_command

Command: TypeAlias = Any
"""A command or group of the typer app (typer names the click classes it builds on in a private module)."""
Parameter: TypeAlias = Any
"""An option or argument of a ``Command``."""

MENTION = re.compile(r"(?<![`\w])`([a-z][a-z0-9_]*)(?:=([^`\s]+))?`(?!`)")
"""A parameter mention in a library message: `name` or `name=value` (value a Python literal)."""

BUNDLES = {"llm": (
    ("llm", "llm_base_url", "llm_model"),
    ("{llm} local:embedded (or local:PATH_OR_NAME, a model run in-process), or {llm_base_url} and {llm_model} "
    "(or set FACTSCOPE_LLM_BASE_URL and FACTSCOPE_LLM_MODEL; OPENAI_API_KEY alone calls OpenAI's endpoint)"),
)}
"""API parameters that take a ready object which the CLI builds from several options: those options, and how the
message names them (their flags in braces)."""


def invoked(root: Command, args: Sequence[str]) -> list[Command]:
    """The commands ``args`` run, from ``root`` down to the one that did the work."""
    chain = [root]
    for word in args:
        command = chain[-1]
        if not isinstance(command, TyperGroup):
            break
        sub = command.commands.get(word)
        if sub is not None:
            chain.append(sub)
    return chain


def parameters(chain: Sequence[Command]) -> dict[str, Parameter]:
    """Parameter name -> parameter for the running command ``chain`` (root first): the innermost command's own,
    then its groups', then any other command's that every command shows alike."""
    found: dict[str, Parameter] = {}
    for command in reversed(chain):
        for parameter in command.params:
            for name in _names(parameter):
                found.setdefault(name, parameter)
    elsewhere: dict[str, list[Parameter]] = {}
    for parameter in _every_parameter(chain[0]):
        for name in _names(parameter):
            elsewhere.setdefault(name, []).append(parameter)
    for name, alike in elsewhere.items():
        if name not in found and len({_flag(parameter, None) for parameter in alike}) == 1:
            found[name] = alike[0]
    return found


def _names(parameter: Parameter) -> list[str]:
    """The names a library may give ``parameter``: its own, and each long flag read as a name (--label-order:
    label_order)."""
    names = [parameter.name] if parameter.name else []
    return names + [opt[2:].replace("-", "_") for opt in parameter.opts if opt.startswith("--")]


def _every_parameter(command: Command) -> Iterator[Parameter]:
    """Every parameter of ``command`` and of the commands under it."""
    yield from command.params
    if isinstance(command, TyperGroup):
        for sub in command.commands.values():
            yield from _every_parameter(sub)


def with_flags(message: str, known: Mapping[str, Parameter | str]) -> str:
    """``message`` with each parameter mention that ``known`` has (a parameter, or its flag), or that
    ``BUNDLES`` builds from it, shown as the command line writes it."""

    def shown(match: re.Match[str]) -> str:
        name, value = match.group(1), match.group(2)
        if value is None and name in BUNDLES and all(part in known for part in BUNDLES[name][0]):
            options, shown_as = BUNDLES[name]
            return shown_as.format(**{part: _flag(known[part], None) or part for part in options})
        flag = _flag(known[name], value) if name in known else None
        return flag or match.group(0)

    return MENTION.sub(shown, message)


def _flag(parameter: Parameter | str, value: str | None) -> str | None:
    """How the command line writes ``parameter`` (set to ``value``, a Python literal, when given); None when the
    value cannot be shown as a flag."""
    if isinstance(parameter, TyperArgument):
        return parameter.name.upper() if value is None and parameter.name else None
    if isinstance(parameter, str):
        flag, switch, negated = parameter, True, None
    else:
        flag = next((opt for opt in parameter.opts if opt.startswith("--")), parameter.opts[0])
        switch = parameter.is_flag
        negated = parameter.secondary_opts[0] if parameter.secondary_opts else None
    if value is None:
        return flag
    try:
        literal = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        literal = value
    if isinstance(literal, bool) and switch:
        return flag if literal else negated
    return f"{flag} {shlex.quote(str(literal))}"


def in_context(message: str, context: typer.Context | None = None) -> str:
    """``message`` with flags for the command ``context`` (else the running one) runs; as is outside one."""
    current: Any = context if context is not None else running_command()
    if current is None:
        return message
    chain: list[Command] = []
    while current is not None:
        chain.insert(0, current.command)
        current = current.parent
    return with_flags(message, parameters(chain))


def for_command_line(message: str, root: Command, args: Sequence[str]) -> str:
    """``message`` with flags for the command that ``args`` ran under ``root`` (for errors that end the run)."""
    return with_flags(message, parameters(invoked(root, args)))
