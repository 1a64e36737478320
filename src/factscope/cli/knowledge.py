"""`factscope knowledge score | generate | select | agree`: knowledge quality (CONNER)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from factscope.cli.display import (
    ProgressDisplay,
    console,
    print_skipped,
    print_table,
    summary_table,
)
from factscope.cli.engine_options import EngineOptions, engine_options, run_sharded
from factscope.cli.llm_options import LLMOptions, llm_options, usage_rows
from factscope.cli.option_ranges import SEED_MAX, above_zero, finite, q_know_weights
from factscope.cli.output_options import Overwrite, RetryFailed
from factscope.cli.output_paths import check_outputs
from factscope.conner.data import KnowledgeTask
from factscope.conner.generation import GenerationMode
from factscope.core.errors import ConfigError, InputError, RecordsFailed
from factscope.metrics.conner import Aggregation, EvidenceAggregation, SentenceRanking
from factscope.retrieve.corpus import RetrieverName

if TYPE_CHECKING:
    from factscope.conner.generation import GenerationMode
    from factscope.conner.task import KnowledgeEvaluator, KnowledgeRun
    from factscope.llm.client import LLMClient

HELP = """Evaluate knowledge for a query on CONNER's six dimensions, and use the scores to pick better knowledge.

score: factuality, relevance, coherence, informativeness, helpfulness, validity (+ Q_know).
generate: knowledge (zero- or few-shot) and answers through an LLM. select: sample r candidates, keep the best.
agree: Somers' D / Pearson / Spearman of the scores against human ratings 0 / 1 / 2.
"""

SCORE_HELP = """Score knowledge records on CONNER's six dimensions (equations 1-9 of the paper).

Input: JSON / JSONL records with `query`, `knowledge`, optional `id`, `answer`, `gold_answer`, `topic` and
`task` (qa: span answers; dialogue: open-ended); or CONNER's own files: a query table (tab-separated topic,
query, knowledge, response; .tsv, or any file whose first line has tabs), or the knowledge a model generated,
one text per line, with --queries naming the query table it answers (line i answers row i). --task sets the task
of records that name none. Each metric runs when its part is configured, else it is reported as not computed
(never as 0):

  factuality, dialogue validity  --corpus (evidence) + --checker (NLI)
  qa validity                    --checker, records with `gold_answer`
  relevance                      --relevance-model (default: packaged bi-encoder fallback)
  paragraph coherence            --coherence-model (default: adjacent-sentence similarity proxy)
  sentence coherence, informativeness, helpfulness   --lm (a causal LM, or `endpoint`)

Results are written to OUTPUT as they are made; rerunning resumes.

Examples:

  factscope knowledge score examples/knowledge/records.jsonl --corpus examples/knowledge/corpus.jsonl

  factscope knowledge score knowledge.jsonl --corpus wiki/ --retriever hybrid --lm gpt2 \\
      --relevance-model cross-encoder/ms-marco-MiniLM-L-6-v2 --checker nli:roberta-large-mnli -o scored.jsonl

  factscope knowledge score knowledge.jsonl --corpus wiki.jsonl --lm endpoint --llm-base-url http://localhost:8000/v1 --llm-model gpt2

  factscope knowledge score nq_knowledge --queries nq_test_random_testset.txt --corpus wiki.jsonl \\
      --aggregate max --rank-by label --hard-factuality
"""

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
computable, so pass --corpus and --lm. --answer then answers with the selected knowledge.

Example:

  factscope knowledge select queries.jsonl --candidates 5 --top-p 0.9 --corpus wiki.jsonl --lm gpt2 \\
      --llm-model gpt-4o-mini -o selected.jsonl --answer
"""

AGREE_HELP = """Correlate `knowledge score` results with human ratings (CONNER Tables 9-10).

HUMAN: JSON / JSONL rows with `id` and any of factuality, relevance, coherence, informativeness,
helpfulness, validity rated 0 (unacceptable), 1 (acceptable) or 2 (excellent). Prints Somers' D(metric |
human) with its p-value, Pearson and Spearman per dimension.

Example:

  factscope knowledge agree scored.jsonl human.jsonl -o agreement.json
"""

