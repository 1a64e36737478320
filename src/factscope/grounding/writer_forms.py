"""`factscope ground generate`, as the grounding package declares it (``RESPONSE_COMMAND``): its help, the
file its writer reads beside the dataset (``ResponseReading``) and the groups of options of its settings."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from factscope.core.options.metadata import about
from factscope.core.options.validation import ValidatedOptions
from factscope.engines.command_form import OptionGroup, WriterForm
from factscope.grounding.distractors import DistractorSettings
from factscope.grounding.generation import ResponseGenerationSettings, ResponseWriter

HELP = """Produce a response per question with an LLM (prompt `ground_generate`), resumably.

Each output line is {id, question, response, contexts, model}; `contexts` are the input contexts the model saw, so `factscope ground DATA --responses OUT` judges precision against them; with --corpus they also hold retrieved distractor passages (the paper's Dist setting). Failed calls are reported and not written; rerun to retry them.

Examples:

  factscope ground generate data.json --metadata meta.json -o responses.jsonl --llm-model gpt-4o-mini

  factscope ground generate data.json -o responses.jsonl --llm-model gpt-4o-mini --corpus wiki.jsonl --gold-position end
"""


@dataclass(frozen=True)
class ResponseReading(ValidatedOptions):
    """The file the responses' writer joins to a dataset as it reads it: its ``metadata``."""

    metadata: Path | None = field(default=None, metadata=about("metadata JSON keyed by question id"))


def response_writing(
    *, settings: ResponseGenerationSettings, distractors: DistractorSettings, reading: ResponseReading
) -> tuple[ResponseWriter, ResponseGenerationSettings]:
    """The writer of `ground generate`, reading the metadata file of ``reading``, and its settings:
    ``settings`` with ``distractors``."""
    return ResponseWriter(reading.metadata), replace(settings, distractors=distractors)


RESPONSE_COMMAND = WriterForm(
    name="generate",
    help=HELP,
    input_help="dataset: the Truly Ground JSON layout or generic JSONL",
    output_help="responses JSONL (appended to; resumes)",
    options={
        "reading": OptionGroup(ResponseReading),
        "settings": OptionGroup(ResponseGenerationSettings),
        "distractors": OptionGroup(DistractorSettings, after="corpus"),
    },
    writing=response_writing,
)
"""The `ground generate` command."""
