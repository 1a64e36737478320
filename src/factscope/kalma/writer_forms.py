"""`factscope attribute generate` and `attribute make-questions`, as the attribution package declares them
(``ANSWER_COMMAND``, ``QUESTION_COMMAND``): their help, their input and their settings' options."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from factscope.engines.command_form import OptionGroup, WriterForm
from factscope.kalma.generation import AnswerWriter
from factscope.kalma.generation_settings import AnswerGenerationSettings, EvolutionSettings
from factscope.kalma.question_evolution import QuestionWriter

ANSWER_HELP = """Generate attributed answers with an LLM (one-shot prompt with an \\[NA] demonstration, KaLMA Table 10).

QUESTIONS: the BioKaLMA layout (JSON list of \\[question, \\[entity, ...]]) or JSON / JSONL records {id, question, minimum: \\[\\[qid, relation, value], ...], graph?: \\[entity, ...]}. Output is resumable JSONL.

Examples:

  factscope attribute generate examples/attribute/questions.jsonl --graph examples/attribute/graph.jsonl -o answers.jsonl --llm-model gpt-4o-mini

  factscope attribute generate questions.jsonl --graph graph.jsonl --remove 2 -o answers_removed2.jsonl --llm-model gpt-4o-mini
"""

QUESTION_HELP = """Evolutionary question generation (KaLMA section 2.2): round 1 labels a seed paragraph with graph knowledge and writes a question; each later round injects one more triple and rewrites the question. The cited and injected knowledge is the question's minimum knowledge set. The output is a questions file for `attribute generate`.

SEEDS: JSON / JSONL records {id, paragraph, qids: \\[...]} (entities from --graph) or {id, paragraph, graph: \\[entity, ...]}.

Example: factscope attribute make-questions examples/attribute/seeds.jsonl --graph examples/attribute/graph.jsonl --rounds 6 -o questions.jsonl --llm-model gpt-4o-mini
"""

RESULTS_HELP = "JSONL results file (resumes when it exists)"
"""The help of the commands' --output."""


def answer_writing(*, settings: AnswerGenerationSettings) -> tuple[AnswerWriter, AnswerGenerationSettings]:
    """The writer of `attribute generate` and its settings."""
    return AnswerWriter(), settings


def question_writing(*, settings: EvolutionSettings) -> tuple[QuestionWriter, EvolutionSettings]:
    """The writer of `attribute make-questions` and its settings."""
    return QuestionWriter(), settings


def _settings_command(
    name: str, help: str, input: str, input_help: str, settings: type, writing: Callable[..., Any]
) -> WriterForm:
    """A command whose writer takes one group of options, ``settings``, and whose results file must be given."""
    return WriterForm(name=name, help=help, input=input, input_help=input_help, output_help=RESULTS_HELP,
                      options={"settings": OptionGroup(settings)}, writing=writing)


ANSWER_COMMAND = _settings_command("generate", ANSWER_HELP, "questions", "questions file (BioKaLMA layout, JSON or JSONL)",
                                   AnswerGenerationSettings, answer_writing)
"""The `attribute generate` command."""

QUESTION_COMMAND = _settings_command("make-questions", QUESTION_HELP, "seeds", "seed paragraphs (JSON or JSONL)",
                                     EvolutionSettings, question_writing)
"""The `attribute make-questions` command."""
