"""The options the `factscope knowledge` commands share (the input, the output; the scoring parts, the causal LM
among them, are ``KnowledgeSpec``'s fields), and reading a knowledge file whole for the commands that need its records at
once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from factscope.cli.display import print_skipped
from factscope.conner.data import KnowledgeTask
from factscope.core.seeds import SEED_MAX
from factscope.retrieve.corpus import RetrieverName

SCORING = "Scoring (CONNER metrics)"
Retriever = Annotated[RetrieverName, typer.Option(help="evidence retriever", rich_help_panel=SCORING)]
Seed = Annotated[int, typer.Option(min=0, max=SEED_MAX, help="random seed (baselines, demonstrations, sampling)")]
BatchSize = Annotated[int, typer.Option(min=1, help="records per batch")]
Output = Annotated[Path | None, typer.Option("--output", "-o", help="results JSONL (resumable)")]
Task = Annotated[KnowledgeTask | None, typer.Option(help="task of the records that name none (query tables have no task column): qa (span answers, the default) or dialogue (open-ended, as Wizard of Wikipedia)", show_default=False)]
Queries = Annotated[Path | None, typer.Option(help="the queries of an INPUT written one knowledge per line: a CONNER query table or JSON / JSONL records, line i of INPUT answering query i")]


def load_records(
    path: Path, need_knowledge: bool = True, queries: Path | None = None, task: KnowledgeTask | None = None
) -> tuple[list[Any], int]:
    """The usable records of a knowledge file and how many were skipped (each reported); a file whose every
    record fails for one reason is one error."""
    from factscope.conner.data import read_knowledge_records
    from factscope.core.whole_file import usable_records

    records, problems = usable_records(
        path, read_knowledge_records(path, need_knowledge=need_knowledge, queries=queries, task=task)
    )
    for problem in problems:
        print_skipped(problem)
    return records, len(problems)
