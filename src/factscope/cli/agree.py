"""`factscope agree`: how well factscope's labels agree with human labels (RefChecker annotations)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from factscope.checkers.options import CheckerOptions
from factscope.checkers.registry import CHECKERS, make_checker
from factscope.claims.registry import EXTRACTORS, make_extractor
from factscope.cli.checking_options import refuse_missing_references
from factscope.cli.display import print_skipped, print_table
from factscope.cli.llm_options import LLMOptions, llm_options, usage_rows
from factscope.cli.option_groups import add_field_options
from factscope.cli.output_options import OutputOptions, output_options
from factscope.cli.output_paths import check_outputs
from factscope.core.errors import RecordsFailed
from factscope.core.figure_table import summary_table
from factscope.core.progress_display import ProgressDisplay
from factscope.refchecker.agree import AgreeMode
from factscope.refchecker.annotations import ModelSource
from factscope.refchecker.spec import CheckSpec

HELP = """Measure agreement with human labels (RefChecker's human annotations).

HUMAN files are RefChecker human annotations: a JSON list of {id, response, <model>_response_kg: [{triplet,
human_label}]}. A file's model and context setting come from its name (--model-from stem): nq_gpt4_answers.json
and gpt4_zero.json are both model gpt4 in Zero Context (nq / msmarco / dolly or zero / noisy / accurate at the
start or the end of the name; a trailing _answers is dropped). --model-from field reads each record's model from
--model-field; --model NAME=FILE names a file's model outright. --input (repeatable) supplies question and
references by id: the check input format or RefChecker's benchmark records {id, question, context}; a response
is optional there. Records without references stop the run (exit code 2) unless --allow-missing-references.

--mode checker checks the annotated triplets themselves: claim-level accuracy, macro-F1, per-class F1 and the
confusion matrix of the checker alone. --mode pipeline extracts claims anew. Both report response-level
hallucination rates (share of Neutral + Contradiction) against the human rate with Pearson and Spearman, and,
with three or more models, the Spearman correlation of the model rankings: over all responses and per setting.
Results are written to OUTPUT as they are made; rerunning the same command resumes.

Example:

  factscope agree human/*/*_answers.json -i data/nq.json -i data/msmarco.json -i data/dolly.json --checker nli:MODEL
"""


def register(app: typer.Typer) -> None:
    """Add the `agree` command."""
    command = output_options(agree_command, summary=False, after="output")
    command = add_field_options(command, CheckSpec, "chosen", names=AGREE_SPEC_FIELDS)
    command = add_field_options(command, CheckerOptions, "checking", names=AGREE_SETTINGS)
    app.command("agree", help=HELP)(llm_options(command))


AGREE_SETTINGS = frozenset({"max_tokens", "window_sentences", "min_window_sentences", "llm_mode", "llm_passages"})
"""The checker settings `agree` offers."""

AGREE_SPEC_FIELDS = frozenset({"extractor", "checker", "allow_missing_references"})
"""The check spec's options `agree` offers (the extractor counts in pipeline mode only)."""


def agree_command(
    ctx: typer.Context,
    human: Annotated[
        list[Path] | None,
        typer.Argument(help="human annotation files, one per model (and setting)", show_default=False),
    ] = None,
    input: Annotated[
        list[Path] | None,
        typer.Option("--input", "-i", help="records with question and references, by id (repeatable; required)"),
    ] = None,
    model_from: Annotated[
        ModelSource, typer.Option(help="where a file's model name comes from: its file name, or --model-field")
    ] = "stem",
    model_field: Annotated[str, typer.Option(help="the record field that names the model (--model-from field)")] = "model",
    model: Annotated[
        list[str] | None,
        typer.Option(
            "--model",
            help="NAME=FILE: the responses of FILE are model NAME (repeatable; FILE need not be listed as HUMAN too)",
        ),
    ] = None,
    mode: Annotated[
        AgreeMode, typer.Option(help="checker (given triplets) or pipeline (extract anew with --extractor)")
    ] = "checker",
    batch_size: Annotated[int, typer.Option(min=1, help="responses per checking batch")] = 32,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="results JSONL, one line per response (default: agree-MODE.jsonl here)"),
    ] = None,
    report: Annotated[
        Path | None, typer.Option(help="write the figures, the confusion matrix and every claim's labels as JSON here")
    ] = None,
    *,
    endpoint: LLMOptions,
    outputs: OutputOptions,
    checking: CheckerOptions,
    chosen: CheckSpec,
) -> None:
    from factscope.refchecker.agree import agree
    from factscope.refchecker.annotations import (
        join_annotations,
        load_annotation_files,
        load_reference_records,
    )
    from factscope.reports.check_tables import agreement_table, confusion_table, model_rates_table

    output = output or Path(f"agree-{mode}.jsonl")
    check_outputs(output, overwrite=outputs.overwrite, written={"--report": report})
    if not input:
        raise typer.BadParameter("give the records with the questions and references", param_hint="--input")
    names = _model_names(model or [])
    if not human and not names:
        raise typer.BadParameter("give human annotation files (or --model NAME=FILE)", param_hint="HUMAN")
    annotations, problems = load_annotation_files(human or [], names, model_from=model_from, model_field=model_field)
    print_skipped(*problems)
    records, missing = load_reference_records(input)
    print_skipped(*missing)
    refuse_missing_references(
        join_annotations(annotations, records).without_references(),
        allowed=chosen.allow_missing_references,
        remedy="check that --input holds the records these annotations were made on",
    )
    checker, extractor = str(chosen.checker), str(chosen.extractor)  # spec strings, as the command line gives
    llm = endpoint.build_if(CHECKERS.needs_llm(checker) or (mode == "pipeline" and EXTRACTORS.needs_llm(extractor)))
    with ProgressDisplay() as shown:
        result = agree(
            annotations,
            records,
            checker=make_checker(checker, llm=llm, **checking.settings(AGREE_SETTINGS)),
            extractor=make_extractor(extractor, llm=llm) if mode == "pipeline" else None,
            mode=mode,
            output=output,
            batch_size=batch_size,
            progress=shown,
            overwrite=outputs.overwrite,
            retry_failed=outputs.retry_failed,
        )
    print_table(agreement_table(result))
    print_table(model_rates_table(result))
    if result.mode == "checker":
        print_table(confusion_table(result))
    rows: list[tuple[str, object]] = [
        ("mode", result.mode),
        ("responses (new / resumed)", f"{result.new_responses} / {result.resumed_responses}"),
        ("annotated ids without a record", len(result.unmatched_ids)),
        ("skipped input records", len(problems) + len(missing)),
        ("results", str(output)),
    ]
    print_table(summary_table("run", rows + usage_rows(llm)))
    if report is not None:
        report.write_text(json.dumps(result.model_dump(mode="json"), indent=2), encoding="utf-8")
    if result.failed_responses:
        raise RecordsFailed(
            result.failed_responses,
            "responses (a claim check" + (" or the extraction" if result.mode == "pipeline" else "") + ")",
            output,
        )


def _model_names(named: list[str]) -> dict[Path, str]:
    """The model each ``--model NAME=FILE`` gives its file."""
    names: dict[Path, str] = {}
    for value in named:
        name, separator, file = value.partition("=")
        if not separator or not name.strip() or not file.strip():
            raise typer.BadParameter(f"{value!r}: expected NAME=FILE", param_hint="--model")
        names[Path(file.strip())] = name.strip()
    return names
