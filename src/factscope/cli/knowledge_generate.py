"""`factscope knowledge generate | select`: knowledge (and answers) through an LLM, with chosen demonstrations or
the best of sampled candidates by Q_know; `select` runs generate's body with its sampled candidates."""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path
from typing import Any

from factscope.cli.display import print_notes
from factscope.cli.knowledge_options import Output, QueryFile
from factscope.cli.llm_options import LLMOptions, write_with_llm
from factscope.cli.output_options import OutputOptions
from factscope.conner.demonstrations import DemonstrationSettings
from factscope.conner.generation import CandidateSampling, GenerationSettings
from factscope.conner.generation_run import KnowledgeGenerationSettings
from factscope.conner.spec import KnowledgeSpec

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


def generate_command(
    input: QueryFile,
    output: Output = None,
    *,
    endpoint: LLMOptions,
    outputs: OutputOptions,
    generation: GenerationSettings,
    demonstrations: DemonstrationSettings,
    run: KnowledgeGenerationSettings,
    scoring: KnowledgeSpec,
) -> None:
    from factscope.conner.generation_run import KnowledgeWriter, selection_spec
    from factscope.conner.system import spec_missing_parts

    settings = replace(run, generation=replace(generation, seed=scoring.seed), demonstrations=demonstrations)
    selection = selection_spec(scoring, settings.generation, demonstrations)
    if selection is not None:
        print_notes(spec_missing_parts(selection))
    write = functools.partial(KnowledgeWriter(selection).write, settings, input)
    output = output or Path(f"{input.stem}.generated.jsonl")
    write_with_llm(write, "knowledge generation", output, endpoint, outputs)


@functools.wraps(generate_command)
def select_command(*, generation: GenerationSettings, sampling: CandidateSampling, **options: Any) -> None:
    """`knowledge generate` with the candidates of ``sampling`` (its options added to the same parameters)."""
    generate_command(generation=sampling.settings(generation), **options)
