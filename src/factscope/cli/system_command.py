"""A system's command, built from what the system declares of it (``System.command_form``): its input argument,
--output, --batch-size, its reader's options, its spec's and the run's (``run_options``); the command makes the
system's reader and spec of them and runs it (``CommandRun``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, cast

import typer

from factscope.cli.display import print_notes
from factscope.cli.engine_options import CommandRun, run_options
from factscope.cli.form_parameters import file_parameters, with_parameters
from factscope.cli.option_groups import add_group_options
from factscope.engines.command_form import CommandForm
from factscope.systems import AnySystem

SPEC = "spec"
"""The keyword that the command receives the spec's own options under."""


def add_system_command(app: typer.Typer, system: AnySystem) -> None:
    """Add ``system``'s command to ``app`` (the command line, or the system's command group)."""
    form = system.command_form
    command: Callable[..., None] = _command(system)
    for index, group in reversed(list(enumerate(form.reading))):
        command = add_group_options(command, group, f"reading_{index}", after="output")
    last_read = [name for name in inspect.signature(command).parameters if name != "run"][-1]
    for group in form.options:
        command = add_group_options(command, group, group.into or SPEC)
    app.command(form.name, help=form.help)(run_options(command, after=last_read))  # after the reader's options


def _command(system: AnySystem) -> Callable[..., None]:
    """The command that runs ``system``: its input argument, --output and --batch-size, and the run's keyword
    ``run`` (``run_options``), to which the groups of options are added."""
    form = system.command_form

    def command(**values: Any) -> None:
        run: CommandRun = values.pop("run")
        source: Path = values.pop(form.input)
        given: Path | None = values.pop("output")
        batch_size: int = values.pop("batch_size", form.batch_size)
        reader = system.reader([values.pop(f"reading_{index}") for index in range(len(form.reading))], run.notes)
        parts = {group.into: values.pop(group.into) for group in form.options if group.into is not None}
        spec = system.command_spec(replace(values.pop(SPEC), **parts), endpoint=run.endpoint.configured())
        print_notes(reader.spec_notes(spec))
        output = run.output(source, given, form.suffix) if form.suffix is not None else cast(Path, given)
        run(reader, spec, source, output, batch_size=batch_size)

    return with_parameters(command, _parameters(form))


def _parameters(form: CommandForm) -> list[inspect.Parameter]:
    """The parameters of ``form``'s command before its groups of options are added."""
    positional, keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY
    parameters = file_parameters(form.input, form.input_help, form.output_text, required=form.suffix is None,
                                 panels=form.panels)
    if form.batch_help is not None:
        parameters.append(inspect.Parameter("batch_size", positional, default=form.batch_size, annotation=Annotated[
            int, typer.Option(min=1, help=form.batch_help, rich_help_panel=form.panels.get("batch_size"))]))
    return [*parameters, inspect.Parameter("run", keyword, annotation=CommandRun)]
