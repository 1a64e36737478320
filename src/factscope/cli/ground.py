"""`factscope ground`: grounding precision / recall / F1 of LLM responses (Truly Ground); the commands are in
ground_score, ground_generate and ground_calibrate."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from factscope.cli.engine_options import run_options
from factscope.cli.ground_calibrate import CALIBRATE_HELP, PRESENCE_FIELDS, calibrate_command
from factscope.cli.ground_generate import GENERATE_HELP, generate_command
from factscope.cli.ground_score import HELP, score_command
from factscope.cli.help_page import HelpGroup
from factscope.cli.llm_options import llm_options
from factscope.cli.option_groups import add_field_options
from factscope.cli.output_options import output_options
from factscope.grounding.calibration import CalibrationSettings
from factscope.grounding.distractors import DistractorSettings
from factscope.grounding.generation import ResponseGenerationSettings
from factscope.grounding.spec import GroundSpec
from factscope.grounding.supplied_facts import AtomicFactsFile

if TYPE_CHECKING:
    from typer import _click  # typer vendors click: TyperGroup.parse_args takes typer's own Context

class _ScoreByDefault(HelpGroup):
    """A group whose default command is `score`: `factscope ground INPUT` means `factscope ground score INPUT`."""

    def parse_args(self, ctx: _click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in {"--help", "-h"}:
            args = ["score", *args]
        return super().parse_args(ctx, args)


def register(app: typer.Typer) -> None:
    """Add the `ground` command group."""
    ground_app = typer.Typer(cls=_ScoreByDefault, help=HELP, no_args_is_help=True)
    score = add_field_options(score_command, GroundSpec, "spec", after="output")
    score = add_field_options(score, AtomicFactsFile, "facts", after="responses")
    ground_app.command("score", help="Score responses (the default command). " + HELP.split("\n\n", 1)[1])(
        run_options(score, after="batch_size")
    )
    generate = add_field_options(output_options(generate_command, summary=False), ResponseGenerationSettings, "calls",
                                 names={"max_tokens", "batch_size"}, after="corpus")
    generate = add_field_options(generate, DistractorSettings, "distractors", after="corpus")
    ground_app.command("generate", help=GENERATE_HELP)(llm_options(generate))
    calibrate = add_field_options(calibrate_command, GroundSpec, "spec", names=PRESENCE_FIELDS)
    calibrate = add_field_options(calibrate, CalibrationSettings, "settings", after="presence")
    ground_app.command("calibrate", help=CALIBRATE_HELP)(llm_options(calibrate))
    app.add_typer(ground_app, name="ground")
