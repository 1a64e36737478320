"""JSON values keyed by id on disk, so that one file is joined to another by id a record at a time, without
holding either in memory.

The values go into a SQLite table in a temporary folder, keyed by id, with the line each came from; a lookup is one
indexed read. Each id can be marked as matched by the other file, so the ids that matched nothing are counted and
named at the end. The table is removed when the store is closed or collected.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

INSERTS_PER_COMMIT = 10_000


class Stored(NamedTuple):
    """A value and the line it came from (None when unknown)."""

    line: int | None
    value: Any


class KeyedStore:
    """JSON values by id, the first value of each id kept."""

    def __init__(self, name: str) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix=f"factscope-{name}-")
        self._db = sqlite3.connect(Path(self._folder.name) / f"{name}.sqlite3", check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=OFF")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute(
            "CREATE TABLE entries (id TEXT PRIMARY KEY, line INTEGER, value TEXT NOT NULL, matched INTEGER NOT NULL "
            "DEFAULT 0)"
        )
        self._pending = 0

    def add(self, key: str, line: int | None, value: Any) -> bool:
        """Keep ``value`` (from ``line``) under ``key``; False, keeping the first, when ``key`` is already held."""
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO entries (id, line, value) VALUES (?, ?, ?)", (key, line, json.dumps(value))
        )
        self._pending += 1
        if self._pending >= INSERTS_PER_COMMIT:
            self._db.commit()
            self._pending = 0
        return cursor.rowcount == 1

    def get(self, key: str) -> Stored | None:
        """The value of ``key`` and its line, or None."""
        found = self._db.execute("SELECT line, value FROM entries WHERE id = ?", (key,)).fetchone()
        return None if found is None else Stored(found[0], json.loads(found[1]))

    def __contains__(self, key: object) -> bool:
        return self._db.execute("SELECT 1 FROM entries WHERE id = ?", (key,)).fetchone() is not None

    def mark_matched(self, keys: Iterable[str]) -> None:
        """Record that these ids matched (``unmatched`` then names the others)."""
        self._db.executemany("UPDATE entries SET matched = 1 WHERE id = ?", ((key,) for key in keys))
        self._db.commit()

    def unmatched(self, shown: int) -> tuple[int, list[str]]:
        """How many ids were not marked as matched, and the first ``shown`` of them (sorted)."""
        count = int(self._db.execute("SELECT COUNT(*) FROM entries WHERE matched = 0").fetchone()[0])
        ids = [row[0] for row in self._db.execute(
            "SELECT id FROM entries WHERE matched = 0 ORDER BY id LIMIT ?", (shown,))]
        return count, ids

    def close(self) -> None:
        """Remove the table."""
        self._db.close()
        self._folder.cleanup()
