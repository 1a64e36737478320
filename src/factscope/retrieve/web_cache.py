"""A SQLite cache of searches and fetched pages, so that a rerun or a resumed run asks no service twice.

An entry is keyed by what decides its content (the service, the query or URL, the settings that shape the
answer) and keeps its fetch time: a lookup takes it only while it is younger than the allowed age, and the fetch
time travels with the passages cut from it. Nothing secret is stored: keys go in request headers, never in the
cache key or the body kept.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factscope.core.errors import ConfigError


def web_cache_key(kind: str, service: str, request: str, settings: dict[str, Any]) -> str:
    """A stable hash of what decides an entry: its kind (search, page), the service, the query or URL and the
    settings that shape the answer."""
    canonical = json.dumps(
        {"kind": kind, "service": service, "request": request, "settings": settings},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedEntry:
    """A stored body and the time (seconds since the epoch) it was fetched."""

    body: Any
    fetched: float


class WebCache:
    """Stores JSON bodies by key with their fetch time; safe to share between threads."""

    def __init__(self, path: str | Path, *, max_age_days: float) -> None:
        self.path = Path(path).expanduser()
        self.max_age_seconds = max_age_days * 86_400
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, kind TEXT NOT NULL, body TEXT NOT NULL, "
                "fetched REAL NOT NULL)"
            )
            self._db.commit()
        except (OSError, sqlite3.Error) as error:
            raise ConfigError(
                f"cannot open the web cache at {self.path}: {error}; set cache_path to a writable file"
            ) from error
        self._lock = threading.Lock()

    def get(self, key: str, *, now: float | None = None) -> CachedEntry | None:
        """The stored entry when it is younger than the allowed age, else None."""
        with self._lock:
            row = self._db.execute("SELECT body, fetched FROM entries WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        if (now if now is not None else time.time()) - row[1] >= self.max_age_seconds:
            return None
        return CachedEntry(json.loads(row[0]), row[1])

    def put(self, key: str, kind: str, body: Any, *, fetched: float | None = None) -> CachedEntry:
        """Store ``body`` as fetched now (or at ``fetched``), replacing an older entry of the key."""
        entry = CachedEntry(body, fetched if fetched is not None else time.time())
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO entries (key, kind, body, fetched) VALUES (?, ?, ?, ?)",
                (key, kind, json.dumps(body, ensure_ascii=False), entry.fetched),
            )
            self._db.commit()
        return entry

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM entries").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()
