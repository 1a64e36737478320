"""The --engine options, declared once: ``@engine_options`` adds them to a command and hands it one
``EngineOptions``; ``run_sharded`` runs a command's pipeline on Ray with the command's progress display."""

from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from factscope.cli.choices import Engine
from factscope.cli.option_groups import Command, add_option_group
from factscope.cli.option_ranges import finite

if typing.TYPE_CHECKING:
    from factscope.core.run import Pipeline
    from factscope.engines.ray import RecordParser, ShardedRun

PANEL = "Engine (where the run goes)"


@dataclass(frozen=True)
class EngineOptions:
    """The engine settings given on the command line."""

    engine: Annotated[
        Engine,
        typer.Option(
            "--engine",
            help="local: this process; ray: a Ray cluster (pip install 'factscope\\[ray]'), where INPUT may be a "
            "folder of *.jsonl shards and -o names a results folder with one results shard per input shard",
            rich_help_panel=PANEL,
        ),
    ] = "local"
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray-address",
            help="the Ray cluster to run on (ray://HEAD:10001, or auto on a cluster node); default: start a local "
            "one \\[env RAY_ADDRESS]",
            rich_help_panel=PANEL,
        ),
    ] = None
    concurrency: Annotated[
        int,
        typer.Option(
            "--concurrency",
            min=1,
            help="Ray actors, each loading the models once (with --engine ray)",
            rich_help_panel=PANEL,
        ),
    ] = 2
    num_gpus: Annotated[
        float,
        typer.Option(
            "--num-gpus",
            min=0.0,
            callback=finite,
            help="GPUs per Ray actor; a fraction such as 0.25 puts four actors on one GPU (with --engine ray; add "
            "--device cuda)",
            rich_help_panel=PANEL,
        ),
    ] = 0.0

    @property
    def on_ray(self) -> bool:
        """Whether the run goes to Ray."""
        return self.engine == "ray"


def engine_options(command: Command) -> Command:
    """Give ``command`` the engine options; it receives them as one keyword argument ``engine: EngineOptions``."""
    return add_option_group(command, EngineOptions, "engine")


def run_sharded(
    engine: EngineOptions,
    build: Callable[[], Pipeline[Any, Any, Any]],
    parse: RecordParser[Any],
    input: Path,
    output: Path,
    *,
    batch_size: int,
    overwrite: bool,
    retry_failed: bool,
) -> ShardedRun[Any, Any]:
    """Run a command's pipeline on Ray (``factscope.engines.ray``) with the progress display, printing each
    skipped input record; a Parquet or CSV input (Ray reads JSONL shards), a missing Ray or a bad results folder
    stops before any work."""
    from factscope.cli.display import ProgressDisplay, print_skipped
    from factscope.core.errors import InputError
    from factscope.core.tables import is_table_file
    from factscope.engines.ray import RayOptions, require_ray, run_on_ray
    from factscope.engines.shards import check_results_folder

    if is_table_file(input):
        raise InputError(
            "--engine ray reads JSON / JSONL records (or a folder of *.jsonl shards); run a Parquet or CSV file "
            "without --engine ray, or write it as JSONL first",
            path=input,
        )
    require_ray()
    check_results_folder(output, overwrite=overwrite)
    options = RayOptions(
        address=engine.ray_address,
        concurrency=engine.concurrency,
        num_gpus=engine.num_gpus,
        batch_size=batch_size,
    )
    with ProgressDisplay() as shown:
        sharded = run_on_ray(
            build,
            parse,
            input,
            output,
            options=options,
            overwrite=overwrite,
            retry_failed=retry_failed,
            progress=shown,
        )
    for problem in sharded.problems:
        print_skipped(problem)
    return sharded
