"""The parameters that a command built from a form starts with (``factscope.engines.command_form``): its input
argument and its results file's option --output, given to a command as its signature."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated

import typer


def file_parameters(input: str, input_help: str, output_help: str, *, required: bool,
                    panels: Mapping[str, str]) -> list[inspect.Parameter]:
    """The argument ``input`` (``input_help``) and --output (``output_help``; ``required``, else None by
    default), under the panels ``panels`` gives ``input`` and ``output``."""
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    output = typer.Option("--output", "-o", help=output_help, rich_help_panel=panels.get("output"))
    return [
        inspect.Parameter(input, positional, annotation=Annotated[Path, typer.Argument(
            help=input_help, show_default=False, rich_help_panel=panels.get("input"))]),
        inspect.Parameter("output", positional, annotation=Annotated[Path, output]) if required else
        inspect.Parameter("output", positional, default=None, annotation=Annotated[Path | None, output]),
    ]


def with_parameters(command: Callable[..., None], parameters: list[inspect.Parameter]) -> Callable[..., None]:
    """``command`` (which takes keyword arguments) as a command of ``parameters``."""
    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters}
    return command
