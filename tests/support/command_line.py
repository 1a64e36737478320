"""The factscope command line with some or all of its commands registered, for typer's CliRunner."""

from __future__ import annotations

from types import ModuleType

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
