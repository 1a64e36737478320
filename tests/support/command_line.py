"""The factscope command line with some or all of its commands registered, for typer's CliRunner; and a system's
command built with other dataclasses for some of its groups of options."""

from __future__ import annotations

from dataclasses import replace
from types import ModuleType
from typing import Any

import pytest
import typer


def command_line(*modules: ModuleType) -> typer.Typer:
    """A typer app with the commands of ``modules`` registered (every command module when none is named), under a
    callback so that each command keeps its name; no entry-point handler, so exceptions reach the test."""
    from factscope.cli.main import command_modules

    application = typer.Typer()

    @application.callback()
    def main() -> None:
        """factscope (test app)."""

    for module in modules or command_modules():
        module.register(application)
    return application


def swap_option_groups(monkeypatch: pytest.MonkeyPatch, system: type[Any], swapped: dict[type, type]) -> None:
    """Make the command of ``system`` (a ``System`` class) offer the options of each dataclass of ``swapped`` in
    place of its key's."""
    form = system.command_form
    groups = tuple(replace(group, options=swapped.get(group.options, group.options)) for group in form.options)
    monkeypatch.setattr(system, "command_form", replace(form, options=groups))
