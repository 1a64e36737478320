"""`factscope attribute`: knowledge-graph attributed answers and their evaluation (KaLMA)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.markup import escape

from factscope.checkers.options import CheckerOptions
from factscope.cli.choices import RetrieveMode
from factscope.cli.display import print_skipped, print_table
from factscope.cli.engine_options import EngineOptions, check_output, engine_options, run_system
from factscope.cli.llm_options import LLMOptions, llm_options, usage_rows
from factscope.cli.option_groups import add_field_options
from factscope.cli.option_ranges import finite
from factscope.cli.output_options import OutputOptions, output_options
from factscope.cli.output_paths import check_outputs
from factscope.core.errors import ConfigError, InputError, RecordsFailed
from factscope.core.figure_table import summary_table
from factscope.core.progress_display import ProgressDisplay, console
from factscope.core.seeds import SEED_MAX
from factscope.kalma.spec import AttributeSpec
from factscope.kg.wikidata import WIKIDATA_SPARQL

if TYPE_CHECKING:
    from factscope.kalma.answers import LoadedAnswers
    from factscope.kalma.task import AttributionRun
    from factscope.llm.client import LLMClient

Item = TypeVar("Item")

HELP = """Knowledge-graph attribution (KaLMA / BioKaLMA): answers that cite triples of a knowledge graph as \\[Q212657, place of birth: Rome], mark what the graph lacks with \\[NA], and are scored with no reference answers.

generate: answer questions with an LLM from each question's graph (gold, retrieved from a local graph or Wikidata, with knowledge removed, or with a share of graphs swapped for irrelevant ones).

score: citation correctness, micro / macro precision, recall and F1, text-citation alignment (NLI), \\[NA] precision / recall, and optionally G-Eval text quality from an LLM judge.

make-questions: evolutionary question generation from seed paragraphs, recording each question's minimum knowledge set.

Examples:

  factscope attribute score examples/attribute/answers.jsonl -o scores.jsonl

  factscope attribute generate examples/attribute/questions.jsonl --graph examples/attribute/graph.jsonl -o answers.jsonl --llm-model gpt-4o-mini

  factscope attribute generate questions.jsonl --graph graph.jsonl --remove 2 -o answers_removed2.jsonl

  factscope attribute make-questions examples/attribute/seeds.jsonl --graph examples/attribute/graph.jsonl --rounds 6 -o questions.jsonl
"""

GENERATE_HELP = """Generate attributed answers with an LLM (one-shot prompt with an \\[NA] demonstration, KaLMA Table 10).

QUESTIONS: the BioKaLMA layout (JSON list of \\[question, \\[entity, ...]]) or JSON / JSONL records {id, question, minimum: \\[\\[qid, relation, value], ...], graph?: \\[entity, ...]}. The graph each question gets: --retrieve none (default) uses its gold graph: the one-hop subgraphs in --graph of its minimum-set entities, plus its own graph; --retrieve local / wikidata runs NER + look-up + type filter + exact-match re-ranking over --graph or live Wikidata. --remove N takes N minimum-set triples out (conscious incompetence, Table 5); --retrieval-accuracy 0.8 swaps 20% of the graphs for irrelevant ones (Figure 5). Output is resumable JSONL.

Example: factscope attribute generate questions.jsonl --graph graph.jsonl -o answers.jsonl --llm-model gpt-4o-mini
"""

SCORE_HELP = """Score attributed answers: citation quality (micro and macro), alignment, \\[NA] quality, text quality.

ANSWERS: the output of `attribute generate`, or JSON / JSONL / Parquet / CSV records {id, question, answer, graph: \\[entity, ...], minimum: \\[\\[qid, relation, value], ...], removed?: \\[...]}. Alignment and \\[NA] use --checker (premise: the sentence, hypothesis: "relation: value"); G-Eval (--geval) needs an LLM endpoint. Rows with different numbers of removed triples are summarised separately. Output is resumable JSONL, one row per answer.

Example: factscope attribute score answers.jsonl -o scores.jsonl --checker nli:MoritzLaurer/DeBERTa-v3-base-mnli --summary summary.json
"""

EVOLVE_HELP = """Evolutionary question generation (KaLMA section 2.2): round 1 labels a seed paragraph with graph knowledge and writes a question; each later round injects one more triple and rewrites the question. The cited and injected knowledge is the question's minimum knowledge set. The output is a questions file for `attribute generate`.

SEEDS: JSON / JSONL records {id, paragraph, qids: \\[...]} (entities from --graph) or {id, paragraph, graph: \\[entity, ...]}.

