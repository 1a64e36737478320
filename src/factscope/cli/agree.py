"""`factscope agree`: how well factscope's labels agree with human labels (RefChecker annotations)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from factscope.checkers.registry import CHECKER_SPECS, CHECKERS, make_checker
from factscope.claims.registry import EXTRACTOR_SPECS, EXTRACTORS, make_extractor
from factscope.cli.display import print_skipped, print_table, summary_table
from factscope.cli.llm_options import LLMOptions, llm_options, usage_rows

HELP = """Measure agreement with human labels.

HUMAN files are RefChecker human annotations: a JSON list of {id, response, <model>_response_kg: [{triplet,
human_label}]}, one file per evaluated model (the file name is the model name). --input supplies question and
references by the same ids (the check input format).

--mode checker checks the annotated triplets themselves: claim-level accuracy, macro-F1 and per-class F1 of the
checker alone. --mode pipeline extracts claims anew; both modes report response-level hallucination rates
(share of Neutral + Contradiction) against the human rate with Pearson and Spearman, and, with three or more
models, the Spearman correlation of the model rankings.

Example:

  factscope agree human/gpt4.json human/llama2.json --input refs.jsonl --mode checker --checker nli:MODEL
"""


def register(app: typer.Typer) -> None:
    """Add the `agree` command."""
    app.command("agree", help=HELP)(llm_options(agree_command))


def agree_command(
    human: Annotated[list[Path], typer.Argument(help="human annotation files, one per model", show_default=False)],
    input: Annotated[Path, typer.Option("--input", "-i", help="records with question and references, by id")],
    mode: Annotated[str, typer.Option(help="checker (given triplets) or pipeline (extract anew)")] = "checker",
    checker: Annotated[str, typer.Option(help=CHECKER_SPECS)] = "embedded",
    extractor: Annotated[str, typer.Option(help=EXTRACTOR_SPECS + "; pipeline mode only")] = "rules",
    report: Annotated[Path | None, typer.Option(help="write the figures as JSON here")] = None,
    *,
    endpoint: LLMOptions,
) -> None:
    from factscope.refchecker.agree import agree, load_human_annotations
    from factscope.refchecker.data import load_check_records

    annotations = []
    for path in human:
        responses, problems = load_human_annotations(path)
        for problem in problems:
            print_skipped(problem)
        annotations.extend(responses)
    records, problems = load_check_records(input)
    for problem in problems:
        print_skipped(problem)
    needs_llm = CHECKERS.needs_llm(checker) or (mode == "pipeline" and EXTRACTORS.needs_llm(extractor))
    llm = endpoint.build() if needs_llm else None
    result = agree(
        annotations,
        records,
        checker=make_checker(checker, llm=llm),
        extractor=make_extractor(extractor, llm=llm) if mode == "pipeline" else None,
        mode=mode,
    )
    rows: list[tuple[str, object]] = [("mode", result.mode), ("responses", result.responses)]
    if result.mode == "checker":
        rows += [("claims", result.claims), ("accuracy", result.accuracy), ("macro-F1", result.macro_f1)]
        rows += [(f"F1 {label.value}", score) for label, score in result.per_class_f1.items()]
    rows += [
        ("Pearson (response rate)", result.pearson[0] if result.pearson else None),
        ("Spearman (response rate)", result.spearman[0] if result.spearman else None),
        ("Spearman (model ranking)", result.model_ranking_spearman),
        ("annotated ids without a record", len(result.unmatched_ids)),
    ]
    rows += [(f"{model}: human / ours", f"{h:.3f} / {o:.3f}") for model, (h, o) in result.model_rates.items()]
    rows += usage_rows(llm)
    print_table(summary_table("agreement with human labels", rows))
    if report is not None:
        report.write_text(json.dumps(result.model_dump(mode="json"), indent=2), encoding="utf-8")
