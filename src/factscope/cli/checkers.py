"""`factscope checkers`: every component a run can name, plugins included, with what each is and takes (the long
lists that the options' help only names)."""

from __future__ import annotations

from typing import Any

import typer
from rich.text import Text

from factscope.cli.help_page import NAME_STYLE, help_console, print_listing

HELP = """List the claim checkers, claim extractors and presence models that a run can name, plugins included: what
each is, what its argument means, and whether it needs an LLM.

Examples:

  factscope checkers
  factscope check answers.jsonl --checker nli:MODEL
"""


def register(app: typer.Typer) -> None:
    """Add the `checkers` command."""
    app.command("checkers", help=HELP)(checkers_command)


def checkers_command() -> None:
    """Print one table per kind of component."""
    from factscope.checkers.registry import CHECKERS
    from factscope.claims.registry import EXTRACTORS
    from factscope.core.registry import Registry
    from factscope.grounding.presence import PRESENCE_MODELS

    kinds: list[tuple[str, Registry[Any]]] = [
        ("Claim checkers: check --checker, eval-checker --checker", CHECKERS),
        ("Claim extractors: check --extractor, ground score --extractor", EXTRACTORS),
        ("Presence models: ground score --presence", PRESENCE_MODELS),
    ]
    console = help_console()
    for title, registry in kinds:
        rows = []
        for entry in registry.entries():
            if isinstance(entry, str):
                rows.append((Text(entry.split(" ", 1)[0], style=NAME_STYLE), Text(entry)))
            else:
                rows.append((Text(entry.usage, style=NAME_STYLE), Text(entry.description())))
        print_listing(title, rows, console)
