"""`factscope ground score`, as the grounding system declares it (``GROUND_COMMAND``): its help, its reader's
options (``GroundReading`` and the atomic-facts file) and its spec's options."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from factscope.core.options.metadata import about
from factscope.core.options.validation import ValidatedOptions
from factscope.engines.command_form import CommandForm, OptionGroup
from factscope.grounding.spec import GROUND_BATCH_SIZE, GroundSpec
from factscope.grounding.supplied_facts import AtomicFactsFile

HELP = """Score the grounding of responses (the group's default command).

precision = share of the response's atomic facts present in the input contexts; recall = share of the gold atomic facts present in the response; grounding score = F1 (per record, macro-averaged). Also answer accuracy and breakdowns by popularity, single / multi context and definite / free-form.

Example (offline: spaCy facts, the embedded checker as presence model):

  factscope ground examples/ground/original.json --metadata examples/ground/metadata.json --responses examples/ground/responses.jsonl
"""


@dataclass(frozen=True)
class GroundReading(ValidatedOptions):
    """The files joined to a grounding dataset as it is read: its ``metadata`` and its ``responses``."""

    metadata: Path | None = field(default=None, metadata=about(
        "metadata JSON keyed by question id (has_answer, has_multi, pop)",
    ))
    responses: Path | None = field(default=None, metadata=about(
        "JSONL of {id, response, contexts?} (e.g. from `ground generate`), or a Truly Ground prediction file "
        "{qId: {input, output}}",
    ))


GROUND_COMMAND = CommandForm(
    name="score",
    help=HELP,
    input_help="dataset: the Truly Ground JSON layout, or generic JSONL, Parquet or CSV records",
    suffix=".ground",
    batch_size=GROUND_BATCH_SIZE,
    batch_help="records per decomposition / presence batch",
    reading=(OptionGroup(GroundReading), OptionGroup(AtomicFactsFile)),
    options=(OptionGroup(GroundSpec),),
)
"""The `ground score` command."""
