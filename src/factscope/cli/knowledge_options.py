"""The options the `factscope knowledge` commands share besides ``KnowledgeSpec``'s fields."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from factscope.conner.data import KnowledgeTask
from factscope.retrieve.corpus import RetrieverName

SCORING = "Scoring (CONNER metrics)"
QueryFile = Annotated[Path, typer.Argument(
    help="queries: JSON / JSONL records with `query` (and `topic`, `task`), or a CONNER query table (TSV).",
    show_default=False,
)]
Retriever = Annotated[RetrieverName, typer.Option(help="evidence retriever", rich_help_panel=SCORING)]
BatchSize = Annotated[int, typer.Option(min=1, help="records per batch")]
Output = Annotated[Path | None, typer.Option("--output", "-o", help="results JSONL (resumable)")]
Task = Annotated[KnowledgeTask | None, typer.Option(help="task of the records that name none (query tables have no task column): qa (span answers, the default) or dialogue (open-ended, as Wizard of Wikipedia)", show_default=False)]
Queries = Annotated[Path | None, typer.Option(help="the queries of an INPUT written one knowledge per line: a CONNER query table or JSON / JSONL records, line i of INPUT answering query i")]
