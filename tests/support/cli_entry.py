"""Run the `factscope` entry point in-process, with its top-level error handling, for tests."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import typer

from factscope.cli import main as entry


@dataclass
class Ran:
    """What one command did: its exit code and what it printed."""

    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        """Standard output and error, with line breaks and table borders read as spaces."""
        return " ".join(f"{self.out}\n{self.err}".replace("│", " ").split())


def run_factscope(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str) -> Ran:
    """``factscope ARGV`` through ``factscope.cli.main.main``, on a freshly registered app."""
    app = typer.Typer(name="factscope", no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False)
    app.callback()(entry._root)
    monkeypatch.setattr(entry, "app", app)
    monkeypatch.setattr(entry, "_options", entry.RootOptions())
    monkeypatch.setattr("sys.argv", ["factscope", *argv])
    code = 0
    try:
        entry.main()
    except SystemExit as exited:
        code = exited.code if isinstance(exited.code, int) else 1
    captured = capsys.readouterr()
    return Ran(code, captured.out, captured.err)
