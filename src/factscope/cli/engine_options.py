"""The options of a command that runs a system: ``@run_options`` adds the results-file options, --engine with the
Ray run's settings (``factscope.engines.ray.RayOptions``) and the LLM endpoint, which make a ``CommandRun``,
which runs a system with them (``System.execute``, which chooses the engine) and shows the run
through the system's hooks."""

from __future__ import annotations

import shlex
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from factscope.cli.display import TerminalNotes, print_next, print_notes, print_summary, print_table
from factscope.cli.llm_options import LLMOptions, llm_options, summed_usage
from factscope.cli.option_groups import Command, add_field_options
from factscope.cli.output_options import OutputOptions, output_options
from factscope.cli.output_paths import check_outputs
from factscope.core.display.progress import ProgressDisplay
from factscope.core.errors import RecordsFailed
from factscope.core.options.metadata import about
from factscope.core.options.panels import ENGINE
from factscope.core.options.validation import ValidatedOptions
from factscope.engines.parts import RunOutcome
from factscope.engines.ray import RayOptions
from factscope.engines.system import Engine
from factscope.hf.llm_endpoint import ClientOnce

if typing.TYPE_CHECKING:
    from factscope.engines.system import System

LAST_OUTPUT_OPTION = "retry_failed"
"""The results-file option the LLM's options follow: the LLM panel lists the endpoint's options before the
components' LLM settings."""

RAY_DEFAULTS = {"concurrency": 2}
"""The command line's own defaults of the Ray settings: two actors."""


@dataclass(frozen=True)
class EngineOptions(ValidatedOptions):
    """The engine given on the command line."""

    engine: Engine = field(default="local", metadata=about(
        "local (this process) or ray (a Ray cluster, 'factscope\\[ray]'; INPUT may be a folder of *.jsonl "
        "shards, -o a results folder)"
    ))


@dataclass(frozen=True)
class CommandRun:
    """How a command runs its system: on ``engine`` (with the Ray settings ``ray``), with the LLM of
    ``endpoint``, into a results file as ``outputs`` says."""

    engine: EngineOptions
    ray: RayOptions
    endpoint: LLMOptions
    outputs: OutputOptions

    @property
    def on_ray(self) -> bool:
        """Whether the run goes to Ray."""
        return self.engine.engine == "ray"

    def output(self, input: Path, given: Path | None, suffix: str) -> Path:
        """The results file (on Ray, folder): ``given``, else INPUT's name with ``suffix`` here (and ``.jsonl``
        for a file)."""
        return given or Path(f"{input.stem}{suffix}" + ("" if self.on_ray else ".jsonl"))

    def __call__(self, system: System[Any, Any, Any, Any, Any], spec: Any, inputs: Any, output: Path, *,
                 batch_size: int) -> None:
        """Run ``system`` with ``spec`` over ``inputs`` into ``output`` with the progress display, what its input
        skipped printed as it is read; then print its figure tables, its summary table (with the LLM usage:
        on Ray, the workers' summed), its notes and the command that shows the results file as a page, write
        --summary, and raise RecordsFailed when records failed.
        A --summary file that may not be written is refused first; the run refuses a bad ``output`` and takes its
        lock before it reads anything (``System.execute``)."""
        check_outputs(written={"summary": self.outputs.summary})
        self.endpoint.refuse_if_unused(system.unused_llm(spec))
        client = ClientOnce(self.endpoint)
        with ProgressDisplay() as shown:
            ran = system.execute(
                spec, inputs, engine=self.engine.engine, llm=client, output=output, batch_size=batch_size,
                progress=shown, overwrite=self.outputs.overwrite, retry_failed=self.outputs.retry_failed,
                ray=self.ray, notes=TerminalNotes(),
            )
        needed = system.needs_llm(spec)
        usage = summed_usage(self.endpoint, needed, ran.llm_usage) if self.on_ray else client.usage_rows()
        run = ran.result
        for table in system.figure_tables(run):
            print_table(table)
        outcome = RunOutcome(skipped=len(ran.problems), output=output, passed_over=ran.passed_over)
        print_summary(system.summary_title(run, output), system.summary_rows(run, outcome) + usage)
        print_notes(system.notes(run))
        if not self.on_ray:
            print_next(f"the results are in {output}; see them as a page: factscope report {shlex.quote(str(output))}")
        self.outputs.write_summary(system.summary_figures(run, ran.problems))
        failed, what = system.failures(run)
        if failed:
            raise RecordsFailed(failed, what, output)


def run_options(command: Command, *, after: str | None = None) -> Command:
    """Give ``command`` the results-file options (listed after its parameter ``after``, else after all of
    them), --engine with the Ray settings, and the LLM endpoint; it receives them as the keyword arguments
    named as the fields of ``CommandRun``, which they make."""
    with_outputs = output_options(command, after=after)
    with_engine = add_field_options(with_outputs, EngineOptions, "engine", panel=ENGINE)
    with_ray = add_field_options(with_engine, RayOptions, "ray", defaults=RAY_DEFAULTS, panel=ENGINE)
    return llm_options(with_ray, after=LAST_OUTPUT_OPTION)
