"""The fast checking mode: each claim is scored only against the segments most relevant to it, in rounds, and a
claim stops being scored once a segment entails it with high confidence.

Exact mode scores every (segment, claim) pair of a record. Fast mode

1. ranks the segments of the claim's references by relevance to the claim (BM25 over the segments of the record's
   references, the bi-encoder's cosine, or both fused by reciprocal rank) and keeps the ``top_k`` most relevant
   ones above a floor (BM25: the segment shares a word with the claim; cosine: at least ``min_similarity``);
2. scores them in rounds, every round one deduplicated, length-sorted call of the scorer over all claims of the
   batch: round 1 the ``first_round`` most relevant kept segments of every claim, each later round the next
   ``round_size`` of each claim still open; a claim closes once a scored segment's label is Entailment with
   probability at least ``stop_probability``, or when its kept segments are all scored.

The verdict is then merged from the scored segments exactly as exact mode merges all of them. Since any entailing
segment decides Entailment, and else any contradicting one decides Contradiction:

- the label differs from exact mode's only when a segment that was not scored (pruned, or left after an early
  stop) would have decided it: a pruned segment entails the claim while no scored one does, or a pruned segment
  contradicts it while every scored one is Neutral. An early stop never changes the label (the claim is
  already Entailment); it can change which entailing segment is reported as evidence, and its probabilities;
- the same input gives the same verdicts on every run: ties in relevance go to the earlier reference and the
  earlier segment.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from factscope.checkers.base import PairScorer
from factscope.core.schema import LABELS, Label
from factscope.hf.encoders import TextEncoder

Relevance = Literal["bm25", "dense", "hybrid"]
"""How segments are ranked for a claim: BM25, bi-encoder cosine, or reciprocal-rank fusion of the two."""

RRF_CONSTANT = 60
"""Reciprocal rank fusion: a segment's fused score is the sum over rankers of 1 / (RRF_CONSTANT + rank)."""

STEM_CHARS = 6
"""BM25 compares words by this many leading characters ("increase", "increasing" match)."""

MAX_INDEXES = 256
"""BM25 indexes kept at once (one per set of references)."""

BM25_K1 = 1.2
BM25_B = 0.75

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "our",
        "she",
        "that",
        "the",
        "their",
        "them",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "was",
        "we",
        "were",
        "which",
        "who",
        "will",
        "with",
        "you",
    ]
)
"""Function words BM25 leaves out, so that sharing only them does not lift a segment over the floor."""

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class FastSettings:
    """How fast mode prunes and stops (see the module docstring), and whether a claim that pruning could decide
    otherwise is scored exactly (``escalate``, with the ``exact_margin`` of ``checkers.escalation``)."""

    relevance: Relevance = "bm25"
    top_k: int = 8
    first_round: int = 2
    round_size: int = 2
    min_similarity: float = 0.1
    stop_probability: float = 0.9
    escalate: bool = True
    exact_margin: float = 1.0

    def __post_init__(self) -> None:
        if self.top_k < 1 or self.first_round < 1 or self.round_size < 1:
            raise ValueError("top_k, first_round and round_size must be at least 1")
        if not 0.0 <= self.stop_probability <= 1.0:
            raise ValueError("stop_probability must be between 0 and 1")
        if not 0.0 <= self.exact_margin <= 1.0:
            raise ValueError(f"exact_margin must be between 0 and 1, not {self.exact_margin}")


def words(text: str) -> list[str]:
    """The words BM25 indexes: lower-cased, stop words left out, cut to ``STEM_CHARS`` characters."""
    return [word[:STEM_CHARS] for word in _WORD.findall(text.lower()) if word not in STOP_WORDS]


