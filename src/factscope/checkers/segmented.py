"""A Checker over any PairScorer: long references are cut into token segments, and verdicts merged."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from factscope.checkers.base import CheckTask, PairScorer
from factscope.checkers.evidence import best_sentence
from factscope.checkers.merge import merge_passage_labels
from factscope.core.schema import LABELS, Label, Span, Verdict
from factscope.core.text import segment_spans


class SegmentedChecker:
    """Checks claims against references of any length with a (premise, hypothesis) model.

    Each reference is split into segments of at most ``max_tokens`` tokens (RefChecker: 200); with
    ``max_tokens=0`` each reference is one segment, as RefChecker checks NQ's references (the model's tokenizer
    then cuts what is over its own maximum input length). Every
    (segment, claim) pair of the whole batch is scored in one deduplicated, length-sorted call. A segment's
    label is the argmax of its probabilities; the segments of a reference, and then the references of a
    record, are merged by RefChecker A.3 (any Entailment wins, else any Contradiction, else Neutral). The
    verdict keeps the probabilities of the segment that decided it and, as evidence, the sentence of that
    segment with the highest word overlap with the claim.
    """

    def __init__(self, scorer: PairScorer, *, max_tokens: int = 200, name: str | None = None) -> None:
        if max_tokens < 0:
            raise ValueError("max_tokens must be 0 (no segmentation) or a positive number of tokens")
        self.scorer = scorer
        self.max_tokens = max_tokens
        self.name = name or scorer.name
        self._segments: dict[str, list[tuple[str, Span]]] = {}

    def segments(self, reference: str) -> list[tuple[str, Span]]:
        """The segments of one reference with their character spans in it (cached)."""
        cached = self._segments.get(reference)
        if cached is None:
            cached = [(reference[span.start : span.end], span) for span in self._spans(reference)]
            self._segments[reference] = cached
        return cached

    def _spans(self, reference: str) -> list[Span]:
        if self.max_tokens:
            return segment_spans(reference, self.scorer.count_tokens, self.max_tokens)
        if not reference.strip():
            return []
        return [Span(start=len(reference) - len(reference.lstrip()), end=len(reference.rstrip()))]

    def check(self, tasks: Sequence[CheckTask]) -> list[Verdict]:
        """One verdict per task, all pairs scored together."""
        premises: list[str] = []
        hypotheses: list[str] = []
        for task in tasks:
            for reference in task.references:
                for segment, _ in self.segments(reference):
                    premises.append(segment)
                    hypotheses.append(task.claim)
        probs = self.scorer.score(premises, hypotheses) if premises else np.zeros((0, len(LABELS)))
        row = 0
        verdicts = []
        for task in tasks:
            candidates: list[tuple[Label, np.ndarray, int, Span]] = []
            for index, reference in enumerate(task.references):
                for _, span in self.segments(reference):
                    p = probs[row]
                    row += 1
                    candidates.append((LABELS[int(np.argmax(p))], p, index, span))
            verdicts.append(self._verdict(task, candidates))
        return verdicts

    def _verdict(self, task: CheckTask, candidates: list[tuple[Label, np.ndarray, int, Span]]) -> Verdict:
        label = merge_passage_labels(candidate[0] for candidate in candidates)
        if not candidates:
            return Verdict(label=label)
        column = LABELS.index(label)
        deciding = [c for c in candidates if c[0] == label] or candidates
        _, p, index, segment_span = max(deciding, key=lambda c: c[1][column])
        reference = task.references[index]
        sentence = best_sentence(task.claim, reference, within=segment_span)
        return Verdict(
            label=label,
            probs=(float(p[0]), float(p[1]), float(p[2])),
            evidence=reference[sentence.start : sentence.end] if sentence else None,
            evidence_reference=index,
            evidence_span=sentence,
        )