Example: factscope attribute make-questions seeds.jsonl --graph graph.jsonl --rounds 6 -o questions.jsonl --llm-model gpt-4o-mini
"""


Output = Annotated[Path, typer.Option("--output", "-o", help="JSONL results file (resumes when it exists)")]
GraphFile = Annotated[Path | None, typer.Option("--graph", help="knowledge graph: .json / .jsonl entities, BioKaLMA "
                                                                 "layout, or RDF .nt / .ttl / .rdf")]
MinimumFile = Annotated[Path | None, typer.Option(
    "--minimum", help="gold minimum knowledge sets: KaLMA's JSON list of \\[question, \\[\\[qid, relation, value], ...]] "
                      "(item i is question i), or JSON / JSONL records {id?, question?, minimum}; they replace the "
                      "records' own sets")]


def register(app: typer.Typer) -> None:
    """Add the `attribute` command group."""
    attribute_app = typer.Typer(help=HELP, no_args_is_help=True)
    attribute_app.command("generate", help=GENERATE_HELP)(llm_options(output_options(generate_command, summary=False)))
    score = add_field_options(output_options(score_command, after="output"), CheckerOptions, "checking", names={"mode"})
    score = add_field_options(score, AttributeSpec, "chosen")
    attribute_app.command("score", help=SCORE_HELP)(llm_options(engine_options(score)))
    attribute_app.command("make-questions", help=EVOLVE_HELP)(
        llm_options(output_options(make_questions_command, summary=False))
    )
    app.add_typer(attribute_app, name="attribute")


def _start(output: Path, outputs: OutputOptions, endpoint: LLMOptions, path: Path | None) -> tuple[LLMClient, Any]:
    """The start of a command that writes with an LLM from a graph: its results file checked, its LLM client, and
    the graph of ``path`` (None without one)."""
    check_outputs(output, overwrite=outputs.overwrite)
    llm = endpoint.build()
    if path is None:
        return llm, None
    from factscope.kg.loaders import load_graph

    graph = load_graph(path)
    console.print(f"graph {path}: {len(graph)} entities, {len(graph.triples())} triples", markup=False)
    return llm, graph


def generate_command(
    questions: Annotated[Path, typer.Argument(help="questions file (BioKaLMA layout, JSON or JSONL)")],
    output: Output,
    graph: GraphFile = None,
    retrieve: Annotated[RetrieveMode, typer.Option(help="where each question's graph comes from")] = "none",
    remove: Annotated[int, typer.Option(min=0, help="minimum-set triples to remove from each graph (0-3 in the paper)")] = 0,
    retrieval_accuracy: Annotated[
        float, typer.Option(min=0.0, max=1.0, callback=finite, help="share of graphs kept; the rest are swapped")
    ] = 1.0,
    seed: Annotated[int, typer.Option(min=0, max=SEED_MAX, help="seed of the removal and swap choices")] = 0,
    sparql_endpoint: Annotated[str, typer.Option(help="SPARQL endpoint for --retrieve wikidata")] = WIKIDATA_SPARQL,
    sparql_cache: Annotated[Path, typer.Option(help="on-disk cache of SPARQL replies")] = Path(".factscope/sparql"),
    sparql_interval: Annotated[float, typer.Option(min=0.0, callback=finite, help="seconds between SPARQL requests")] = 1.0,
    temperature: Annotated[float | None, typer.Option(min=0.0, callback=finite, help="sampling temperature (default: the LLM config's, 0)")] = None,
    minimum: MinimumFile = None,
    *,
    endpoint: LLMOptions,
    outputs: OutputOptions,
) -> None:
    from factscope.kalma.data import load_questions
    from factscope.kalma.generation import generate
    from factscope.kalma.graphs import prepare, question_retrieval

    llm, kg = _start(output, outputs, endpoint, graph)
    loaded, skipped = _usable(load_questions(questions), "questions", questions)
    _use_minimum(minimum, loaded)
    retrieval = question_retrieval(retrieve, kg, sparql_endpoint=sparql_endpoint, sparql_cache=sparql_cache,
                                   sparql_interval=sparql_interval)
    items, warnings = prepare(loaded, kg=kg, retrieve=retrieval, remove=remove,
                              retrieval_accuracy=retrieval_accuracy, seed=seed)
    for warning in warnings:
        console.print(f"[yellow]warning[/] {escape(warning)}")
    params: dict[str, Any] = {"temperature": temperature} if temperature is not None else {}
    with ProgressDisplay() as shown:
        run = generate(items, llm, output=output, progress=shown, overwrite=outputs.overwrite,
                       retry_failed=outputs.retry_failed, **params)
    rows = [("questions", len(loaded)), ("skipped input records", skipped), ("answers written", run.new_records),
            ("already in output (resumed)", run.resumed_records), ("generation failures (in the file)", run.failed)]
    print_table(summary_table(f"attribute generate -> {output}", rows + usage_rows(llm)))
    if run.failed:
        raise RecordsFailed(run.failed, "answer generations", output)


def _usable(found: tuple[list[Item], list[InputError]], what: str, path: Path) -> tuple[list[Item], int]:
    """The usable records a file's reader ``found`` and how many were skipped (each reported); a file with none
    is an InputError."""
    loaded, problems = found
    print_skipped(*problems)
    if not loaded:
        raise InputError(f"no usable {what}", path=path)
    return loaded, len(problems)


def _use_minimum(path: Path | None, items: list[Any]) -> None:
    """Give ``items`` (questions or answers) the gold minimum sets of ``path``; say how many found one."""
    if path is None:
        return
    from factscope.kalma.minimum import apply_minimum, read_minimum

    loaded = read_minimum(path)
    print_skipped(*loaded.problems)
    missing = apply_minimum(items, loaded.gold)
    where = escape(str(path))
    console.print(f"minimum knowledge {where}: {len(items) - len(missing)} of {len(items)} records use its sets")
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        console.print(f"[yellow]warning[/] {len(missing)} records have no set in {where} and keep their own: "
                      f"{escape(shown)}")


def score_command(
    ctx: typer.Context,
    answers: Annotated[Path, typer.Argument(help="answers file (output of `attribute generate`, or your own; with "
                                                 "--engine ray also a folder of *.jsonl shards)")],
    output: Annotated[Path, typer.Option("--output", "-o", help="JSONL results file (resumes when it exists); with "
                                                                "--engine ray a results folder")],
    minimum: MinimumFile = None,
    *,
    endpoint: LLMOptions,
    engine: EngineOptions,
    outputs: OutputOptions,
    checking: CheckerOptions,
    chosen: AttributeSpec,
) -> None:
    from factscope.kalma.system import ATTRIBUTE

    spec = replace(chosen, checker_settings=checking.settings({"mode"}), geval=chosen.geval or chosen.weighted)
    check_output(engine, output, outputs)
    if minimum is not None and engine.on_ray:
        raise ConfigError("--minimum is not taken with --engine ray: give each answer its `minimum` field instead")
    inputs: Any = answers if engine.on_ray else _answers(answers, minimum)

    def loaded(count: int, problems: list[InputError]) -> None:
        print_skipped(*problems)
        if not count:
            raise InputError("no usable answers; see the messages above", path=answers)

    ran, client = run_system(ATTRIBUTE, spec, inputs, output, engine=engine, endpoint=endpoint, batch_size=32,
                             outputs=outputs, loaded=loaded)
    _report_scores(ran.result, ran.passed_over, len(ran.problems), output, client, outputs)


def _answers(path: Path, minimum: Path | None) -> LoadedAnswers:
    """The answers of ``path``, read once into memory (the file's kind is told by a pass of its own), given the
    gold minimum sets of ``minimum`` when there is one (``_use_minimum``)."""
    from factscope.kalma.answers import load_answers

    answers = load_answers(path)
    _use_minimum(minimum, answers.records)
    return answers


def _report_scores(run: AttributionRun, failed_generations: int, skipped: int, output: Path, llm: LLMClient | None,
                   outputs: OutputOptions) -> None:
    """Print a scoring run's tables, write ``--summary``, and raise RecordsFailed when calls failed."""
    from factscope.core.system import RunOutcome
    from factscope.kalma.system import ATTRIBUTE

    for group, values in run.summary.items():
        rows: list[tuple[str, object]] = list(values.items())
        if len(run.summary) == 1:
            outcome = RunOutcome(skipped, output, [("failed generations (not scored)", failed_generations)])
            rows = [*ATTRIBUTE.summary_rows(run, outcome), *rows]
        print_table(summary_table(f"attribute score ({group})", rows + usage_rows(llm)))
    outputs.write_summary(run.summary)
    if run.failed:
        raise RecordsFailed(run.failed, "answers (a checker or G-Eval call, or their worker process)", output)


def make_questions_command(
    seeds: Annotated[Path, typer.Argument(help="seed paragraphs (JSON or JSONL)")],
    output: Output,
    graph: GraphFile = None,
    rounds: Annotated[int, typer.Option(min=1, help="evolution rounds (the paper uses 6)")] = 6,
    seed: Annotated[int, typer.Option(min=0, max=SEED_MAX, help="seed of the knowledge choices")] = 0,
    *,
    endpoint: LLMOptions,
    outputs: OutputOptions,
) -> None:
    from factscope.kalma.question_evolution import evolve, load_seeds

    llm, kg = _start(output, outputs, endpoint, graph)
    loaded, skipped = _usable(load_seeds(seeds, kg), "seed paragraphs", seeds)
    with ProgressDisplay() as shown:
        run = evolve(loaded, llm, output=output, rounds=rounds, seed=seed, progress=shown,
                     overwrite=outputs.overwrite, retry_failed=outputs.retry_failed)
    rows = [("seed paragraphs", len(loaded)), ("skipped input records", skipped),
            ("questions written", run.new_records),
            ("already in output (resumed)", run.resumed_records), ("failed (kept raw, marked)", run.failed)]
    print_table(summary_table(f"attribute make-questions -> {output}", rows + usage_rows(llm)))
    if run.failed:
        raise RecordsFailed(run.failed, "question evolutions", output)
