"""An option given on the command line where its rule (``factscope.core.options.rules``) does not hold, even at its
default, is refused as a usage error before any work in the library's words, or warned about where the rule only
warns; one left out never is."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import typer

from factscope.cli.output_paths import running_command
from factscope.cli.parameter_flags import in_context
from factscope.core.display.progress import console
from factscope.core.options.rules import CountsWhen, broken_rule
from factscope.core.options.validation import rule_refusal


class RuledOption(NamedTuple):
    """A field's option: its parameter, its field's name, its flag and its rules."""

    param: str
    name: str
    flag: str
    rules: tuple[CountsWhen, ...]


CHECKED = "factscope.option_rules.checked"
"""The key of ``Context.meta`` that holds the context whose field rules were enforced (once a command)."""


def enforce_field_rules(groups: Sequence[Mapping[str, RuledOption]], values: Mapping[str, Any]) -> None:
    """Enforce the rules of the options of each group of fields (field name -> option) of the running command,
    reading its parameters ``values``: once a command, at the outermost wrapper, which has them all. A rule
    reads fields by name, its own group's first."""
    context = running_command()
    if context is None or context.meta.get(CHECKED) is context:
        return
    context.meta[CHECKED] = context
    every = {name: values[option.param] for group in groups for name, option in group.items()}
    broken: list[tuple[RuledOption, CountsWhen | None]] = []
    for group in groups:
        read = every | {name: values[option.param] for name, option in group.items()}
        broken += [(option, broken_rule(option.rules, read)) for option in group.values()
                   if _given(context, option.param)]
    _refuse(broken)


def _given(context: typer.Context, param: str) -> bool:
    """Whether the parameter ``param`` was given on the command line."""
    source = context.get_parameter_source(param)
    return source is not None and source.name == "COMMANDLINE"


def _refuse(broken: list[tuple[RuledOption, CountsWhen | None]]) -> None:
    """Warn of each (option, broken rule or None) whose rule warns, then refuse the first whose rule refuses."""
    found = [(option, rule) for option, rule in broken if rule is not None]
    for option, rule in sorted(found, key=lambda pair: not pair[1].warn):
        said = in_context(rule_refusal(option.name, rule.condition).replace(f"`{option.name}`", option.flag, 1))
        if not rule.warn:
            raise typer.BadParameter(said, param_hint=f"'{option.flag}'")
        console.print(f"[bold yellow]warning[/] {said}; this run ignores it")
