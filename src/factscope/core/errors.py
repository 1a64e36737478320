"""The error hierarchy: every error factscope raises on purpose is a FactscopeError.

A message names a parameter in backticks, alone or with a value as Python writes it (`window_sentences`,
`method='finetune'`, `overwrite=True`), never as a command-line flag: the CLI shows each such mention as the flag of
the running command (``factscope.cli.parameter_flags``), and a caller of the API reads the name it passes.
"""

from __future__ import annotations

from pathlib import Path


class FactscopeWarning(UserWarning):
    """Base class of the warnings factscope gives a run's user (the CLI shows each as one line, with flags for the
    parameters it names)."""


class FactscopeError(Exception):
    """Base class of factscope's own errors; the CLI prints these without a traceback."""


class InputError(FactscopeError):
    """Bad user input, located by file, line and field where known."""

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = str(path) if path is not None else None
        self.line = line
        self.field = field
        self.reason = message
        where = ":".join(str(part) for part in (self.path, self.line) if part is not None)
        prefix = f"{where}: " if where else ""
        field_part = f"field '{field}': " if field else ""
        super().__init__(f"{prefix}{field_part}{message}")


class BackendError(FactscopeError):
    """A model or service failed in a way retries could not fix."""


class ConfigError(FactscopeError):
    """A missing or inconsistent setting; the message names the setting to supply."""


class RecordsFailed(FactscopeError):
    """A run finished, but some records (or claims) failed; the results file keeps each failure with its error
    (``kept``), or, where failures are not written, a rerun of the same command tries them again."""

    def __init__(self, count: int, what: str, where: str | Path, *, kept: bool = True) -> None:
        self.count = count
        fate = (
            f"each is kept in {where} with its error (and the raw reply where there was one); rerun with "
            "`retry_failed=True` to try them again"
            if kept
            else f"they are not written to {where}, so rerunning the same command tries them again"
        )
        super().__init__(f"{count} {what} failed; {fate}. Pass `allow_failures=True` before the command to "
                         "accept a partial run.")
