"""`factscope knowledge generate | select`: knowledge (and answers) through an LLM, with chosen demonstrations
(``factscope.conner.demonstrations``) or the best of sampled candidates by Q_know."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.display import ProgressDisplay, console, print_skipped, print_table, summary_table
from factscope.cli.knowledge_options import BatchSize, Output, Retriever, Task
from factscope.cli.knowledge_score import print_notes
from factscope.cli.llm_options import LLMOptions, usage_rows
from factscope.cli.option_ranges import above_zero, finite
from factscope.cli.option_rules import FEW_SHOT_OPTIONS, refuse_ignored
from factscope.cli.output_options import OutputOptions
from factscope.cli.output_paths import check_outputs
from factscope.conner.data import KnowledgeTask, usable_knowledge_records
from factscope.conner.generation import GenerationMode, GenerationSettings
from factscope.conner.spec import KnowledgeSpec
from factscope.core.errors import InputError, RecordsFailed
from factscope.retrieve.corpus import RetrieverName

GENERATE_HELP = """Generate knowledge for each query through an LLM, with the paper's prompts (Appendix F, Tables 11-12).

--mode zero uses Table 11's best zero-shot prompt; --mode few builds Appendix F.2's prompt from --shots
examples of --train (records with knowledge): random ones, or, with --select-from M, the best --shots of M
random examples by Q_know (CONNER-guided demonstration selection; needs the scoring options). --answer also
generates answers with Table 13's few-shot template. The output is a valid input of `knowledge score`.

Examples:

  factscope knowledge generate queries.jsonl --llm-model gpt-4o-mini -o generated.jsonl --answer

  factscope knowledge generate queries.jsonl --mode few --train train.jsonl --shots 8 --select-from 30 \\
      --corpus wiki.jsonl --lm gpt2 --llm-model gpt-4o-mini
"""


SELECT_HELP = """Knowledge selection (CONNER section 5): sample r candidates (top-p) and keep argmax Q_know.

Q_know = gamma . \\[factuality, relevance, paragraph coherence, informativeness]; all four must be
computable, so pass --corpus, and --lm unless factscope\\[lm] is installed (its embedded LM is then the
default). --answer then answers with the selected knowledge.

Example:

  factscope knowledge select queries.jsonl --candidates 5 --top-p 0.9 --corpus wiki.jsonl --lm gpt2 \\
      --llm-model gpt-4o-mini -o selected.jsonl --answer
