"""`factscope knowledge score`: CONNER's six dimensions of knowledge records, locally (the file streamed) or on
Ray, with the run's table."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.display import print_notes
from factscope.cli.engine_options import CommandRun, run_options
from factscope.cli.help_panels import EVIDENCE, SCORING
from factscope.cli.option_groups import add_field_options
from factscope.conner.generation_run import KnowledgeGenerationSettings
from factscope.conner.spec import KNOWLEDGE_BATCH_SIZE, KnowledgeSpec
from factscope.retrieve.web_settings import WebSettings

HELP = """Score knowledge records on CONNER's six dimensions (equations 1-9 of the paper).

Input: JSON / JSONL / Parquet / CSV records with `query`, `knowledge`, optional `id`, `answer`, `gold_answer`, `topic` and
`task` (qa: span answers; dialogue: open-ended); or CONNER's own files: a query table (tab-separated topic,
query, knowledge, response; .tsv, or any file whose first line has tabs), or the knowledge a model generated,
one text per line, with --queries. Each metric runs when its part is configured (each option of the Scoring
panel names the metrics it serves), else it is reported as not computed (never as 0).

Examples:

  factscope knowledge score examples/knowledge/records.jsonl --corpus examples/knowledge/corpus.jsonl

  factscope knowledge score knowledge.jsonl --corpus wiki/ --retriever hybrid --lm gpt2 \\
      --relevance-model cross-encoder/ms-marco-MiniLM-L-6-v2 --checker nli:roberta-large-mnli -o scored.jsonl
"""


def register(app: typer.Typer) -> None:
    """Add the `score` command to the `knowledge` group ``app``."""
    command = add_field_options(score_command, KnowledgeSpec, "chosen", panel=SCORING)
    command = add_field_options(command, KnowledgeGenerationSettings, "reading", names={"task"}, after="queries")
    command = add_field_options(command, WebSettings, "web", panel=EVIDENCE)
    app.command("score", help=HELP)(run_options(command, after="batch_size"))


def score_command(
    input: Annotated[Path, typer.Argument(help="knowledge: JSON / JSONL / Parquet / CSV records, a CONNER query table (TSV), or one knowledge per line with --queries", show_default=False)],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="results JSONL (resumable)")] = None,
    queries: Annotated[Path | None, typer.Option(help="the queries of an INPUT written one knowledge per line: a CONNER query table or JSON / JSONL records, line i of INPUT answering query i")] = None,
    batch_size: Annotated[int, typer.Option(min=1, help="records per batch")] = KNOWLEDGE_BATCH_SIZE,
    *,
    run: CommandRun,
    web: WebSettings,
    reading: KnowledgeGenerationSettings,
    chosen: KnowledgeSpec,
) -> None:
    from factscope.conner.evaluator_setup import default_lm
    from factscope.conner.system import KnowledgeSystem, spec_missing_parts

    spec = replace(chosen, lm=default_lm(chosen.lm), web=web)
    print_notes(spec_missing_parts(spec))
    run(KnowledgeSystem(reading.task, queries), spec, input, run.output(input, output, ".knowledge"), batch_size=batch_size)
