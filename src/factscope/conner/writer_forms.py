"""`factscope knowledge generate` and `knowledge select`, as CONNER's package declares them
(``GENERATE_COMMAND``, ``SELECT_COMMAND``): their help and groups of options, and how these make the
``KnowledgeWriter`` and its settings; `select` is `generate` with sampled candidates."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from factscope.conner.demonstrations import DemonstrationSettings
from factscope.conner.generation import CandidateSampling, GenerationSettings
from factscope.conner.generation_run import (
    SELECTION_FIELDS,
    KnowledgeGenerationSettings,
    KnowledgeWriter,
    selection_spec,
)
from factscope.conner.spec import KnowledgeSpec
from factscope.core.options.panels import SCORING
from factscope.engines.command_form import OptionGroup, WriterForm

GENERATE_HELP = """Generate knowledge for each query through an LLM, with the paper's prompts (Appendix F, Tables 11-12).

--mode few builds Appendix F.2's prompt from --train examples: random ones, or the best by Q_know with --select-from
(CONNER-guided demonstration selection; needs the scoring options). The output is a valid input of `knowledge score`.

Examples:

  factscope knowledge generate queries.jsonl --llm-model gpt-4o-mini -o generated.jsonl --answer

  factscope knowledge generate queries.jsonl --mode few --train train.jsonl --shots 8 --select-from 30 \\
      --corpus wiki.jsonl --lm gpt2 --llm-model gpt-4o-mini
"""

SELECT_HELP = """Knowledge selection (CONNER section 5): sample r candidates (top-p) and keep argmax Q_know.

Q_know needs all four of its parts: pass --corpus, and --lm unless factscope\\[lm] is installed (its embedded LM is the default).

Example:

  factscope knowledge select queries.jsonl --candidates 5 --top-p 0.9 --corpus wiki.jsonl --lm gpt2 \\
      --llm-model gpt-4o-mini -o selected.jsonl --answer
"""

INPUT_HELP = ("queries: JSON / JSONL records with `query` (and `topic`, `task`), or a CONNER query table "
              "(TSV).")
"""The help of the commands' input argument."""

RUN_FIELDS = frozenset({"task", "batch_size"})
"""The options of a generation run besides its prompts and demonstrations
(``KnowledgeGenerationSettings``')."""

GENERATE_OPTIONS = {
    "settings": OptionGroup(KnowledgeGenerationSettings, names=RUN_FIELDS),
    "generation": OptionGroup(GenerationSettings, after="task"),
    "demonstrations": OptionGroup(DemonstrationSettings, after="mode"),
    "scoring": OptionGroup(KnowledgeSpec, names=SELECTION_FIELDS, panel=SCORING),
}
"""The groups of options of `knowledge generate`, by the keyword ``knowledge_writing`` takes each under."""


def knowledge_writing(
    *, settings: KnowledgeGenerationSettings, generation: GenerationSettings,
    demonstrations: DemonstrationSettings, scoring: KnowledgeSpec,
) -> tuple[KnowledgeWriter, KnowledgeGenerationSettings]:
    """The writer of `knowledge generate` and its settings: ``settings`` with ``generation`` (seeded with
    ``scoring``'s seed) and ``demonstrations``; the writer scores Q_know with ``scoring`` where it chooses
    candidates or demonstrations by it (``selection_spec``)."""
    seeded = replace(generation, seed=scoring.seed)
    settings = replace(settings, generation=seeded, demonstrations=demonstrations)
    return KnowledgeWriter(selection_spec(scoring, settings.generation, demonstrations)), settings


def selection_writing(
    *, generation: GenerationSettings, sampling: CandidateSampling, **groups: Any
) -> tuple[KnowledgeWriter, KnowledgeGenerationSettings]:
    """The writer of `knowledge select` and its settings: ``knowledge_writing``'s, sampling the candidates of
    ``sampling``."""
    return knowledge_writing(generation=sampling.settings(generation), **groups)


GENERATE_COMMAND = WriterForm(
    name="generate",
    help=GENERATE_HELP,
    input_help=INPUT_HELP,
    output_help="results JSONL (resumable)",
    suffix=".generated",
    options=GENERATE_OPTIONS,
    writing=knowledge_writing,
)
"""The `knowledge generate` command."""

SELECT_COMMAND = replace(
    GENERATE_COMMAND,
    name="select",
    help=SELECT_HELP,
    options={
        **GENERATE_OPTIONS,
        "demonstrations": OptionGroup(DemonstrationSettings, names=frozenset({"train", "shots", "answer"}),
                                      after="mode"),
        "sampling": OptionGroup(CandidateSampling, after="task"),
    },
    writing=selection_writing,
)
"""The `knowledge select` command: `generate`'s with sampled candidates, and no --select-from (its
demonstrations are random)."""