SCORING = "Scoring (CONNER metrics)"
Corpus = Annotated[Path | None, typer.Option(help="evidence corpus: JSONL of {id, title?, text} or a folder of .txt", rich_help_panel=SCORING)]
Retriever = Annotated[RetrieverName, typer.Option(help="evidence retriever", rich_help_panel=SCORING)]
EvidenceK = Annotated[int, typer.Option("--evidence-k", min=1, help="l: evidence passages per sentence", rich_help_panel=SCORING)]
Aggregate = Annotated[Aggregation, typer.Option(help="how factuality aggregates the sentences (eq. 1: min)", rich_help_panel=SCORING)]
EvidenceAggregate = Annotated[EvidenceAggregation, typer.Option(help="how factuality aggregates a sentence's evidence passages (eq. 1: max, the best-entailing one)", rich_help_panel=SCORING)]
RankBy = Annotated[SentenceRanking, typer.Option(help="how --aggregate min / max rank sentences: entailment probability (eq. 1) or argmax label, contradiction < neutral < entailment (CONNER's released scripts)", rich_help_panel=SCORING)]
Hard = Annotated[bool, typer.Option("--hard-factuality", help="count each sentence by its argmax label", rich_help_panel=SCORING)]
CheckerSpec = Annotated[str, typer.Option("--checker", help="NLI checker: embedded, nli:MODEL, path:DIR, llm, similarity", rich_help_panel=SCORING)]
Relevance = Annotated[str, typer.Option(help="ranking cross-encoder (name or folder); 'bi-encoder' fallback; 'none'", rich_help_panel=SCORING)]
Coherence = Annotated[str, typer.Option(help="coherence classifier (name or folder); 'proxy' offline; 'none'", rich_help_panel=SCORING)]
LM = Annotated[str | None, typer.Option("--lm", help="causal LM (name or folder), or 'endpoint' for the --llm-* completions endpoint", rich_help_panel=SCORING)]
Baselines = Annotated[int, typer.Option(min=1, help="u: random other knowledge texts for the helpfulness baseline", rich_help_panel=SCORING)]
Weights = Annotated[str, typer.Option(callback=q_know_weights, help="gamma of Q_know: four comma-separated numbers of 0 or more, factuality,relevance,coherence,informativeness", rich_help_panel=SCORING)]
Seed = Annotated[int, typer.Option(min=0, max=SEED_MAX, help="random seed (baselines, demonstrations, sampling)")]
BatchSize = Annotated[int, typer.Option(min=1, help="records per batch")]
Output = Annotated[Path | None, typer.Option("--output", "-o", help="results JSONL (resumable)")]
Task = Annotated[KnowledgeTask | None, typer.Option(help="task of the records that name none (query tables have no task column): qa (span answers, the default) or dialogue (open-ended, as Wizard of Wikipedia)", show_default=False)]
Queries = Annotated[Path | None, typer.Option(help="the queries of an INPUT written one knowledge per line: a CONNER query table or JSON / JSONL records, line i of INPUT answering query i")]


def register(app: typer.Typer) -> None:
    """Add the `knowledge` command group."""
    group = typer.Typer(help=HELP, no_args_is_help=True)
    group.command("score", help=SCORE_HELP)(llm_options(engine_options(score_command)))
    group.command("generate", help=GENERATE_HELP)(llm_options(generate_command))
    group.command("select", help=SELECT_HELP)(llm_options(select_command))
    group.command("agree", help=AGREE_HELP)(agree_command)
    app.add_typer(group, name="knowledge")


def build_evaluator(*, llm: Any, **options: Any) -> Any:
    """A KnowledgeEvaluator from the command-line options; notes what cannot be computed without a part."""
    from factscope.conner.evaluator_setup import make_evaluator

    return _noted(make_evaluator(llm=llm, **options))


def _noted(evaluator: KnowledgeEvaluator) -> KnowledgeEvaluator:
    """``evaluator``, each metric it cannot compute for want of a part noted."""
    from factscope.conner.evaluator_setup import missing_parts

    for note in missing_parts(evaluator):
        console.print(f"[yellow]note[/] {escape(note)}")
    return evaluator


