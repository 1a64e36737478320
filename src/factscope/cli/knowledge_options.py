"""The arguments the `factscope knowledge` commands share besides the fields of the library's dataclasses."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

QueryFile = Annotated[Path, typer.Argument(
    help="queries: JSON / JSONL records with `query` (and `topic`, `task`), or a CONNER query table (TSV).",
    show_default=False,
)]
Output = Annotated[Path | None, typer.Option("--output", "-o", help="results JSONL (resumable)")]
