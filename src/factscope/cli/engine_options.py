"""The --engine options: ``@engine_options`` adds --engine and the Ray run's settings (the fields of
``factscope.engines.ray.RayOptions``) to a command and hands it one ``EngineOptions`` and one ``RayOptions``;
``run_system`` runs a command's system on that engine (``System.execute``, which chooses it) with the command's
progress display."""

from __future__ import annotations

import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from factscope.cli.llm_options import ClientOnce, LLMOptions, summed_usage
from factscope.cli.option_groups import Command, add_field_options
from factscope.cli.output_options import OutputOptions
from factscope.core.option_metadata import about
from factscope.core.run_result import RunResult
from factscope.engines.ray import RayOptions
from factscope.engines.system import Engine

if typing.TYPE_CHECKING:
    from factscope.engines.system import Execution, LoadedCallback, System
    from factscope.llm.client import LLMClient

SpecT = TypeVar("SpecT")
RunT = TypeVar("RunT", bound="RunResult[Any]")

PANEL = "Engine (where the run goes)"

RAY_DEFAULTS = {"concurrency": 2}
"""The command line's own defaults of the Ray settings: two actors."""


@dataclass(frozen=True)
class EngineOptions:
    """The engine given on the command line."""

    engine: Engine = field(default="local", metadata=about(
        "local: this process; ray: a Ray cluster (pip install 'factscope\\[ray]'), where INPUT may be a "
        "folder of *.jsonl shards and -o names a results folder with one results shard per input shard"
    ))

    @property
    def on_ray(self) -> bool:
        """Whether the run goes to Ray."""
        return self.engine == "ray"


def engine_options(command: Command) -> Command:
    """Give ``command`` --engine and the Ray settings; it receives them as the keyword arguments ``engine:
    EngineOptions`` and ``ray: RayOptions``."""
    command = add_field_options(command, EngineOptions, "engine", panel=PANEL)
    return add_field_options(command, RayOptions, "ray", defaults=RAY_DEFAULTS, panel=PANEL)


def run_system(
    system: System[SpecT, Any, Any, Any, RunT],
    spec: SpecT,
    inputs: Any,
    output: Path,
    *,
    engine: EngineOptions,
    ray: RayOptions,
    endpoint: LLMOptions,
    batch_size: int,
    outputs: OutputOptions,
    loaded: LoadedCallback | None = None,
    client: ClientOnce | None = None,
) -> tuple[Execution[RunT], LLMClient | None]:
    """Run ``system`` on the command's engine (``System.execute``, given the Ray settings ``ray`` as they are)
    with the progress display, and the LLM client whose usage the summary shows: the one the run made
    (``client``, when the command made it already), or on Ray one holding the usage its workers reported (the
    driver's own, made to describe the pipeline, made no call)."""
    from factscope.cli.display import ProgressDisplay

    client = client or ClientOnce(endpoint)
    with ProgressDisplay() as shown:
        ran = system.execute(
            spec, inputs, engine=engine.engine, llm=client, output=output, batch_size=batch_size, progress=shown,
            overwrite=outputs.overwrite, retry_failed=outputs.retry_failed, ray=ray, loaded=loaded,
        )
    if engine.on_ray:
        return ran, summed_usage(endpoint, system.needs_llm(spec), ran.llm_usage)
    return ran, client.client


def report_run(
    system: System[Any, Any, Any, Any, RunT],
    ran: Execution[RunT],
    output: Path,
    client: LLMClient | None,
    outputs: OutputOptions,
    *,
    title: str = "run",
    rows: list[tuple[str, object]] | None = None,
) -> None:
    """Print a run's figure tables, its summary table under ``title`` (with the command's own ``rows`` after the
    skipped count, and the LLM usage) and its notes; write ``--summary``; raise RecordsFailed when records
    failed (the system's hooks say what each shows: ``System.figure_tables``, ``summary_rows``, ``notes``,
    ``summary_figures``, ``failures``)."""
    from factscope.cli.display import print_notes, print_table, summary_table
    from factscope.cli.llm_options import usage_rows
    from factscope.core.errors import RecordsFailed
    from factscope.core.system import RunOutcome

    run = ran.result
    for table in system.figure_tables(run):
        print_table(table)
    outcome = RunOutcome(skipped=len(ran.problems), output=output, rows=rows or [])
    print_table(summary_table(title, system.summary_rows(run, outcome) + usage_rows(client)))
    print_notes(system.notes(run))
    outputs.write_summary(system.summary_figures(run, ran.problems))
    failed, what = system.failures(run)
    if failed:
        raise RecordsFailed(failed, what, output)


def output_path(engine: EngineOptions, input: Path, given: Path | None, suffix: str) -> Path:
    """The results file (or, on Ray, folder) of a command: ``given``, else INPUT's name with ``suffix`` here
    (and ``.jsonl`` for a file)."""
    return given or Path(f"{input.stem}{suffix}" + ("" if engine.on_ray else ".jsonl"))


def check_output(engine: EngineOptions, output: Path, outputs: OutputOptions) -> None:
    """Refuse, before any work, a results file that may not be written or a summary file that is taken (a
    results folder is checked by the Ray engine)."""
    from factscope.cli.output_paths import check_outputs

    results = None if engine.on_ray else output
    check_outputs(results, overwrite=outputs.overwrite, written={"summary": outputs.summary})
