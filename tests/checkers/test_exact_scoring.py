"""Exact mode scores only the segments that can decide a label, those over the relevance floor: its verdicts are
those of scoring every segment, but for the relevance rule's note on a segment under the floor."""

from __future__ import annotations

import random
import zlib

import numpy as np
import pytest

from factscope.checkers.base import CheckTask
from factscope.checkers.segmented import SegmentedChecker
from factscope.core.errors import ConfigError
from factscope.core.schema import Label, Mismatch, Span
from fake_scorers import KeywordScorer, plain_options

REFERENCE = "The harbour is deep. Ships dock there daily. The tower was completed in 1889."


class HashScorer:
    """Pseudo-random but repeatable probabilities for each (premise, claim) pair, the pairs counted."""

    name = "hash"

    def __init__(self) -> None:
        self.pairs = 0

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def score(self, premises, hypotheses):
        self.pairs += len(premises)
        rows = []
        for premise, hypothesis in zip(premises, hypotheses):
            draw = random.Random(zlib.crc32(f"{premise}|{hypothesis}".encode()))
            values = [draw.gammavariate(0.6, 1.0) for _ in range(3)]
            rows.append([value / sum(values) for value in values])
        return np.array(rows)


def marked_values(claim: str, evidence: str, *, context: str | None = None) -> Mismatch | None:
    """A value check that fires on evidence with "moved" (another value: Contradiction) or "gone" (Neutral)."""
    if "moved" in evidence:
        return Mismatch(kind="number", claim_value="1", claim_span=Span(start=0, end=1), evidence_value="2")
    if "gone" in evidence:
        return Mismatch(kind="number", claim_value="1", claim_span=Span(start=0, end=1))
    return None


def _checker(scorer, value_check=None, **settings) -> SegmentedChecker:
    options = plain_options(max_tokens=50, window_sentences=2, min_window_sentences=1, **settings)
    return SegmentedChecker(scorer, options, value_check=value_check)


def test_segments_under_the_relevance_floor_are_not_scored():
    scorer, every = KeywordScorer(), KeywordScorer()
    task = CheckTask("the tower was painted red", (REFERENCE,))
    [verdict] = _checker(scorer).check([task])
    [expected] = _checker(every, exact_scoring="every").check([task])
    assert [premise for call in scorer.calls for premise, _ in call] == [
        "The tower was completed in 1889.", "Ships dock there daily. The tower was completed in 1889."
    ]
    assert sum(len(call) for call in every.calls) == 5
    assert verdict == expected


def test_a_claim_with_no_segment_over_the_floor_meets_its_most_relevant_one_alone():
    reference = "The harbour is deep. Ships dock there daily."
    scorer, every = KeywordScorer(), KeywordScorer()
    task = CheckTask("ships sail from northern ports at dawn every winter", (reference,))
    [verdict] = _checker(scorer).check([task])
    [expected] = _checker(every, exact_scoring="every").check([task])
    assert [premise for call in scorer.calls for premise, _ in call] == ["Ships dock there daily."]
    assert verdict == expected and verdict.rule == "relevance"


SENTENCES = [
    "The bridge opened in 1932 moved", "Its deck is made of steel", "The bridge spans the harbour gone",
    "It carries eight lanes", "The arch rises over the water", "Workers painted the bridge grey",
    "The deck was widened later moved", "Trains cross the bridge daily", "Cooks bake bread at night",
]
CLAIMS = ["The bridge opened in 1932", "The deck is made of steel", "It carries trains", "The arch is grey"]


@pytest.mark.parametrize("threshold", [None, 0.4])
@pytest.mark.parametrize("min_confidence", [0.0, 0.5])
@pytest.mark.parametrize("relevance", ["lexical", "off"])
def test_every_verdict_is_the_one_that_scoring_every_segment_gives(threshold, min_confidence, relevance):
    draw = random.Random(7)
    tasks = []
    for _ in range(150):
        references = tuple(
            ". ".join(draw.sample(SENTENCES, draw.randint(1, 5))) + "." for _ in range(draw.randint(1, 3))
        )
        tasks.append(CheckTask(draw.choice(CLAIMS), references))
    settings = {
        "relevance": relevance,
        "min_confidence": min_confidence,
        "value_check": marked_values,
        "threshold": threshold,
    }
    decisive, every = _checker(HashScorer(), **settings), _checker(HashScorer(), exact_scoring="every", **settings)
    found, expected = decisive.check(tasks), every.check(tasks)
    assert {v.label for v in expected} == set(Label)
    for verdict, wanted in zip(found, expected):
        if wanted.rule == "relevance" and verdict.rule == "model":
            wanted = wanted.model_copy(update={"rule": "model", "reason": verdict.reason})
        assert verdict == wanted
    if relevance == "lexical":
        assert decisive.scorer.pairs < every.scorer.pairs
    else:
        assert decisive.scorer.pairs == every.scorer.pairs


def test_exact_scoring_takes_two_values():
    with pytest.raises(ConfigError, match="`exact_scoring` must be one of 'decisive', 'every', not 'some'"):
        _checker(KeywordScorer(), exact_scoring="some")
