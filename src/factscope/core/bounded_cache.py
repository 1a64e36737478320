"""A cache of at most a fixed number of entries that forgets the least recently used first.

Model wrappers keep what they computed per text (an embedding, a continuation's log-probabilities) so repeated
texts cost nothing; over a stream of millions of records an unbounded cache would grow without end, so theirs
keep the most recent entries only.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterable
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class BoundedCache(Generic[Key, Value]):
    """Up to ``size`` entries; reading or writing an entry makes it the most recent, and adding one past ``size``
    drops the least recent."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("a bounded cache holds at least one entry")
        self.size = size
        self._entries: OrderedDict[Key, Value] = OrderedDict()

    def get(self, key: Key) -> Value | None:
        """The entry of ``key`` (now the most recent), or None."""
        if key not in self._entries:
            return None
        self._entries.move_to_end(key)
        return self._entries[key]

    def held(self, keys: Iterable[Key]) -> dict[Key, Value]:
        """The entries it holds among ``keys`` (each now among the most recent)."""
        found: dict[Key, Value] = {}
        for key in keys:
            if key in self._entries and key not in found:
                self._entries.move_to_end(key)
                found[key] = self._entries[key]
        return found

    def put(self, key: Key, value: Value) -> None:
        """Keep ``value`` under ``key`` as the most recent entry."""
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)
