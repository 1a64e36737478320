"""Options every command that writes a results file shares."""

from __future__ import annotations

from typing import Annotated

import typer

Overwrite = Annotated[
    bool,
    typer.Option(
        "--overwrite",
        help="start the results file again; without it a rerun resumes, and only into a file made by the same "
        "input and settings (a file made otherwise is refused, saying what differs)",
    ),
]

RetryFailed = Annotated[
    bool,
    typer.Option(
        "--retry-failed",
        help="on a rerun, process again the records the results file marks failed and replace their rows in "
        "place (each record keeps one row; the summary covers the new rows)",
    ),
]
