"""How a checker does on the sanity suite: the share of its pairs labelled Entailment, per kind, per reference
length and per both, and the pairs it missed (``evaluation.sanity`` makes the pairs)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import BaseModel

from factscope.checkers.base import Checker
from factscope.core.runs.loop import ProgressCallback
from factscope.core.schema import Label, Verdict
from factscope.evaluation.checker_eval import check_pairs
from factscope.evaluation.pairs import LabelledPair, PairFields
from factscope.evaluation.sanity import SanityPair


class SanityShare(BaseModel):
    """The pairs of one kind and / or reference length (None: all) and the share labelled Entailment; a failed
    check counts as a miss."""

    kind: str | None
    reference_sentences: int | None
    n: int
    entailed: int
    failed: int
    share: float | None


class SanityReport(BaseModel):
    """A checker's shares on the suite; ``lowest_length_share`` is the lowest over reference lengths, the figure
    the suite's bar (Entailment on 99% of the pairs at every reference length) applies to."""

    checker: str
    pairs: int
    share: float | None
    lowest_length_share: float | None
    by_kind: list[SanityShare]
    by_length: list[SanityShare]
    by_kind_and_length: list[SanityShare]
    check_seconds: float
    missed: list[str]
    """The ids of the pairs not labelled Entailment."""


def _share(
    kind: str | None, length: int | None, outcomes: Sequence[tuple[SanityPair, Verdict]]
) -> SanityShare:
    entailed = sum(verdict.label is Label.ENTAILMENT and not verdict.failed for _, verdict in outcomes)
    return SanityShare(
        kind=kind,
        reference_sentences=length,
        n=len(outcomes),
        entailed=entailed,
        failed=sum(verdict.failed for _, verdict in outcomes),
        share=entailed / len(outcomes) if outcomes else None,
    )


def _grouped(
    outcomes: Sequence[tuple[SanityPair, Verdict]], key: Callable[[SanityPair], tuple[str | None, int | None]]
) -> list[SanityShare]:
    groups: dict[tuple[str | None, int | None], list[tuple[SanityPair, Verdict]]] = {}
    for outcome in outcomes:
        groups.setdefault(key(outcome[0]), []).append(outcome)
    return [_share(kind, length, members) for (kind, length), members in groups.items()]


def sanity_report(
    checker_name: str, pairs: Sequence[SanityPair], verdicts: Sequence[Verdict], seconds: float
) -> SanityReport:
    """The shares of ``verdicts`` (one per pair, in order) on the suite's ``pairs``."""
    outcomes = list(zip(pairs, verdicts, strict=True))
    ordered = sorted(outcomes, key=lambda outcome: (outcome[0].reference_sentences, outcome[0].kind))
    by_length = _grouped(ordered, lambda pair: (None, pair.reference_sentences))
    shares = [row.share for row in by_length if row.share is not None]
    return SanityReport(
        checker=checker_name,
        pairs=len(outcomes),
        share=_share(None, None, outcomes).share,
        lowest_length_share=min(shares) if shares else None,
        by_kind=_grouped(outcomes, lambda pair: (pair.kind, None)),
        by_length=by_length,
        by_kind_and_length=_grouped(ordered, lambda pair: (pair.kind, pair.reference_sentences)),
        check_seconds=seconds,
        missed=[pair.id for pair, verdict in outcomes if verdict.label is not Label.ENTAILMENT or verdict.failed],
    )


def score_sanity(
    checker: Checker,
    pairs: Sequence[SanityPair],
    *,
    batch_size: int = 32,
    progress: ProgressCallback | None = None,
) -> SanityReport:
    """Check every pair of the suite with ``checker`` (the claim against its reference alone) and report the
    shares labelled Entailment."""
    labelled = [
        LabelledPair(**pair.model_dump(include=set(PairFields.model_fields)), line=line)
        for line, pair in enumerate(pairs, start=1)
    ]
    verdicts, seconds = check_pairs(checker, labelled, batch_size=batch_size, progress=progress)
    return sanity_report(checker.name, pairs, verdicts, seconds)