"""


def _generate(
    ctx: typer.Context, input: Path, output: Path | None, endpoint: LLMOptions, settings: GenerationSettings,
    scoring: KnowledgeSpec | None, *, train: Path | None, shots: int, select_from: int | None, answer: bool,
    batch_size: int, outputs: OutputOptions, task: KnowledgeTask | None,
) -> None:
    """Generate knowledge for the queries of ``input`` into ``output``: with ``scoring`` (the evaluator's
    spec), demonstrations are chosen by Q_know when ``select_from`` is given, and the best of several
    candidates kept."""
    from factscope.conner.demonstrations import run_demonstrations
    from factscope.conner.generation import KnowledgeGenerator, generate_knowledge
    from factscope.conner.system import make_spec_evaluator, spec_missing_parts

    refuse_ignored(ctx, FEW_SHOT_OPTIONS)
    output = output or Path(f"{input.stem}.generated.jsonl")
    check_outputs(output, overwrite=outputs.overwrite)
    llm = endpoint.build()
    records, skipped = usable_knowledge_records(input, need_knowledge=False, task=task, skipped=print_skipped)
    if not records:
        raise InputError("no usable records; see the messages above", path=input)
    evaluator = None
    if scoring is not None:
        print_notes(spec_missing_parts(scoring), ctx)
        evaluator = make_spec_evaluator(scoring, llm)
    chosen = run_demonstrations(
        (record.task for record in records), train, mode=settings.mode, answer=answer, shots=shots,
        seed=settings.seed, select_from=select_from, evaluator=evaluator, task=task, skipped=print_skipped,
    )
    for name, choice in chosen.choices.items():
        selected = ", ".join(choice.selected) or "none"
        console.print(f"{name} demonstrations chosen by Q_know: {selected}", markup=False)
    with ProgressDisplay() as shown:
        run = generate_knowledge(
            records, KnowledgeGenerator(llm, settings), demonstrations=chosen.examples,
            evaluator=evaluator if settings.candidates > 1 else None, answer=answer, output=output,
            batch_size=batch_size, progress=shown, overwrite=outputs.overwrite, retry_failed=outputs.retry_failed,
        )
    rows = [
        ("records", len(records)),
        ("skipped (bad input)", skipped),
        ("generated (new / resumed)", f"{run.new_records} / {run.resumed_records}"),
        ("failed", run.failed),
    ]
    print_table(summary_table(f"knowledge generation -> {output}", rows + usage_rows(llm)))
    if run.failed:
        raise RecordsFailed(run.failed, "knowledge generations", output)


def generate_command(
    ctx: typer.Context,
    input: Annotated[Path, typer.Argument(help="queries: JSON / JSONL records with `query` (and `topic`, `task`), or a CONNER query table (TSV).", show_default=False)],
    output: Output = None,
    task: Task = None,
    mode: Annotated[
        GenerationMode, typer.Option(help="zero (Table 11 prompt) or few (Table 12 examples)")
    ] = "zero",
    train: Annotated[Path | None, typer.Option(help="records with knowledge (and answers) for few-shot examples")] = None,
    shots: Annotated[int, typer.Option(min=1, help="n: few-shot examples in the prompt")] = 8,
    select_from: Annotated[int | None, typer.Option(min=1, help="m: score m random --train examples, keep the best --shots")] = None,
    answer: Annotated[bool, typer.Option("--answer", help="also generate answers (Table 13 few-shot)")] = False,
    retriever: Retriever = "bm25",
    batch_size: BatchSize = 16,
    *,
    endpoint: LLMOptions,
    outputs: OutputOptions,
    scoring: KnowledgeSpec,
) -> None:
    _generate(
        ctx, input, output, endpoint, GenerationSettings(mode=mode, seed=scoring.seed),
        _scoring(scoring, retriever) if select_from else None, train=train, shots=shots,
        select_from=select_from, answer=answer, batch_size=batch_size, outputs=outputs,
        task=task,
    )


def select_command(
    ctx: typer.Context,
    input: Annotated[Path, typer.Argument(help="queries: JSON / JSONL records with `query` (and `topic`, `task`), or a CONNER query table (TSV).", show_default=False)],
    output: Output = None,
    task: Task = None,
    candidates: Annotated[int, typer.Option(min=2, help="r: knowledge candidates sampled per query")] = 5,
    top_p: Annotated[float, typer.Option(max=1.0, callback=above_zero, help="nucleus sampling p, above 0 and at most 1")] = 0.9,
    temperature: Annotated[float, typer.Option(min=0.0, callback=finite, help="sampling temperature")] = 1.0,
    mode: Annotated[GenerationMode, typer.Option(help="zero-shot or few-shot prompt")] = "zero",
    train: Annotated[Path | None, typer.Option(help="records with knowledge for few-shot examples / answers")] = None,
    shots: Annotated[int, typer.Option(min=1, help="few-shot examples")] = 8,
    answer: Annotated[bool, typer.Option("--answer", help="also answer with the selected knowledge")] = False,
    retriever: Retriever = "bm25",
    batch_size: BatchSize = 16,
    *,
    endpoint: LLMOptions,
    outputs: OutputOptions,
    scoring: KnowledgeSpec,
) -> None:
    settings = GenerationSettings(
        mode=mode, candidates=candidates, top_p=top_p, temperature=temperature, seed=scoring.seed
    )
    _generate(
        ctx, input, output, endpoint, settings, _scoring(scoring, retriever), train=train, shots=shots,
        select_from=None, answer=answer, batch_size=batch_size, outputs=outputs,
        task=task,
    )


def _scoring(scoring: KnowledgeSpec, retriever: RetrieverName) -> KnowledgeSpec:
    """The evaluator spec of Q_know selection: the ``scoring`` options given (its causal LM the default one
    when none is named), with ``retriever``."""
    from factscope.conner.evaluator_setup import default_lm

    return replace(scoring, retriever=retriever, lm=default_lm(scoring.lm))


SELECTION_FIELDS = frozenset(
    {"corpus", "evidence_k", "checker", "relevance", "coherence", "lm", "weights", "seed"}
)
"""The scoring options of Q_know selection (`knowledge generate --select-from`, `knowledge select`)."""
