"""What a reader tells its user about the input it read: the records it skipped, notes (what it found) and
warnings (what it left out), through an ``InputNotes`` that a front-end provides (a terminal prints them), and the
rule that an input with no usable record stops the work (``report_usable``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from factscope.core.errors import InputError


class InputNotes(Protocol):
    """Where what was found in the input goes, in the order it was found."""

    def skipped(self, problems: Sequence[InputError]) -> None:
        """Input records that could not be used, each with its place and reason."""

    def note(self, line: str) -> None:
        """What was read (a graph's size, how many records a file of gold sets matched)."""

    def warning(self, line: str) -> None:
        """Something the work left out or could not do as asked."""


def report_usable(
    count: int, problems: Sequence[InputError], what: str, path: str | Path, notes: InputNotes | None
) -> None:
    """Tell ``notes`` of the records skipped (``problems``); an InputError naming ``path`` when none of its
    ``what`` is usable (``count`` is 0)."""
    if notes is not None:
        notes.skipped(problems)
    if not count:
        raise InputError(f"no usable {what}" + ("; see the messages above" if problems else ""), path=path)
