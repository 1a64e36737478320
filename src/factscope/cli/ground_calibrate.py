"""`factscope ground calibrate`: the presence threshold that agrees best with human labels
(``factscope.grounding.calibration``)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.display import ProgressDisplay, print_skipped, print_table, summary_table
from factscope.cli.ground_score import PRESENCE_HELP
from factscope.cli.llm_options import LLMOptions
from factscope.grounding.presence import PRESENCE_MODELS
from factscope.grounding.spec import DEFAULT_PRESENCE, GroundSpec
from factscope.metrics.grounding import AgreementStatistic

WINDOW_FIELDS = frozenset({"window", "stride", "min_window"})
"""The presence windows' options of `ground calibrate` (``GroundSpec``'s)."""

CALIBRATE_HELP = """Choose the presence threshold that agrees best with human presence labels.

LABELS is JSONL: {"fact": "...", "text": "..." (or "contexts": [...]), "present": true/false (or 1/0)}. Every midpoint between two adjacent model scores is tried; the best by --statistic wins (pearson: the correlation with the human labels, as the paper chose its thresholds; also accuracy, macro-f1, kappa).

Example:

  factscope ground calibrate labels.jsonl --presence bi --statistic pearson
"""


def calibrate_command(
    ctx: typer.Context,
    labels: Annotated[
        Path, typer.Argument(help="JSONL of {fact, text | contexts, present}", show_default=False)
    ],
    presence: Annotated[str, typer.Option(help=PRESENCE_HELP)] = DEFAULT_PRESENCE,
    statistic: Annotated[
        AgreementStatistic, typer.Option(help="what the threshold should maximise")
    ] = "pearson",
    *,
    endpoint: LLMOptions,
    windows: GroundSpec,
) -> None:
    from factscope.grounding.calibration import calibrate_presence, read_labels
    from factscope.grounding.system import make_spec_presence

    read = read_labels(labels, skipped=print_skipped)
    llm = endpoint.build_if(PRESENCE_MODELS.needs_llm(presence))
    model = make_spec_presence(replace(windows, presence=presence), llm)
    with ProgressDisplay() as shown:
        result = calibrate_presence(model, read.labels, statistic, progress=shown, path=labels)
    print_table(
        summary_table(
            f"presence threshold for {result.model}",
            [
                ("labelled pairs (judged / unjudged)", f"{result.judged} / {result.unjudged}"),
                ("human: present", result.present),
                (f"best threshold ({statistic})", round(result.threshold, 4)),
                (f"{statistic} at best threshold", result.value),
                (f"{statistic} at default threshold {result.default_threshold:g}", result.at_default),
                ("thresholds tried", result.candidates),
            ],
        )
    )
    typer.echo(json.dumps({"threshold": result.threshold, statistic: result.value, "model": result.model}))

