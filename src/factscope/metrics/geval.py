"""G-Eval text quality for KaLMA (KaLMA section 4.1, Tables 11-14): 1-5 scores from an LLM judge.

Pure functions: reading a judge's reply, the probability-weighted score, and averages that leave out
(and count) the replies that could not be read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

from factscope.metrics.running import RunningMean

ASPECTS: tuple[str, ...] = ("coherence", "consistency", "fluency", "relevance")
SCORES: tuple[int, ...] = (1, 2, 3, 4, 5)

_NUMBER = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)")


def parse_score(reply: str | None) -> int | None:
    """The judge's 1-5 score: the first number in the reply (``"4"``, ``"Score: 4"``, ``"4/5"``,
    ``"4 - clear and ordered"``). None when there is no number or the first number is not an integer
    from 1 to 5 (``"4.5"``, ``"7"``): such replies are failures, kept raw by the caller."""
    if not reply:
        return None
    match = _NUMBER.search(reply)
    if match is None or "." in match.group(1):
        return None
    value = int(match.group(1))
    return value if value in SCORES else None


def weighted_score(logprobs: Mapping[int, float | None]) -> float | None:
    """G-Eval's probability-weighted score: sum over s of s * p(s), with p the judge's probabilities of
    the score tokens 1-5 renormalised to sum to 1. None when no score has a probability.
    Example: log p = {4: log 0.6, 5: log 0.2} -> (4 * 0.6 + 5 * 0.2) / 0.8 = 4.25."""
    probabilities = {s: math.exp(lp) for s, lp in logprobs.items() if s in SCORES and lp is not None}
    total = sum(probabilities.values())
    if total <= 0:
        return None
    return sum(s * p for s, p in probabilities.items()) / total


@dataclass(frozen=True)
class AspectScore:
    """Mean 1-5 score of one aspect over the answers whose reply could be read."""

    aspect: str
    mean: float | None
    weighted_mean: float | None
    scored: int
    failed: int

    def as_dict(self) -> dict[str, object]:
        """Plain dict for JSON output."""
        return asdict(self)


@dataclass
class AspectTotals:
    """The running totals behind one ``AspectScore``: exact means of the read scores and of the weighted scores,
    and the judged cells, fed one cell ``{"score": int | None, "weighted": float | None}`` at a time."""

    aspect: str
    scores: RunningMean = field(default_factory=RunningMean)
    weighted: RunningMean = field(default_factory=RunningMean)
    cells: int = 0

    def add(self, cell: Mapping[str, object]) -> None:
        """Count one judged answer; a None score counts as failed and is left out of the mean."""
        self.cells += 1
        score = cell.get("score")
        if isinstance(score, int):
            self.scores.add(score)
        value = cell.get("weighted")
        if isinstance(value, (int, float)):
            self.weighted.add(value)

    def merge(self, other: AspectTotals) -> None:
        """Count every cell ``other`` counted."""
        self.scores.merge(other.scores)
        self.weighted.merge(other.weighted)
        self.cells += other.cells

    def score(self) -> AspectScore:
        """The aspect's means over the cells counted."""
        return AspectScore(self.aspect, self.scores.mean, self.weighted.mean, self.scores.count,
                           self.cells - self.scores.count)


def aspect_scores(rows: Sequence[Mapping[str, Mapping[str, object]]],
                  aspects: Sequence[str] = ASPECTS) -> list[AspectScore]:
    """Average each aspect over rows ``{aspect: {"score": int | None, "weighted": float | None}}``;
    a None score counts as failed and is left out of the mean (never read as 0)."""
    out = []
    for aspect in aspects:
        totals = AspectTotals(aspect)
        for row in rows:
            if aspect in row:
                totals.add(row[aspect])
        out.append(totals.score())
    return out
