"""The rule of the commands that check claims against references (`check`, `agree`) for records without
references, told in the command's words (their options are ``CheckerOptions``' and ``CheckSpec``'s fields)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import typer
from rich.markup import escape

from factscope.core.progress_display import console
from factscope.refchecker.missing_references import (
    MissingReferences,
    MissingReferencesWarning,
    missing_references_problem,
)


def refuse_missing_references(keys: Sequence[str], *, allowed: bool, remedy: str) -> None:
    """Warn loudly about records without references, whose claims can only be Neutral; stop with exit code 2
    unless ``allowed``. ``remedy`` says what the user can do besides giving references."""
    if not keys:
        return
    problem = missing_references_problem(keys)
    if allowed:
        console.print(f"[bold yellow]warning[/] {escape(problem)} Going on (--allow-missing-references).")
        return
    console.print(
        f"[bold red]error[/] {escape(problem)} Give them references, {remedy}, or pass --allow-missing-references "
        "to go on anyway."
    )
    raise typer.Exit(code=2)


@contextmanager
def references_rule(remedy: str) -> Iterator[None]:
    """The check system's rule for records without references, told in the command's words: its
    ``MissingReferences`` stops the command with exit code 2 and its warning is printed (``remedy`` as in
    ``refuse_missing_references``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", MissingReferencesWarning)
        shown = warnings.showwarning

        def show(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
            if isinstance(message, MissingReferencesWarning):
                refuse_missing_references(message.keys, allowed=True, remedy=remedy)
            else:
                shown(message, category, *args, **kwargs)

        warnings.showwarning = show
        try:
            yield
        except MissingReferences as missing:
            refuse_missing_references(missing.keys, allowed=False, remedy=remedy)
