"""An ``InputNotes`` (``factscope.core.files.input_notes``) that keeps what a reader tells it, in order."""

from __future__ import annotations


class KeptNotes:
    """The notes a reader gives, in order: each skipped record as 'skipped <problem>', each warning as
    'warning <line>'; the skipped records themselves in ``skipped_records``."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.skipped_records: list[object] = []

    def skipped(self, problems) -> None:
        self.skipped_records += problems
        self.lines += [f"skipped {problem}" for problem in problems]

    def note(self, line: str) -> None:
        self.lines.append(line)

    def warning(self, line: str) -> None:
        self.lines.append(f"warning {line}")
