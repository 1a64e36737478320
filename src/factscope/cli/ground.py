"""`factscope ground`: grounding precision / recall / F1 of LLM responses (Truly Ground); the commands are `score`,
which its system declares (``factscope.grounding.command_form``), `generate`, which its package declares
(``factscope.grounding.writer_forms``), and ground_calibrate's, with its options."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from factscope.cli import ground_calibrate
from factscope.cli.form_commands import add_system_command, add_writer_command
from factscope.cli.help_page import HelpGroup
from factscope.grounding.system import GROUND
from factscope.grounding.writer_forms import RESPONSE_COMMAND

if TYPE_CHECKING:
    from typer import _click  # typer vendors click: TyperGroup.parse_args takes typer's own Context

HELP = """Grounding evaluation (Truly Ground): does a response use all the needed knowledge of its contexts, and only
that?

`factscope ground INPUT` is `factscope ground score INPUT`."""


class _ScoreByDefault(HelpGroup):
    """A group whose default command is `score`: `factscope ground INPUT` means `factscope ground score INPUT`."""

    def parse_args(self, ctx: _click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in {"--help", "-h"}:
            args = ["score", *args]
        return super().parse_args(ctx, args)


def register(app: typer.Typer) -> None:
    """Add the `ground` command group."""
    ground_app = typer.Typer(cls=_ScoreByDefault, help=HELP, no_args_is_help=True)
    add_system_command(ground_app, GROUND)
    add_writer_command(ground_app, RESPONSE_COMMAND)
    ground_calibrate.register(ground_app)
    app.add_typer(ground_app, name="ground")