class BM25Index:
    """Okapi BM25 over a small set of segments, with the never-negative IDF log(1 + (N - n + 0.5) / (n + 0.5))."""

    def __init__(self, segments: Sequence[str], k1: float = BM25_K1, b: float = BM25_B) -> None:
        self.k1 = k1
        self.b = b
        self.counts = [Counter(words(segment)) for segment in segments]
        lengths = [sum(counts.values()) for counts in self.counts]
        self.lengths = lengths
        self.mean_length = (sum(lengths) / len(lengths)) if lengths else 0.0
        frequency: Counter[str] = Counter()
        for counts in self.counts:
            frequency.update(counts.keys())
        total = len(self.counts)
        self.idf = {word: math.log(1 + (total - n + 0.5) / (n + 0.5)) for word, n in frequency.items()}

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every segment for ``query`` (0 for a segment that shares no word with it)."""
        terms = [term for term in dict.fromkeys(words(query)) if term in self.idf]
        result = np.zeros(len(self.counts))
        for row, (counts, length) in enumerate(zip(self.counts, self.lengths)):
            norm = (
                self.k1 * (1 - self.b + self.b * length / self.mean_length) if self.mean_length else self.k1
            )
            for term in terms:
                tf = counts.get(term, 0)
                if tf:
                    result[row] += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
        return result


def _order(scores: np.ndarray) -> list[int]:
    """Indices by descending score; ties go to the lower index."""
    return sorted(range(len(scores)), key=lambda i: (-float(scores[i]), i))


class SegmentRanker:
    """Ranks a record's segments for each of its claims and keeps the ``top_k`` most relevant above the floor.

    BM25 indexes are built once per set of segments and bi-encoder encodings once per text (``encoder`` caches
    them), so all claims of a record share them.
    """

    def __init__(self, settings: FastSettings, encoder: TextEncoder | None = None) -> None:
        if settings.relevance != "bm25" and encoder is None:
            raise ValueError(f"relevance {settings.relevance!r} needs a bi-encoder")
        self.settings = settings
        self.encoder = encoder
        self._indexes: dict[tuple[str, ...], BM25Index] = {}

    def keep(
        self,
        claims: Sequence[str],
        segments: Sequence[Sequence[str]],
        eligible: Sequence[Sequence[bool]] | None = None,
    ) -> list[list[int]]:
        """For each claim, the indices of its kept segments (into ``segments[i]``), most relevant first.

        ``eligible[i][j]`` False leaves segment j out for claim i before the ``top_k`` are taken (the segments
        a checker would not count anyway); the segments are still ranked together, so a record's claims share one
        BM25 index.
        """
        similarities = self._similarities(claims, segments) if self.settings.relevance != "bm25" else None
        kept = []
        for row, (claim, texts) in enumerate(zip(claims, segments)):
            bm25 = self._bm25(texts).scores(claim) if self.settings.relevance != "dense" else None
            cosine = similarities[row] if similarities is not None else None
            ranked = self._rank(bm25, cosine, len(texts))
            if eligible is not None:
                ranked = [index for index in ranked if eligible[row][index]]
            kept.append(ranked[: self.settings.top_k])
        return kept

    def _rank(self, bm25: np.ndarray | None, cosine: np.ndarray | None, n: int) -> list[int]:
        """Segments above the floor, most relevant first."""
        if bm25 is not None and cosine is not None:
            fused = np.zeros(n)
            for scores in (bm25, cosine):
                for rank, index in enumerate(_order(scores), start=1):
                    fused[index] += 1.0 / (RRF_CONSTANT + rank)
            passing = (bm25 > 0) | (cosine >= self.settings.min_similarity)
            return [i for i in _order(fused) if passing[i]]
        if bm25 is not None:
            return [i for i in _order(bm25) if bm25[i] > 0]
        assert cosine is not None
        return [i for i in _order(cosine) if cosine[i] >= self.settings.min_similarity]

    def _bm25(self, texts: Sequence[str]) -> BM25Index:
        key = tuple(texts)
        index = self._indexes.get(key)
        if index is None:
            if len(self._indexes) >= MAX_INDEXES:
                self._indexes.clear()
            index = self._indexes[key] = BM25Index(texts)
        return index

    def _similarities(self, claims: Sequence[str], segments: Sequence[Sequence[str]]) -> list[np.ndarray]:
        assert self.encoder is not None
        unique = list(dict.fromkeys([*claims, *(text for texts in segments for text in texts)]))
        vectors = dict(zip(unique, self.encoder.encode(unique)))
        return [
            np.array([float(vectors[claim] @ vectors[text]) for text in texts])
            for claim, texts in zip(claims, segments)
        ]


@dataclass(frozen=True)
class ScoredSegments:
    """What fast mode scored for one claim: segment indices (ascending) with their probabilities, and how many
    segments it kept after pruning."""

    indices: tuple[int, ...]
    probs: np.ndarray
    kept: int


def entails(probs: np.ndarray, stop_probability: float) -> bool:
    """Whether one segment's probabilities close a claim: its label is Entailment with P >= stop_probability."""
    return LABELS[int(np.argmax(probs))] is Label.ENTAILMENT and float(probs[0]) >= stop_probability


class RoundScorer:
    """Scores each claim's kept segments in relevance order, in rounds of one batched scorer call each, and
    closes a claim once a segment entails it with high confidence. Identical (segment, claim) pairs are scored
    once per call of :meth:`score`; ``pairs_scored`` counts the pairs sent to the scorer."""

    def __init__(self, scorer: PairScorer, settings: FastSettings) -> None:
        self.scorer = scorer
        self.settings = settings
        self.pairs_scored = 0

    def score(
        self, claims: Sequence[str], segments: Sequence[Sequence[str]], kept: Sequence[Sequence[int]]
    ) -> list[ScoredSegments]:
        """For each claim, the probabilities of the segments scored for it (``kept[i]`` is in relevance order)."""
        known: dict[tuple[str, str], np.ndarray] = {}
        scored: list[dict[int, np.ndarray]] = [{} for _ in claims]
        taken = [0] * len(claims)
        open_claims = [i for i in range(len(claims)) if kept[i]]
        step = self.settings.first_round
        while open_claims:
            wanted: list[tuple[int, int]] = []
            for i in open_claims:
                wanted.extend((i, index) for index in kept[i][taken[i] : taken[i] + step])
                taken[i] += step
            pairs = list(dict.fromkeys((segments[i][index], claims[i]) for i, index in wanted))
            new = [pair for pair in pairs if pair not in known]
            if new:
                probs = self.scorer.score([p for p, _ in new], [h for _, h in new])
                known.update(zip(new, probs))
                self.pairs_scored += len(new)
            for i, index in wanted:
                scored[i][index] = known[(segments[i][index], claims[i])]
            open_claims = [
                i
                for i in open_claims
                if taken[i] < len(kept[i])
                and not any(entails(p, self.settings.stop_probability) for p in scored[i].values())
            ]
            step = self.settings.round_size
        results = []
        for i, found in enumerate(scored):
            indices = tuple(sorted(found))
            probs = np.array([found[index] for index in indices]) if indices else np.zeros((0, len(LABELS)))
            results.append(ScoredSegments(indices=indices, probs=probs, kept=len(kept[i])))
        return results
