"""`factscope check`, as the check system declares it (``CHECK_COMMAND``): its help, its reader's options
(``CheckReading``) and the groups of options of its spec."""

from __future__ import annotations

from dataclasses import dataclass, field

from factscope.checkers.options import CheckerOptions
from factscope.core.options.metadata import about
from factscope.core.options.panels import CHECKING, CLAIMS, ENGINE, EVIDENCE, INPUT, LLM, OUTPUT
from factscope.core.options.validation import ValidatedOptions
from factscope.engines.command_form import CommandForm, OptionGroup
from factscope.refchecker.data import MAX_REFERENCE_CHARS
from factscope.refchecker.spec import CHECK_BATCH_SIZE, CheckSpec
from factscope.retrieve.web_settings import WebSettings

HELP = """Claim checking (RefChecker): extract claims from LLM responses and check each against the references:
Entailment (supported), Neutral (not verifiable from them) or Contradiction.

Input: records with `response`, `references` (a list) or `reference`, and optional `id`, `question`, `setting`,
or RefChecker's files.

Examples:
  factscope check examples/check.jsonl            # offline: rules + embedded
  factscope check answers.jsonl -o checked.jsonl --extractor llm \\
      --checker nli:MODEL --llm-model gpt-4o-mini
  factscope check shards/ --engine ray --concurrency 4    # on a local Ray
  SERPER_API_KEY=... factscope check answers.jsonl --retriever web:serper
"""


@dataclass(frozen=True)
class CheckReading(ValidatedOptions):
    """How the check system reads its input files."""

    max_reference_chars: int = field(default=MAX_REFERENCE_CHARS, metadata=about(
        "skip records whose references are longer", min=1,
    ))


SPEC_PANELS = {
    "extractor": CLAIMS, "abstention_detection": CLAIMS, "checker": CHECKING, "allow_missing_references": INPUT,
    "corpus": EVIDENCE, "retriever": EVIDENCE, "retrieve_k": EVIDENCE, "retrieve_for": EVIDENCE,
}
"""The --help panel of each option of the check spec."""

CHECKER_PANELS = {"llm_mode": LLM, "llm_passages": LLM, "device": ENGINE, "decision": CHECKING}
"""The checker settings shown outside the checking panel: the LLM checker's, and where models run."""

CHECK_COMMAND = CommandForm(
    name="check",
    help=HELP,
    input_help="JSON, JSONL, Parquet or CSV records (with --engine ray: or a folder of *.jsonl)",
    output_help="results JSONL (default: INPUT name + .checked.jsonl here); with --engine ray a results folder",
    suffix=".checked",
    batch_size=CHECK_BATCH_SIZE,
    reading=(OptionGroup(CheckReading, panel=INPUT),),
    options=(
        OptionGroup(CheckSpec, panels=SPEC_PANELS),
        OptionGroup(CheckerOptions, into="checker_settings", panel=CHECKING, panels=CHECKER_PANELS),
        OptionGroup(WebSettings, into="web", panel=EVIDENCE),
    ),
    panels={"input": INPUT, "output": OUTPUT, "batch_size": ENGINE},
)
"""The `check` command."""
