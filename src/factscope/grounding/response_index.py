"""A responses file indexed by question id on disk, so that a dataset is joined to its responses one record at a
time, without holding every response in memory.

The responses (see ``factscope.grounding.responses``) are read once into a SQLite table in a temporary folder,
keyed by id; a lookup is one indexed read. The table is removed when the index is closed or collected.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Iterable
from pathlib import Path

from factscope.core.errors import InputError
from factscope.grounding.responses import ResponseRow, response_entries

INSERTS_PER_COMMIT = 10_000


class ResponseIndex:
    """The responses of ``path`` by id (``field_name``: where a row holds its text); ``errors`` holds the entries
    that could not be read."""

    def __init__(self, path: str | Path, field_name: str = "response") -> None:
        self.path = Path(path)
        self._folder = tempfile.TemporaryDirectory(prefix="factscope-responses-")
        self._db = sqlite3.connect(Path(self._folder.name) / "responses.sqlite3", check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=OFF")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute(
            "CREATE TABLE responses (id TEXT PRIMARY KEY, text TEXT NOT NULL, contexts TEXT, matched INTEGER "
            "NOT NULL DEFAULT 0)"
        )
        self.errors: list[InputError] = []
        pending = 0
        for entry in response_entries(self.path, field_name):
            if isinstance(entry, InputError):
                self.errors.append(entry)
                continue
            contexts = json.dumps(entry.contexts) if entry.contexts else None
            self._db.execute("INSERT INTO responses (id, text, contexts) VALUES (?, ?, ?)",
                             (entry.id, entry.text, contexts))
            pending += 1
            if pending == INSERTS_PER_COMMIT:
                self._db.commit()
                pending = 0
        self._db.commit()

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def get(self, question_id: str) -> ResponseRow | None:
        """The response to ``question_id``, or None."""
        found = self._db.execute("SELECT text, contexts FROM responses WHERE id = ?", (question_id,)).fetchone()
        if found is None:
            return None
        text, contexts = found
        return ResponseRow(id=question_id, text=text, contexts=json.loads(contexts) if contexts else None)

    def mark_matched(self, question_ids: Iterable[str]) -> None:
        """Record that these ids have a question (``unmatched`` then names the others)."""
        self._db.executemany("UPDATE responses SET matched = 1 WHERE id = ?", ((i,) for i in question_ids))
        self._db.commit()

    def unmatched(self, shown: int) -> tuple[int, list[str]]:
        """How many responses match no question marked, and the first ``shown`` of their ids (sorted)."""
        count = int(self._db.execute("SELECT COUNT(*) FROM responses WHERE matched = 0").fetchone()[0])
        ids = [row[0] for row in self._db.execute(
            "SELECT id FROM responses WHERE matched = 0 ORDER BY id LIMIT ?", (shown,))]
        return count, ids

    def close(self) -> None:
        """Remove the table."""
        self._db.close()
        self._folder.cleanup()