def _load(
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


def score_command(
    input: Annotated[Path, typer.Argument(help="knowledge: JSON / JSONL records, a CONNER query table (TSV), or one knowledge per line with --queries", show_default=False)],
    output: Output = None,
    queries: Queries = None,
    task: Task = None,
    corpus: Corpus = None,
    retriever: Retriever = "bm25",
    evidence_k: EvidenceK = 5,
    aggregate: Aggregate = "min",
    evidence_aggregate: EvidenceAggregate = "max",
    rank_by: RankBy = "entailment",
    hard_factuality: Hard = False,
    checker: CheckerSpec = "embedded",
    relevance_model: Relevance = "bi-encoder",
    coherence_model: Coherence = "proxy",
    lm: LM = None,
    baselines: Baselines = 3,
    weights: Weights = "0.25,0.25,0.25,0.25",
    seed: Seed = 0,
    batch_size: BatchSize = 16,
    overwrite: Overwrite = False,
    retry_failed: RetryFailed = False,
    *,
    endpoint: LLMOptions,
    engine: EngineOptions,
) -> None:
    from factscope.conner.system import KNOWLEDGE, KnowledgeParser, KnowledgeSpec, make_spec_evaluator
    from factscope.core.system import SystemBuild
    from factscope.engines.shards import readable_items

    spec = KnowledgeSpec(
        corpus=corpus, retriever=retriever, evidence_k=evidence_k, aggregate=aggregate,
        evidence_aggregate=evidence_aggregate, rank_by=rank_by, hard=hard_factuality, checker=checker,
        relevance=relevance_model, coherence=coherence_model, lm=lm, baselines=baselines, weights=weights, seed=seed,
    )
    if engine.on_ray:
        if queries is not None:
            raise ConfigError("--queries is not taken with --engine ray: give JSON / JSONL records with their query")
        output = output or Path(f"{input.stem}.knowledge")
        parse = KnowledgeParser(task)
        build = SystemBuild(KNOWLEDGE, KNOWLEDGE.prepare(spec, readable_items(input, parse)), endpoint.build)
        sharded = run_sharded(engine, build, parse, input, output, batch_size=batch_size, overwrite=overwrite,
                              retry_failed=retry_failed)
        if not (sharded.produced.new or sharded.produced.resumed):
            raise InputError("no usable records; see the messages above", path=input)
        run = KNOWLEDGE.result(sharded.produced, sharded.totals, sharded.facts())
        _report_knowledge(run, len(sharded.problems), output, None)
        return
    output = output or Path(f"{input.stem}.knowledge.jsonl")
    check_outputs(output, overwrite=overwrite)
    records, skipped = _load(input, queries=queries, task=task)
    if not records:
        raise InputError("no usable records; see the messages above", path=input)
    llm = endpoint.build_if(KNOWLEDGE.needs_llm(spec))
    spec = replace(spec, evaluator=_noted(make_spec_evaluator(spec, llm)))
    with ProgressDisplay() as shown:
        run = KNOWLEDGE.run(spec, records, llm=llm, output=output, batch_size=batch_size, progress=shown,
                            overwrite=overwrite, retry_failed=retry_failed)
    _report_knowledge(run, skipped, output, llm)


def _report_knowledge(run: KnowledgeRun, skipped: int, output: Path, llm: LLMClient | None) -> None:
    """Print a knowledge run's table and what was not computed; raise RecordsFailed when calls failed."""
    from factscope.conner.system import KNOWLEDGE
    from factscope.core.system import RunOutcome

    table = KNOWLEDGE.summary_rows(run, RunOutcome(skipped=skipped, output=output))
    print_table(summary_table(f"CONNER knowledge scores -> {output}", table + usage_rows(llm)))
    for metric, reason in run.summary.not_computed.items():
        console.print(f"[yellow]not computed[/] {metric}: {escape(reason)}")
    if run.failed:
        raise RecordsFailed(run.failed, "records' checker or causal-LM calls", output)


def _generate(
    input: Path, output: Path, llm: Any, settings: Any, *, train: Path | None, shots: int,
    select_from: int | None, evaluator_options: dict[str, Any] | None, select: bool, answer: bool, batch_size: int,
    overwrite: bool, retry_failed: bool, task: KnowledgeTask | None,
) -> None:
    from factscope.conner.generation import (
        KnowledgeGenerator,
        generate_knowledge,
        sample_demonstrations,
        select_demonstrations,
    )

    records, skipped = _load(input, need_knowledge=False, task=task)
    if not records:
        raise InputError("no usable records; see the messages above", path=input)
    evaluator = build_evaluator(**evaluator_options, llm=llm) if evaluator_options is not None else None
    demonstrations: list[Any] = []
    if settings.mode == "few" or answer:
        if train is None and settings.mode == "few":
            raise ConfigError("--mode few needs --train: records with query and knowledge to use as examples")
        pool, _ = _load(train, task=task) if train else ([], 0)
        for name in sorted({record.task for record in records}):
            same_task = [example for example in pool if example.task == name]
            if select_from and evaluator is not None:
                chosen, choice = select_demonstrations(same_task, evaluator, m=select_from, n=shots, seed=settings.seed)
                console.print(f"{name} demonstrations chosen by Q_know: {', '.join(choice.selected) or 'none'}", markup=False)
            else:
                chosen = sample_demonstrations(same_task, shots, settings.seed)
            demonstrations.extend(chosen)
    generator = KnowledgeGenerator(llm, settings)
    with ProgressDisplay() as shown:
        run = generate_knowledge(
            records, generator, demonstrations=demonstrations, evaluator=evaluator if select else None,
            answer=answer, output=output, batch_size=batch_size, progress=shown, overwrite=overwrite,
            retry_failed=retry_failed,
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
    corpus: Corpus = None,
    retriever: Retriever = "bm25",
    evidence_k: EvidenceK = 5,
    checker: CheckerSpec = "embedded",
    relevance_model: Relevance = "bi-encoder",
    coherence_model: Coherence = "proxy",
    lm: LM = None,
    weights: Weights = "0.25,0.25,0.25,0.25",
    seed: Seed = 0,
    batch_size: BatchSize = 16,
    overwrite: Overwrite = False,
    retry_failed: RetryFailed = False,
    *,
    endpoint: LLMOptions,
) -> None:
    from factscope.conner.generation import GenerationSettings

    output = output or Path(f"{input.stem}.generated.jsonl")
    check_outputs(output, overwrite=overwrite)
    llm = endpoint.build()
    options = _scoring_options(corpus, retriever, evidence_k, checker, relevance_model, coherence_model, lm, weights, seed)
    _generate(
        input, output, llm, GenerationSettings(mode=mode, seed=seed), train=train, shots=shots,
        select_from=select_from, evaluator_options=options if select_from else None, select=False, answer=answer,
        batch_size=batch_size, overwrite=overwrite, retry_failed=retry_failed, task=task,
    )


def select_command(
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
    corpus: Corpus = None,
    retriever: Retriever = "bm25",
    evidence_k: EvidenceK = 5,
    checker: CheckerSpec = "embedded",
    relevance_model: Relevance = "bi-encoder",
    coherence_model: Coherence = "proxy",
    lm: LM = None,
    weights: Weights = "0.25,0.25,0.25,0.25",
    seed: Seed = 0,
    batch_size: BatchSize = 16,
    overwrite: Overwrite = False,
    retry_failed: RetryFailed = False,
    *,
    endpoint: LLMOptions,
) -> None:
    from factscope.conner.generation import GenerationSettings

    output = output or Path(f"{input.stem}.generated.jsonl")
    check_outputs(output, overwrite=overwrite)
    if candidates < 2:
        raise ConfigError("--candidates must be at least 2 to select among them")
    llm = endpoint.build()
    settings = GenerationSettings(
        mode=mode, candidates=candidates, top_p=top_p, temperature=temperature, seed=seed
    )
    options = _scoring_options(corpus, retriever, evidence_k, checker, relevance_model, coherence_model, lm, weights, seed)
    _generate(
        input, output, llm, settings, train=train, shots=shots, select_from=None, evaluator_options=options,
        select=True, answer=answer, batch_size=batch_size, overwrite=overwrite, retry_failed=retry_failed, task=task,
    )


def _scoring_options(
    corpus: Path | None, retriever: RetrieverName, evidence_k: int, checker: str, relevance: str, coherence: str,
    lm: str | None, weights: str, seed: int,
) -> dict[str, Any]:
    return {
        "corpus": corpus, "retriever": retriever, "evidence_k": evidence_k, "aggregate": "min", "hard": False,
        "checker": checker, "relevance": relevance, "coherence": coherence, "lm": lm, "baselines": 3,
        "weights": weights, "seed": seed,
    }


def agree_command(
    scores: Annotated[Path, typer.Argument(help="results of `factscope knowledge score`.", show_default=False)],
    human: Annotated[Path, typer.Argument(help="JSON / JSONL human ratings (0 / 1 / 2) with `id`.", show_default=False)],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="also write the figures as JSON here")] = None,
) -> None:
    from rich.table import Table

    from factscope.conner.agreement import agreement, read_human_ratings
    from factscope.core.io import read_json_records

    check_outputs(written={"-o": output})
    rows: dict[str, dict[str, Any]] = {}
    for _, item in read_json_records(scores):
        if isinstance(item, InputError):
            print_skipped(item)
        elif "id" in item:
            rows[str(item["id"])] = item
    ratings, problems = read_human_ratings(human)
    for problem in problems:
        print_skipped(problem)
    results = agreement(rows, ratings)
    if not results:
        raise InputError("no record has both a human rating and a computed score; check that the ids match", path=human)
    table = Table(title="Agreement with human ratings (Somers' D of metric given rating)")
    for column in ("dimension", "metric", "n", "Somers' D", "p", "Pearson", "Spearman"):
        table.add_column(column, justify="left" if column in ("dimension", "metric") else "right")
    for r in results:
        mark = "" if r.somers_p is None or r.somers_p >= 0.05 else " †"
        cells = [r.somers_d, r.somers_p, r.pearson, r.spearman]
        shown = ["n/a" if v is None else f"{v:.2f}" for v in cells]
        table.add_row(r.dimension, r.metric, str(r.n), shown[0] + mark, shown[1], shown[2], shown[3])
    print_table(table)
    console.print("† p < 0.05, as in the paper's Table 9")
    for r in results:
        if r.note:
            console.print(f"[yellow]note[/] {escape(f'{r.dimension} / {r.metric}: {r.note}')}")
    if output:
        output.write_text(json.dumps([r.model_dump() for r in results], indent=2), encoding="utf-8")
