"""`factscope agree`: how well factscope's labels agree with human labels (RefChecker annotations)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from factscope.checkers.options import CheckerOptions
from factscope.cli.display import TerminalNotes, print_summary, print_table
from factscope.cli.llm_options import LLMOptions, llm_options
from factscope.cli.option_groups import add_field_options
from factscope.cli.output_options import OutputOptions, output_options
from factscope.cli.output_paths import check_outputs
from factscope.core.display.progress import ProgressDisplay
from factscope.core.errors import RecordsFailed
from factscope.hf.llm_endpoint import ClientOnce
from factscope.refchecker.agree import AgreeSettings
from factscope.refchecker.spec import CheckSpec

HELP = """Measure agreement with human labels (RefChecker's human annotations).

HUMAN files are RefChecker human annotations: a JSON list of {id, response, <model>_response_kg: [{triplet,
human_label}]}; a file's model and context setting come from its name (--model-from). --input records are in
the check input format or RefChecker's benchmark records {id, question, context}.

--mode checker checks the annotated triplets themselves (claim-level accuracy and F1 of the checker alone);
--mode pipeline extracts claims anew. Both compare response-level hallucination rates with the human ones,
over all responses and per setting; the agree guide describes each figure.

Example:

  factscope agree human/*/*_answers.json -i data/nq.json -i data/msmarco.json -i data/dolly.json --checker nli:MODEL
"""

AGREE_SETTINGS = frozenset({"max_tokens", "window_sentences", "min_window_sentences", "llm_mode", "llm_passages"})
"""The checker settings `agree` offers."""

AGREE_SPEC_FIELDS = frozenset({"extractor", "checker", "allow_missing_references"})
"""The check spec's options `agree` offers (the extractor counts in pipeline mode only)."""


def register(app: typer.Typer) -> None:
    """Add the `agree` command."""
    command = add_field_options(agree_command, AgreeSettings, "settings")
    command = output_options(command, summary=False, after="output")
    command = add_field_options(command, CheckSpec, "chosen", names=AGREE_SPEC_FIELDS)
    command = add_field_options(command, CheckerOptions, "checking", names=AGREE_SETTINGS)
    app.command("agree", help=HELP)(llm_options(command))


def agree_command(
    human: Annotated[
        list[Path] | None,
        typer.Argument(help="human annotation files, one per model (and setting)", show_default=False),
    ] = None,
    *,
    settings: AgreeSettings,
    endpoint: LLMOptions,
    outputs: OutputOptions,
    checking: CheckerOptions,
    chosen: CheckSpec,
) -> None:
    from factscope.refchecker.agree import AgreementWriter
    from factscope.reports.check_tables import agreement_rows, agreement_tables

    output = settings.results_file
    check_outputs(output, overwrite=outputs.overwrite, written={"report": settings.report})
    spec = replace(chosen, checker_settings=checking)
    endpoint.refuse_if_unused(settings.unused_llm(spec))
    client = ClientOnce(endpoint)
    with ProgressDisplay() as shown:
        result = AgreementWriter(spec).write(
            settings, human or [], llm=client, output=output, progress=shown, overwrite=outputs.overwrite,
            retry_failed=outputs.retry_failed, notes=TerminalNotes(),
        )
    print_table(*agreement_tables(result))
    rows = agreement_rows(result, output) + client.usage_rows()
    print_summary("run", rows)
    if result.failed_responses:
        raise RecordsFailed(result.failed_responses, result.what_failed, output)
