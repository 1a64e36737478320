"""Running sums and means that merge, and whose result does not depend on the order values arrived in.

A run's summary is built row by row as results are written, and an engine that splits the input into shards
builds one per shard and merges them. Plain float addition is not associative, so a sum over shards could differ
from the sum over the whole file in its last digits; ``ExactSum`` keeps the sum exactly (as non-overlapping
partial sums, Shewchuk's method, the one ``math.fsum`` uses) and rounds once when read, so every order and
every split gives the same float.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass
class ExactSum:
    """The exact sum of floats added one at a time, read rounded once (as ``math.fsum`` of all of them)."""

    partials: list[float] = field(default_factory=list)

    def add(self, value: float) -> None:
        """Add one finite value."""
        x = float(value)
        if not math.isfinite(x):
            raise ValueError(f"cannot sum {x}: only finite values")
        kept = 0
        for y in self.partials:
            if abs(x) < abs(y):
                x, y = y, x
            high = x + y
            low = y - (high - x)
            if low:
                self.partials[kept] = low
                kept += 1
            x = high
        del self.partials[kept:]
        self.partials.append(x)

    def merge(self, other: ExactSum) -> None:
        """Add every value ``other`` holds."""
        for value in list(other.partials):
            self.add(value)

    @property
    def value(self) -> float:
        """The sum, correctly rounded."""
        return math.fsum(self.partials)


@dataclass
class RunningMean:
    """A mean over values added one at a time: an exact sum and a count, merged exactly."""

    total: ExactSum = field(default_factory=ExactSum)
    count: int = 0

    def add(self, value: float) -> None:
        """Add one finite value."""
        self.total.add(value)
        self.count += 1

    def extend(self, values: Iterable[float]) -> None:
        """Add each of ``values``."""
        for value in values:
            self.add(value)

    def merge(self, other: RunningMean) -> None:
        """Add every value ``other`` holds."""
        self.total.merge(other.total)
        self.count += other.count

    @property
    def mean(self) -> float | None:
        """The mean, or None when no value was added."""
        return self.total.value / self.count if self.count else None
