"""A writer's command, built from what its package declares of it (``factscope.engines.command_form.WriterForm``):
its input argument, --output, its groups of options, the results file's options and the --llm-* options; the
command makes the writer and its settings of them and runs it with the LLM they build."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from factscope.cli.display import TerminalNotes, print_notes, print_summary
from factscope.cli.form_parameters import file_parameters, with_parameters
from factscope.cli.llm_options import LLMOptions, llm_options, usage_rows
from factscope.cli.option_groups import add_group_options
from factscope.cli.output_options import OutputOptions, output_options
from factscope.cli.output_paths import check_outputs
from factscope.core.display.progress import ProgressDisplay
from factscope.core.errors import RecordsFailed
from factscope.engines.command_form import WriterForm
from factscope.engines.writer import Writer

SETTINGS = "settings"
"""The keyword that the command receives the settings' own options under."""


def add_writer_command(app: typer.Typer, form: WriterForm) -> None:
    """Add the command of ``form`` to ``app`` (its command group)."""
    command: Callable[..., None] = _command(form)
    for group in form.options:
        command = add_group_options(command, group, group.into or SETTINGS)
    app.command(form.name, help=form.help)(llm_options(output_options(command, summary=False)))


def _command(form: WriterForm) -> Callable[..., None]:
    """The command that runs ``form``'s writer: its input argument and --output, to which the groups of options
    are added."""

    def command(**values: Any) -> None:
        source: Path = values.pop(form.input)
        given: Path | None = values.pop("output")
        endpoint: LLMOptions = values.pop("endpoint")
        outputs: OutputOptions = values.pop("outputs")
        writer, settings = form.writing(**values)
        print_notes(writer.run_notes())
        output = given or Path(f"{source.stem}{form.suffix}.jsonl")
        write_with_llm(writer, settings, source, output, endpoint, outputs)

    parameters = file_parameters(form.input, form.input_help, form.output_help, required=form.suffix is None,
                                 panels={})
    return with_parameters(command, parameters)


def write_with_llm(
    writer: Writer[Any, Any, Any], settings: Any, inputs: Path, output: Path, endpoint: LLMOptions,
    outputs: OutputOptions,
) -> None:
    """Run the library ``writer`` with ``settings`` over ``inputs`` with the command's LLM into ``output``, under
    the progress display; print its summary table under the writer's name; raise RecordsFailed when records
    failed."""
    check_outputs(output, overwrite=outputs.overwrite)
    llm = endpoint.build()
    with ProgressDisplay() as shown:
        run = writer.write(settings, inputs, llm=llm, output=output, progress=shown, overwrite=outputs.overwrite,
                           retry_failed=outputs.retry_failed, notes=TerminalNotes())
    print_summary(f"{writer.name} -> {output}", run.summary_rows() + usage_rows(llm))
    if run.failed:
        raise RecordsFailed(run.failed, run.what_failed, output, kept=run.failures_kept)
