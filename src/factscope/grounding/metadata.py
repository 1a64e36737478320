"""A grounding metadata file, ``{"<qid>": {"has_answer", "has_multi", "pop", ...}}``, joined to examples by question
id one example at a time.

The file is read entry by entry (``factscope.core.files.json_entries``) into an on-disk store keyed by id
(``factscope.core.files.keyed_store``), so memory holds neither the file nor its entries, whatever its size.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from factscope.core.errors import InputError
from factscope.core.files.error_location import parse_located
from factscope.core.files.json_entries import document_kind, json_entries
from factscope.core.files.keyed_store import KeyedStore
from factscope.core.files.record_ids import repeated_id

SHOWN_IDS = 5
"""Ids a warning names before it says how many more there are."""


class MetadataEntryInput(BaseModel):
    """One question's metadata (``has_answer``, ``has_multi``, ``pop`` or anything else), kept whole."""

    model_config = ConfigDict(strict=True, extra="allow")


class Metadata:
    """A metadata file ready to be joined by question id; ``errors`` holds the entries that cannot be read and the
    keys it repeats (the first entry of a key is kept). ``close`` removes the store."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if document_kind(self.path) != "object":
            raise InputError("expected a JSON object keyed by question id", path=self.path)
        self.errors: list[InputError] = []
        self._store = KeyedStore("metadata")
        try:
            for entry in json_entries(self.path):
                key = str(entry.key)
                if isinstance(entry.value, InputError):
                    self.errors.append(entry.value)
                elif not self._store.add(key, entry.line, entry.value):
                    first = self._store.get(key)
                    earlier = first.line if first is not None else None
                    self.errors.append(
                        repeated_id(self.path, key, entry.line, earlier, what=f"question id {key!r}", field=None)
                    )
        except BaseException:
            self._store.close()
            raise

    def apply(self, question_id: str, metadata: dict[str, Any]) -> InputError | None:
        """Add the metadata fields of question ``question_id`` to ``metadata`` (an example's); the located error of
        an entry that cannot be read."""
        stored = self._store.get(question_id)
        if stored is None:
            return None
        try:
            given = parse_located(
                MetadataEntryInput, stored.value, path=self.path, line=stored.line, where=f"question {question_id!r}"
            )
        except InputError as error:
            return error
        metadata.update(given.model_extra or {})
        return None

    def warnings(self, data_ids: Collection[str]) -> list[str]:
        """What does not match between the file and the questions ``data_ids``."""
        without = sorted(question for question in data_ids if question not in self._store)
        self._store.mark_matched(data_ids)
        unknown, unknown_shown = self._store.unmatched(SHOWN_IDS)
        return join_warnings(self.path, "metadata", without, unknown, unknown_shown)

    def close(self) -> None:
        """Remove the store."""
        self._store.close()


def join_warnings(
    path: str | Path, joined: str, missing: list[str], unknown: int, unknown_shown: list[str]
) -> list[str]:
    """The warnings of a file of ``joined`` things (responses, metadata) joined to questions by id: the question ids
    it has nothing for (``missing``), and how many of its ids match no question, the first of them shown."""
    found = []
    if missing:
        shown = named(missing[:SHOWN_IDS], len(missing))
        found.append(f"{path}: no {joined} for {len(missing)} question id(s): {shown}")
    if unknown:
        found.append(f"{path}: {unknown} {joined} id(s) match no question: {named(unknown_shown, unknown)}")
    return found


def named(shown: list[str], total: int) -> str:
    """``shown`` ids joined, with how many of ``total`` are not shown."""
    more = f" and {total - len(shown)} more" if total > len(shown) else ""
    return ", ".join(shown) + more
