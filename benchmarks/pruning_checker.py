"""A checker on the pruning path (a ``SegmentedChecker`` with ``fast`` settings), for the benchmarks that measure it.

The checkers' ``mode`` 'fast' is deprecated: ``make_checker`` warns and builds exact mode. These benchmarks build the
checker as ``make_checker`` does in exact mode and switch each segmented checker in it (both members of a cascade)
to the pruning path with the default :class:`~factscope.checkers.pruning.FastSettings`.
"""

from __future__ import annotations

from typing import Any


def pruning_checker(spec: str, **settings: Any) -> Any:
    """``spec`` built by ``make_checker`` with ``settings``, its segmented checkers on the pruning path."""
    from factscope.checkers.pruning import FastSettings, SegmentRanker
    from factscope.checkers.registry import make_checker
    from factscope.checkers.segmented import SegmentedChecker

    checker: Any = make_checker(spec, mode="exact", **settings)
    members = [checker.first, checker.second] if hasattr(checker, "second") else [checker]
    for member in members:
        if isinstance(member, SegmentedChecker):
            member.mode = "fast"
            member.fast = FastSettings()
            member._ranker = SegmentRanker(member.fast)
    return checker
