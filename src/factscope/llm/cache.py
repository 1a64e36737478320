"""A SQLite cache of successful LLM replies, keyed by endpoint + model + messages/prompt + parameters.

It is kept over HTTP-level caches (hishel, requests-cache) and SDK caches because those key on URLs and
headers rather than on what decides a reply, store whatever came back, and need no less code: this one keys
on the canonical request body, stores only replies that parsed, and is one file that threads, resumed runs
and separate commands share.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from factscope.core.errors import ConfigError
from factscope.core.files.storage_faults import sqlite_fault


def cache_key(endpoint: str, model: str, request: dict[str, Any]) -> str:
    """A stable hash of everything that decides a reply: the endpoint, the model and the request body."""
    canonical = json.dumps(
        {"endpoint": endpoint, "model": model, "request": request},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    """Stores decoded reply bodies (JSON) by key; safe to share between threads. Failures are never stored."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, body TEXT NOT NULL, created REAL)"
            )
            self._db.commit()
        except (OSError, sqlite3.Error) as error:
            raise ConfigError(
                f"cannot open the LLM cache at {self.path}: {error}; set `cache_path` to a writable file "
                "(or FACTSCOPE_LLM_CACHE, or cache_path under [llm] in the config file)"
            ) from error
        self._lock = threading.Lock()

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored reply body, or None."""
        with self._lock:
            row = self._db.execute("SELECT body FROM replies WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, body: dict[str, Any]) -> None:
        """Store a successful reply body; a disk or permission fault raises ``StorageError`` naming the cache."""
        with self._lock:
            try:
                self._db.execute(
                    "INSERT OR REPLACE INTO replies (key, body, created) VALUES (?, ?, ?)",
                    (key, json.dumps(body, ensure_ascii=False), time.time()),
                )
                self._db.commit()
            except sqlite3.Error as error:
                self._db.rollback()
                fault = sqlite_fault(error, self.path, "storing an LLM reply in the cache", kept=(
                    "The replies stored before it are kept, and so are the rows of the results file; free the "
                    "space (or set cache_path to a file on another disk) and run the same command again to resume"))
                if fault is None:
                    raise
                raise fault from error

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()
