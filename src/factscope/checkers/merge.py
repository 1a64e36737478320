"""Merging per-passage labels into one label (RefChecker, appendix A.3, Noisy Context)."""

from __future__ import annotations

from collections.abc import Iterable

from factscope.core.schema import Label


def merge_passage_labels(labels: Iterable[Label]) -> Label:
    """One label for a claim checked against each passage of a reference separately.

    RefChecker (A.3): entailed by at least one passage -> Entailment; otherwise contradicted by at least one
    passage -> Contradiction; otherwise Neutral. No passages at all means nothing supports or contradicts
    the claim, so the result is Neutral.
    """
    seen = set(labels)
    if Label.ENTAILMENT in seen:
        return Label.ENTAILMENT
    if Label.CONTRADICTION in seen:
        return Label.CONTRADICTION
    return Label.NEUTRAL
