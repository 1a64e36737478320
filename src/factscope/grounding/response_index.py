"""A responses file indexed by question id on disk, so that a dataset is joined to its responses one record at a
time, without holding every response in memory.

The responses (see ``factscope.grounding.responses``) are read once into an on-disk store keyed by id
(``factscope.core.files.keyed_store``); a lookup is one indexed read. The store is removed when the index is closed.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from factscope.core.errors import InputError
from factscope.core.files.keyed_store import KeyedStore
from factscope.grounding.responses import ResponseRow, response_entries


class ResponseIndex:
    """The responses of ``path`` by id (``field_name``: where a row holds its text); ``errors`` holds the entries
    that could not be read (a repeated id among them, so each id is stored once)."""

    def __init__(self, path: str | Path, field_name: str = "response") -> None:
        self.path = Path(path)
        self.errors: list[InputError] = []
        self._store = KeyedStore("responses")
        try:
            for entry in response_entries(self.path, field_name):
                if isinstance(entry, InputError):
                    self.errors.append(entry)
                else:
                    self._store.add(entry.id, None, {"text": entry.text, "contexts": entry.contexts})
        except BaseException:
            self._store.close()
            raise

    def get(self, question_id: str) -> ResponseRow | None:
        """The response to ``question_id``, or None."""
        stored = self._store.get(question_id)
        if stored is None:
            return None
        return ResponseRow(id=question_id, text=stored.value["text"], contexts=stored.value["contexts"] or None)

    def mark_matched(self, question_ids: Iterable[str]) -> None:
        """Record that these ids have a question (``unmatched`` then names the others)."""
        self._store.mark_matched(question_ids)

    def unmatched(self, shown: int) -> tuple[int, list[str]]:
        """How many responses match no question marked, and the first ``shown`` of their ids (sorted)."""
        return self._store.unmatched(shown)

    def close(self) -> None:
        """Remove the store."""
        self._store.close()
