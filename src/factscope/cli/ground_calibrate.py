"""`factscope ground calibrate`: the presence threshold that agrees best with human labels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.display import ProgressDisplay, print_skipped, print_table, summary_table
from factscope.cli.llm_options import LLMOptions
from factscope.grounding.calibration import CalibrationSettings
from factscope.grounding.spec import GroundSpec

PRESENCE_FIELDS = frozenset({"presence", "window", "stride", "min_window"})
"""The presence model's options of `ground calibrate` (``GroundSpec``'s)."""

CALIBRATE_HELP = """Choose the presence threshold that agrees best with human presence labels.

LABELS is JSONL: {"fact": "...", "text": "..." (or "contexts": [...]), "present": true/false (or 1/0)}. Every midpoint between two adjacent model scores is tried; the best by --statistic wins.

Example:

  factscope ground calibrate labels.jsonl --presence bi --statistic pearson
"""


def calibrate_command(
    labels: Annotated[
        Path, typer.Argument(help="JSONL of {fact, text | contexts, present}", show_default=False)
    ],
    *,
    endpoint: LLMOptions,
    spec: GroundSpec,
    settings: CalibrationSettings,
) -> None:
    from factscope.grounding.calibration import calibrate_presence, read_labels
    from factscope.grounding.system import GROUND, make_spec_presence

    read = read_labels(labels, skipped=print_skipped)
    model = make_spec_presence(spec, endpoint.build_if(GROUND.needs_llm(spec)))
    with ProgressDisplay() as shown:
        result = calibrate_presence(model, read.labels, settings.statistic, progress=shown, path=labels)
    print_table(summary_table(f"presence threshold for {result.model}", result.summary_rows()))
    typer.echo(json.dumps(result.json_figures()))
