"""`factscope attribute`: knowledge-graph attributed answers and their evaluation (KaLMA)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.llm_options import LLMOptions, llm_options, write_with_llm
from factscope.cli.option_groups import add_field_options
from factscope.cli.output_options import OutputOptions, output_options
from factscope.cli.system_command import add_system_command
from factscope.kalma.generation_settings import AnswerGenerationSettings, EvolutionSettings
from factscope.kalma.system import ATTRIBUTE

HELP = """Knowledge-graph attribution (KaLMA / BioKaLMA): answers that cite triples of a knowledge graph as \\[Q212657, place of birth: Rome], mark what the graph lacks with \\[NA], and are scored with no reference answers."""

GENERATE_HELP = """Generate attributed answers with an LLM (one-shot prompt with an \\[NA] demonstration, KaLMA Table 10).

QUESTIONS: the BioKaLMA layout (JSON list of \\[question, \\[entity, ...]]) or JSON / JSONL records {id, question, minimum: \\[\\[qid, relation, value], ...], graph?: \\[entity, ...]}. Output is resumable JSONL.

Examples:

  factscope attribute generate examples/attribute/questions.jsonl --graph examples/attribute/graph.jsonl -o answers.jsonl --llm-model gpt-4o-mini

  factscope attribute generate questions.jsonl --graph graph.jsonl --remove 2 -o answers_removed2.jsonl --llm-model gpt-4o-mini
"""

EVOLVE_HELP = """Evolutionary question generation (KaLMA section 2.2): round 1 labels a seed paragraph with graph knowledge and writes a question; each later round injects one more triple and rewrites the question. The cited and injected knowledge is the question's minimum knowledge set. The output is a questions file for `attribute generate`.

SEEDS: JSON / JSONL records {id, paragraph, qids: \\[...]} (entities from --graph) or {id, paragraph, graph: \\[entity, ...]}.

Example: factscope attribute make-questions examples/attribute/seeds.jsonl --graph examples/attribute/graph.jsonl --rounds 6 -o questions.jsonl --llm-model gpt-4o-mini
"""

Output = Annotated[Path, typer.Option("--output", "-o", help="JSONL results file (resumes when it exists)")]


def register(app: typer.Typer) -> None:
    """Add the `attribute` command group."""
    attribute_app = typer.Typer(help=HELP, no_args_is_help=True)
    generate = add_field_options(generate_command, AnswerGenerationSettings, "settings", after="output")
    attribute_app.command("generate", help=GENERATE_HELP)(llm_options(output_options(generate, summary=False)))
    add_system_command(attribute_app, ATTRIBUTE)
    evolve = add_field_options(make_questions_command, EvolutionSettings, "settings", after="output")
    attribute_app.command("make-questions", help=EVOLVE_HELP)(llm_options(output_options(evolve, summary=False)))
    app.add_typer(attribute_app, name="attribute")


def generate_command(
    questions: Annotated[Path, typer.Argument(help="questions file (BioKaLMA layout, JSON or JSONL)")],
    output: Output,
    *,
    settings: AnswerGenerationSettings,
    endpoint: LLMOptions,
    outputs: OutputOptions,
) -> None:
    from factscope.kalma.generation import AnswerWriter

    write_with_llm(AnswerWriter(), settings, questions, output, endpoint, outputs)


def make_questions_command(
    seeds: Annotated[Path, typer.Argument(help="seed paragraphs (JSON or JSONL)")],
    output: Output,
    *,
    settings: EvolutionSettings,
    endpoint: LLMOptions,
    outputs: OutputOptions,
) -> None:
    from factscope.kalma.question_evolution import QuestionWriter

    write_with_llm(QuestionWriter(), settings, seeds, output, endpoint, outputs)
