"""`factscope knowledge score`: CONNER's six dimensions of knowledge records, locally (the file streamed) or on
Ray, with the run's table."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.display import print_notes
from factscope.cli.engine_options import CommandRun
from factscope.cli.knowledge_options import Output
from factscope.conner.generation_run import KnowledgeGenerationSettings
from factscope.conner.spec import KNOWLEDGE_BATCH_SIZE, KnowledgeSpec
from factscope.retrieve.web_settings import WebSettings

SCORE_HELP = """Score knowledge records on CONNER's six dimensions (equations 1-9 of the paper).

Input: JSON / JSONL / Parquet / CSV records with `query`, `knowledge`, optional `id`, `answer`, `gold_answer`, `topic` and
`task` (qa: span answers; dialogue: open-ended); or CONNER's own files: a query table (tab-separated topic,
query, knowledge, response; .tsv, or any file whose first line has tabs), or the knowledge a model generated,
one text per line, with --queries. Each metric runs when its part is configured, else it is reported as not
computed (never as 0):

  factuality, dialogue validity  --corpus (evidence) + --checker (NLI)
  qa validity                    --checker, records with `gold_answer`
  relevance                      --relevance-model (default: packaged bi-encoder fallback)
  paragraph coherence            --coherence-model (default: adjacent-sentence similarity proxy)
  sentence coherence, informativeness, helpfulness   --lm (default: the embedded LM of factscope\\[lm]; a causal LM, or `endpoint`)

Examples:

  factscope knowledge score examples/knowledge/records.jsonl --corpus examples/knowledge/corpus.jsonl

  factscope knowledge score knowledge.jsonl --corpus wiki/ --retriever hybrid --lm gpt2 \\
      --relevance-model cross-encoder/ms-marco-MiniLM-L-6-v2 --checker nli:roberta-large-mnli -o scored.jsonl
"""


def score_command(
    input: Annotated[Path, typer.Argument(help="knowledge: JSON / JSONL / Parquet / CSV records, a CONNER query table (TSV), or one knowledge per line with --queries", show_default=False)],
    output: Output = None,
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
