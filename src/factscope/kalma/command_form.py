"""`factscope attribute score`, as the attribution system declares it (``ATTRIBUTE_COMMAND``): its help, its
reader's option (the gold minimum sets) and the groups of options of its spec."""

from __future__ import annotations

from factscope.checkers.options import CheckerOptions
from factscope.engines.command_form import CommandForm, OptionGroup
from factscope.kalma.generation_settings import AnswerGenerationSettings
from factscope.kalma.spec import ATTRIBUTE_BATCH_SIZE, AttributeSpec

HELP = """Score attributed answers: citation quality (micro and macro), alignment, \\[NA] quality, text quality.

ANSWERS: the output of `attribute generate`, or JSON / JSONL / Parquet / CSV records {id, question, answer, graph: \\[entity, ...], minimum: \\[\\[qid, relation, value], ...], removed?: \\[...]}. Rows with different numbers of removed triples are summarised separately. Output is resumable JSONL, one row per answer.

Examples:

  factscope attribute score examples/attribute/answers.jsonl -o scores.jsonl

  factscope attribute score answers.jsonl -o scores.jsonl --checker nli:MoritzLaurer/DeBERTa-v3-base-mnli --summary summary.json
"""

ATTRIBUTE_COMMAND = CommandForm(
    name="score",
    help=HELP,
    input="answers",
    input_help="answers file (output of `attribute generate`, or your own; with --engine ray also a folder of "
               "*.jsonl shards)",
    output_help="JSONL results file (resumes when it exists); with --engine ray a results folder",
    suffix=None,
    batch_size=ATTRIBUTE_BATCH_SIZE,
    batch_help=None,
    reading=(OptionGroup(AnswerGenerationSettings, names=frozenset({"minimum"})),),
    options=(
        OptionGroup(CheckerOptions, into="checker_settings", names=frozenset({"mode"})),
        OptionGroup(AttributeSpec),
    ),
)
"""The `attribute score` command."""
