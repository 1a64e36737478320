"""Value mismatch checks: numbers, dates, quantities and named entities of a claim against its evidence.

A small cross-encoder judges "Python was created by James Gosling" entailed by a passage on Java, and a claim
whose number was changed entailed by the passage it came from. :func:`find_mismatch` aligns the values of a
claim with the deciding evidence and reports the first one the evidence does not bear, so that a checker can
refuse Entailment for it.

What counts as borne is said per kind by :mod:`factscope.checkers.mismatch_numbers` (numbers, quantities,
dates) and :mod:`factscope.checkers.mismatch_entities` (named entities). When a value is not borne, the
evidence sentence is searched for a value of the same slot (:mod:`factscope.checkers.mismatch_slots`): if
there is one, it is reported as ``evidence_value`` (the claim is contradicted); with none the value is absent
(the claim is unsupported).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import get_args

from factscope.checkers.mismatch_entities import Entity, entity_mismatch
from factscope.checkers.mismatch_numbers import value_mismatch
from factscope.core.schema import Mismatch, MismatchKind, Span

ALL_KINDS: frozenset[MismatchKind] = frozenset(get_args(MismatchKind))
"""Every kind of value :func:`find_mismatch` checks."""


def find_mismatch(
    claim: str, evidence: str, *, context: str | None = None, kinds: Collection[MismatchKind] = ALL_KINDS
) -> Mismatch | None:
    """The first value of ``claim`` (in claim order) that ``evidence`` does not bear, or None.

    ``evidence`` is the deciding sentence or segment; ``context`` (optional) is the text around it: the deciding
    segment, or better the whole reference, where a claim gathers facts from several of its segments. A value
    stated in ``context`` counts as borne, but only ``evidence`` is searched for a conflicting value:
    ``evidence_span`` is always relative to ``evidence`` (``claim_span`` to ``claim``). Only the ``kinds`` given
    are checked. The module docstring says what bears which value.
    """
    hit = value_mismatch(claim, evidence, context, kinds) if kinds != {"entity"} else None
    if hit is not None:
        value, other = hit
        if "entity" in kinds:
            entity_hit = entity_mismatch(claim, evidence, context, value.start)
            if entity_hit is not None:
                return _entity_result(*entity_hit)
        return Mismatch(
            kind=value.kind,
            claim_value=value.text,
            claim_span=Span(start=value.start, end=value.end),
            evidence_value=other.text if other else None,
            evidence_span=Span(start=other.start, end=other.end) if other else None,
        )
    if "entity" in kinds:
        entity_hit = entity_mismatch(claim, evidence, context, len(claim))
        if entity_hit is not None:
            return _entity_result(*entity_hit)
    return None


def _entity_result(entity: Entity, other: Entity | None) -> Mismatch:
    return Mismatch(
        kind="entity",
        claim_value=entity.text,
        claim_span=Span(start=entity.start, end=entity.end),
        evidence_value=other.text if other else None,
        evidence_span=Span(start=other.start, end=other.end) if other else None,
    )
