"""The options of a command's results file, declared once as the fields of ``OutputOptions``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from factscope.cli.option_groups import Command, add_field_options
from factscope.core.options.metadata import about
from factscope.core.options.panels import OUTPUT
from factscope.core.options.validation import ValidatedOptions

RERUN_FIELDS = frozenset({"overwrite", "retry_failed"})
"""The fields of a command that writes no summary file."""


@dataclass(frozen=True)
class OutputOptions(ValidatedOptions):
    """How a command treats its results file, and where it writes its summary figures."""

    summary: Path | None = field(default=None, metadata=about("also write the run's figures as JSON here"))
    overwrite: bool = field(default=False, metadata=about(
        "start the results file again (without it a rerun resumes a file made with the same input and settings)",
    ))
    retry_failed: bool = field(default=False, metadata=about(
        "on a rerun, redo the failed records (their rows replaced)",
    ))

    def write_summary(self, figures: object) -> None:
        """Write ``figures`` as indented JSON to the summary file, when one was given."""
        if self.summary is not None:
            self.summary.write_text(json.dumps(figures, indent=2), encoding="utf-8")


def output_options(command: Command, *, summary: bool = True, after: str | None = None) -> Command:
    """Give ``command`` the results-file options (--summary only when ``summary``), listed after its parameter
    ``after`` (else after all of them); it receives them as one keyword argument ``outputs: OutputOptions``."""
    return add_field_options(command, OutputOptions, "outputs", names=None if summary else RERUN_FIELDS, panel=OUTPUT,
                             after=after)
