"""The `factscope` typer application and its entry point."""

from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass
from importlib import import_module
from types import ModuleType
from typing import TextIO

import typer
from rich.console import Console
from rich.markup import escape

from factscope.cli.parameter_flags import for_command_line
from factscope.core.errors import FactscopeError, FactscopeWarning, RecordsFailed
from factscope.core.files.storage_faults import STORAGE_ERRNOS, storage_fault
from factscope.core.version import __version__

EXIT_BUG = 1
EXIT_USAGE = 2
EXIT_RECORDS_FAILED = 3
WARNING = "[bold yellow]warning:[/]"
ERROR = "[bold red]error:[/]"

app = typer.Typer(
    name="factscope",
    help=(
        "Check what language models write against knowledge.\n\n"
        "Exit codes: 0 every record done; 1 an unexpected error (a bug: rerun with --debug and report it); "
        "2 a usage, input or settings error, or a disk or permission fault such as a full disk (the message says "
        "what to change); 3 the run finished but some records failed (kept in the results file; "
        "--allow-failures accepts that)."
    ),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        print(f"factscope {__version__}")
        raise typer.Exit()


@dataclass
class RootOptions:
    """Options given before the command, read when the command ends."""

    debug: bool = False
    allow_failures: bool = False


_options = RootOptions()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
    debug: bool = typer.Option(False, "--debug", help="On an unexpected error, print the full traceback."),
    allow_failures: bool = typer.Option(False, "--allow-failures", help=(
        "Exit 0 when the run finished but some records failed (their failures are kept in the results file); "
        "without it such a run exits 3."
    )),
) -> None:
    """Read the options given before the command."""
    _options.debug = debug
    _options.allow_failures = allow_failures


def command_modules() -> list[ModuleType]:
    """The command modules, in the order --help lists them; each has ``register(app)``. Each system's comes
    first, ``factscope.cli.<name>`` for every system of ``factscope.systems``."""
    from factscope.systems import SYSTEMS

    names = [system.name for system in SYSTEMS] + [
        "report", "export", "agree", "checkers", "train_checker", "eval_checker", "eval_spans", "package_checker",
        "examples", "serve",
    ]
    return [import_module(f"factscope.cli.{name}") for name in names]


def _register() -> None:
    """Attach every command module's commands to the app, their help reflowed for the terminal."""
    from factscope.cli.help_layout import lay_out

    for module in command_modules():
        module.register(app)
    lay_out(app)


def main() -> None:
    """Run the app: every error ends in one line (parameters shown as flags) and a documented exit code."""
    _register()
    errors = Console(stderr=True, soft_wrap=True)
    shown = warnings.showwarning

    def say(label: str, message: object) -> None:
        errors.print(f"{label} {escape(str(message))}", highlight=False)

    def flags(message: object) -> str:
        return for_command_line(str(message), typer.main.get_command(app), sys.argv[1:])

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: TextIO | None = None, line: str | None = None) -> None:
        if issubclass(category, FactscopeWarning):
            say(WARNING, flags(message))
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show
    try:
        app()
    except RecordsFailed as failed:
        say(WARNING, flags(failed))
        sys.exit(0 if _options.allow_failures else EXIT_RECORDS_FAILED)
    except FactscopeError as error:
        say(ERROR, flags(error))
        sys.exit(EXIT_USAGE)
    except Exception as error:
        if isinstance(error, OSError) and error.errno in STORAGE_ERRNOS:
            where = error.filename if error.filename is not None else "a file"
            kept = "Results files keep every complete row; run the same command again to resume"
            say(ERROR, storage_fault(error, where, "reading or writing it", kept=kept))
            sys.exit(EXIT_USAGE)
        if _options.debug:
            raise
        say(ERROR, f"unexpected {type(error).__name__}: {error}. This is a bug in factscope: rerun with "
            "`factscope --debug ...` to see where, and please report it with that output.")
        sys.exit(EXIT_BUG)
    finally:
        warnings.showwarning = shown
