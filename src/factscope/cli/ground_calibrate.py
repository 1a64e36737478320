"""`factscope ground calibrate`: the presence threshold that agrees best with human labels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.display import print_skipped, print_summary
from factscope.cli.llm_options import LLMOptions, llm_options
from factscope.cli.option_groups import add_field_options
from factscope.core.display.progress import ProgressDisplay
from factscope.grounding.calibration import CalibrationSettings
from factscope.grounding.spec import GroundSpec

PRESENCE_FIELDS = frozenset({"presence", "window", "stride", "min_window"})
"""The presence model's options of `ground calibrate` (``GroundSpec``'s)."""

HELP = """Choose the presence threshold that agrees best with human presence labels.

LABELS is JSONL: {"fact": "...", "text": "..." (or "contexts": [...]), "present": true/false (or 1/0)}. Every midpoint between two adjacent model scores is tried; the best by --statistic wins.

Example:

  factscope ground calibrate examples/ground/labels.jsonl --presence bi --statistic pearson
"""


def register(app: typer.Typer) -> None:
    """Add the `calibrate` command to the `ground` group ``app``."""
    command = add_field_options(calibrate_command, GroundSpec, "spec", names=PRESENCE_FIELDS)
    command = add_field_options(command, CalibrationSettings, "settings", after="presence")
    app.command("calibrate", help=HELP)(llm_options(command))


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
    print_summary(f"presence threshold for {result.model}", result.summary_rows())
    typer.echo(json.dumps(result.json_figures()))
