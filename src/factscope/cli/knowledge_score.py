"""`factscope knowledge score`: CONNER's six dimensions of knowledge records, locally (the file streamed) or on
Ray, with the run's table."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from factscope.cli.display import console, print_skipped, print_table, summary_table
from factscope.cli.engine_options import EngineOptions, check_output, output_path, run_system
from factscope.cli.knowledge_options import BatchSize, Output, Queries, Task
from factscope.cli.llm_options import LLMOptions, usage_rows
from factscope.cli.output_options import OutputOptions
from factscope.cli.parameter_flags import in_context
from factscope.conner.spec import KnowledgeSpec
from factscope.core.errors import InputError, RecordsFailed
from factscope.retrieve.web_settings import WebSettings

if TYPE_CHECKING:
    from factscope.conner.task import KnowledgeRun
    from factscope.llm.client import LLMClient

SCORE_HELP = """Score knowledge records on CONNER's six dimensions (equations 1-9 of the paper).

Input: JSON / JSONL / Parquet / CSV records with `query`, `knowledge`, optional `id`, `answer`, `gold_answer`, `topic` and
`task` (qa: span answers; dialogue: open-ended); or CONNER's own files: a query table (tab-separated topic,
query, knowledge, response; .tsv, or any file whose first line has tabs), or the knowledge a model generated,
one text per line, with --queries naming the query table it answers (line i answers row i). --task sets the task
of records that name none. Each metric runs when its part is configured, else it is reported as not computed
(never as 0):

  factuality, dialogue validity  --corpus (evidence) + --checker (NLI)
  qa validity                    --checker, records with `gold_answer`
  relevance                      --relevance-model (default: packaged bi-encoder fallback)
  paragraph coherence            --coherence-model (default: adjacent-sentence similarity proxy)
  sentence coherence, informativeness, helpfulness   --lm (default: the embedded LM of factscope\\[lm]; a causal LM, or `endpoint`)

Results are written to OUTPUT as they are made; rerunning resumes.

Examples:

  factscope knowledge score examples/knowledge/records.jsonl --corpus examples/knowledge/corpus.jsonl

  factscope knowledge score knowledge.jsonl --corpus wiki/ --retriever hybrid --lm gpt2 \\
      --relevance-model cross-encoder/ms-marco-MiniLM-L-6-v2 --checker nli:roberta-large-mnli -o scored.jsonl

  factscope knowledge score knowledge.jsonl --corpus wiki.jsonl --lm endpoint --llm-base-url http://localhost:8000/v1 --llm-model gpt2

  SERPER_API_KEY=... factscope knowledge score knowledge.jsonl --retriever web:serper   # evidence from the web

  factscope knowledge score nq_knowledge --queries nq_test_random_testset.txt --corpus wiki.jsonl \\
      --aggregate max --rank-by label --hard-factuality
"""


def print_notes(notes: list[str], ctx: typer.Context) -> None:
    """Each metric not computed for want of a part, as a note naming the flag that supplies it."""
    for note in notes:
        console.print(f"[yellow]note[/] {escape(in_context(note, ctx))}")


def score_command(
    ctx: typer.Context,
    input: Annotated[Path, typer.Argument(help="knowledge: JSON / JSONL / Parquet / CSV records, a CONNER query table (TSV), or one knowledge per line with --queries", show_default=False)],
    output: Output = None,
    queries: Queries = None,
    task: Task = None,
    batch_size: BatchSize = 16,
    *,
    endpoint: LLMOptions,
    engine: EngineOptions,
    outputs: OutputOptions,
    web: WebSettings,
    chosen: KnowledgeSpec,
) -> None:
    from factscope.conner.evaluator_setup import default_lm
    from factscope.conner.system import KnowledgeSystem, spec_missing_parts

    spec = replace(chosen, lm=default_lm(chosen.lm), web=web)
    output = output_path(engine, input, output, ".knowledge")
    check_output(engine, output, outputs)
    print_notes(spec_missing_parts(spec), ctx)

    ran, client = run_system(KnowledgeSystem(task, queries), spec, input, output, engine=engine, endpoint=endpoint,
                             batch_size=batch_size, outputs=outputs, loaded=partial(_survey, input))
    _report_knowledge(ran.result, len(ran.problems), output, client)


def _report_knowledge(run: KnowledgeRun, skipped: int, output: Path, llm: LLMClient | None) -> None:
    """Print a knowledge run's table and what was not computed; raise RecordsFailed when calls failed."""
    from factscope.conner.system import KNOWLEDGE
    from factscope.core.system import RunOutcome

    table = KNOWLEDGE.summary_rows(run, RunOutcome(skipped=skipped, output=output))
    print_table(summary_table(f"CONNER knowledge scores -> {output}", table + usage_rows(llm)))
    for metric, reason in run.summary.not_computed.items():
        console.print(f"[yellow]not computed[/] {metric}: {escape(reason)}")
    if run.failed:
        raise RecordsFailed(run.failed, "records (a checker or causal-LM call, or their worker process)", output)


def _survey(path: Path, usable: int, problems: list[InputError]) -> None:
    """Each bad record reported; a file whose every record fails for one reason is one error, a file with none
    usable an error."""
    from factscope.core.whole_file import whole_file_error

    whole = whole_file_error(path, problems, usable)
    if whole is not None:
        raise whole
    for problem in problems:
        print_skipped(problem)
    if not usable:
        raise InputError("no usable records; see the messages above", path=path)
