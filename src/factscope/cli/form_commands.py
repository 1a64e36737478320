"""The commands built from what the library declares of them (``factscope.engines.command_form``). A
system's command (``System.command_form``): its input argument, --output, --batch-size, its reader's options,
its spec's and the run's (``run_options``); it makes the system's reader and spec of them and runs it
(``CommandRun``). A writer's command (a ``WriterForm`` its package declares): its input argument, --output,
its groups of options, the results file's options and the --llm-* options; it makes the writer and its
settings of them and runs it with the LLM they build."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import Annotated, Any, cast

import typer

from factscope.cli.display import TerminalNotes, print_notes, print_summary
from factscope.cli.engine_options import CommandRun, run_options
from factscope.cli.llm_options import LLMOptions, llm_options
from factscope.cli.option_groups import add_group_options
from factscope.cli.output_options import OutputOptions, output_options
from factscope.cli.output_paths import check_outputs
from factscope.core.display.progress import ProgressDisplay
from factscope.core.errors import RecordsFailed
from factscope.engines.command_form import WriterForm
from factscope.systems import AnySystem

SPEC = "spec"
"""The keyword that a system's command receives the spec's own options under."""


def add_system_command(app: typer.Typer, system: AnySystem) -> None:
    """Add ``system``'s command to ``app`` (the command line, or the system's command group)."""
    form = system.command_form
    command: Callable[..., None] = _system_command(system)
    for index, group in reversed(list(enumerate(form.reading))):
        command = add_group_options(command, replace(group, after="output"), f"reading_{index}")
    last_read = list(inspect.signature(command).parameters)[-1]
    for group in form.options:
        command = add_group_options(command, group, group.into or SPEC)
    app.command(form.name, help=form.help)(run_options(command, after=last_read))  # after the reader's options


def _system_command(system: AnySystem) -> Callable[..., None]:
    """The command that runs ``system`` (``CommandRun``, of the keywords of ``run_options``): its input
    argument, --output and --batch-size, to which the groups of options are added."""
    form = system.command_form

    def command(**values: Any) -> None:
        run = CommandRun(**{item.name: values.pop(item.name) for item in fields(CommandRun)})
        source: Path = values.pop(form.input)
        given: Path | None = values.pop("output")
        batch_size: int = values.pop("batch_size", form.batch_size)
        reader = system.reader([values.pop(f"reading_{index}") for index in range(len(form.reading))],
                               TerminalNotes())
        parts = {group.into: values.pop(group.into) for group in form.options if group.into is not None}
        spec = system.command_spec(replace(values.pop(SPEC), **parts), endpoint=run.endpoint.configured())
        print_notes(reader.spec_notes(spec))
        output = run.output(source, given, form.suffix) if form.suffix is not None else cast(Path, given)
        run(reader, spec, source, output, batch_size=batch_size)

    more: list[inspect.Parameter] = []
    if form.batch_help is not None:
        batch = typer.Option(min=1, help=form.batch_help, rich_help_panel=form.panels.get("batch_size"))
        more.append(inspect.Parameter("batch_size", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                      default=form.batch_size, annotation=Annotated[int, batch]))
    return _with_file_parameters(command, form.input, form.input_help, form.output_text,
                                 required=form.suffix is None, panels=form.panels, more=more)


def add_writer_command(app: typer.Typer, form: WriterForm) -> None:
    """Add the command of ``form`` to ``app`` (its command group)."""
    command: Callable[..., None] = _writer_command(form)
    for keyword, group in form.options.items():
        command = add_group_options(command, group, keyword)
    app.command(form.name, help=form.help)(llm_options(output_options(command, summary=False)))


def _writer_command(form: WriterForm) -> Callable[..., None]:
    """The command that runs ``form``'s writer with the command's LLM into its results file, under the
    progress display, and prints its summary table (RecordsFailed when records failed): its input argument and
    --output, to which the groups of options are added."""

    def command(**values: Any) -> None:
        source: Path = values.pop(form.input)
        output: Path = values.pop("output") or Path(f"{source.stem}{form.suffix}.jsonl")
        endpoint: LLMOptions = values.pop("endpoint")
        outputs: OutputOptions = values.pop("outputs")
        writer, settings = form.writing(**values)
        print_notes(writer.run_notes())
        check_outputs(output, overwrite=outputs.overwrite)
        llm = endpoint.build()
        with ProgressDisplay() as shown:
            run = writer.write(settings, source, llm=llm, output=output, progress=shown,
                               notes=TerminalNotes(), overwrite=outputs.overwrite,
                               retry_failed=outputs.retry_failed)
        print_summary(f"{writer.name} -> {output}", run.summary_rows() + llm.usage_rows())
        if run.failed:
            raise RecordsFailed(run.failed, run.what_failed, output, kept=run.failures_kept)

    return _with_file_parameters(command, form.input, form.input_help, form.output_help,
                                 required=form.suffix is None, panels={})


def _with_file_parameters(
    command: Callable[..., None], input: str, input_help: str, output_help: str, *, required: bool,
    panels: Mapping[str, str], more: Sequence[inspect.Parameter] = (),
) -> Callable[..., None]:
    """``command`` (which takes keyword arguments) as a command of the argument ``input`` (``input_help``),
    --output (``output_help``; ``required``, else None by default), each under the panel ``panels`` gives it,
    and the parameters ``more``."""
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    output = typer.Option("--output", "-o", help=output_help, rich_help_panel=panels.get("output"))
    parameters = [
        inspect.Parameter(input, positional, annotation=Annotated[Path, typer.Argument(
            help=input_help, show_default=False, rich_help_panel=panels.get("input"))]),
        inspect.Parameter("output", positional, annotation=Annotated[Path, output]) if required else
        inspect.Parameter("output", positional, default=None, annotation=Annotated[Path | None, output]),
        *more,
    ]
    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters}
    return command
