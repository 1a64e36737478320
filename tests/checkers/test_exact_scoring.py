"""Exact mode with windows of several widths scores the narrowest first and the wider ones only for the claims
they leave undecided: the labels are those of scoring every window."""

from __future__ import annotations

import random
import zlib

import numpy as np
import pytest

from factscope.checkers.base import CheckTask
from factscope.checkers.cascade import CascadeChecker
from factscope.checkers.decision import LabelDecision
from factscope.checkers.segmented import SegmentedChecker
from factscope.core.schema import Label, Mismatch, Span
from fake_scorers import KeywordScorer

REFERENCE = "The tower is in Paris. It was completed in 1889."


class TableScorer:
    """Probabilities looked up by premise (Neutral for any other), every call recorded."""

    name = "table"

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table
        self.calls: list[list[str]] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def score(self, premises, hypotheses):
        self.calls.append(list(premises))
        return np.array([self.table.get(premise, [0.1, 0.8, 0.1]) for premise in premises])


class HashScorer:
    """Pseudo-random but repeatable probabilities for each (premise, claim) pair."""

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


def _checker(scorer, **settings) -> SegmentedChecker:
    return SegmentedChecker(scorer, max_tokens=50, window_sentences=2, min_window_sentences=1, **settings)


def test_a_claim_one_sentence_entails_is_not_scored_against_the_wider_windows():
    scorer = KeywordScorer()
    [verdict] = _checker(scorer, relevance="off").check([CheckTask("it was completed in 1889", (REFERENCE,))])
    assert verdict.label == Label.ENTAILMENT
    assert [[premise for premise, _ in call] for call in scorer.calls] == [
        ["The tower is in Paris.", "It was completed in 1889."]
    ]


def test_a_claim_the_sentences_alone_leave_neutral_meets_the_wider_windows():
    scorer = TableScorer({REFERENCE: [0.9, 0.05, 0.05]})
    [verdict] = _checker(scorer, relevance="off").check([CheckTask("The tower was completed in 1889", (REFERENCE,))])
    assert scorer.calls == [["The tower is in Paris.", "It was completed in 1889."], [REFERENCE]]
    assert verdict.label == Label.ENTAILMENT
    assert verdict.segment_span == Span(start=0, end=len(REFERENCE))


def test_a_value_check_that_a_wider_window_could_change_keeps_the_claim_open():
    reference = "Sales rose to 5 million. Sales rose to 5 million gone in March."
    first = "Sales rose to 5 million."
    scorer = TableScorer({first: [0.9, 0.05, 0.05]})
    checker = _checker(scorer, relevance="off", mismatch=marked_values)
    [verdict] = checker.check([CheckTask("Sales rose to 5 million in March", (reference,))])
    assert len(scorer.calls) == 2, "the pair window's evidence sentence would say Neutral: it must be scored"
    assert verdict.label == Label.ENTAILMENT
    calm = TableScorer({first: [0.9, 0.05, 0.05]})
    quiet = reference.replace(" gone", "")
    _checker(calm, relevance="off", mismatch=marked_values).check([CheckTask("Sales rose to 5 million in March", (quiet,))])
    assert len(calm.calls) == 1


def test_a_window_whose_value_check_differs_and_that_decides_opens_the_claim_to_every_window():
    reference = "Sales rose to 5 million. Sales rose to 5 million gone in March."
    scorer = TableScorer({"Sales rose to 5 million.": [0.7, 0.2, 0.1], reference: [0.9, 0.05, 0.05]})
    [verdict] = _checker(scorer, relevance="off", mismatch=marked_values).check(
        [CheckTask("Sales rose to 5 million in March", (reference,))]
    )
    assert len(scorer.calls) == 2 and scorer.calls[1] == [reference]
    assert verdict.label == Label.NEUTRAL and verdict.rule == "mismatch"


def test_a_settled_claim_is_not_scored_against_windows_under_the_relevance_floor():
    reference = "The harbour is deep. Ships dock there daily. The tower was completed in 1889."
    scorer = KeywordScorer()
    [verdict] = _checker(scorer).check([CheckTask("the tower was completed in 1889", (reference,))])
    assert verdict.label == Label.ENTAILMENT
    assert [[premise for premise, _ in call] for call in scorer.calls] == [["The tower was completed in 1889."]]
    open_claim, every = KeywordScorer(), KeywordScorer()
    _checker(open_claim).check([CheckTask("the tower was painted red", (reference,))])
    _checker(every, exact_scoring="every").check([CheckTask("the tower was painted red", (reference,))])
    assert [premise for call in open_claim.calls for premise, _ in call] == [
        "The tower was completed in 1889.", "Ships dock there daily. The tower was completed in 1889."
    ]
    assert sum(len(call) for call in every.calls) == 5


def test_a_claim_with_no_segment_over_the_floor_meets_its_most_relevant_one_alone():
    reference = "The harbour is deep. Ships dock there daily."
    scorer, every = KeywordScorer(), KeywordScorer()
    [verdict] = _checker(scorer).check([CheckTask("ships sail from northern ports at dawn every winter", (reference,))])
    [expected] = _checker(every, exact_scoring="every").check([CheckTask("ships sail from northern ports at dawn every winter", (reference,))])
    assert [premise for call in scorer.calls for premise, _ in call] == ["Ships dock there daily."]
    assert verdict == expected


def test_an_entailment_under_the_minimum_confidence_or_a_cascades_band_stays_open():
    table = {"It was completed in 1889.": [0.6, 0.3, 0.1]}
    task = CheckTask("it was completed in 1889", (REFERENCE,))
    for checker in (
        _checker(TableScorer(table), relevance="off", min_confidence=0.7),
        _checker(TableScorer(table), relevance="off").settling_above(0.6),
    ):
        checker.check([task])
        assert len(checker.scorer.calls) == 2
    settled = _checker(TableScorer(table), relevance="off").settling_above(0.55)
    settled.check([task])
    assert len(settled.scorer.calls) == 1
    first = _checker(TableScorer(table), relevance="off")
    cascade = CascadeChecker(first, SegmentedChecker(KeywordScorer(), max_tokens=50), (0.05, 0.65))
    [verdict] = cascade.check([task])
    assert verdict.escalated and len(cascade.first.scorer.calls) == 2


SENTENCES = [
    "The bridge opened in 1932 moved", "Its deck is made of steel", "The bridge spans the harbour gone",
    "It carries eight lanes", "The arch rises over the water", "Workers painted the bridge grey",
    "The deck was widened later moved", "Trains cross the bridge daily",
]
CLAIMS = ["The bridge opened in 1932", "The deck is made of steel", "It carries trains", "The arch is grey"]


@pytest.mark.parametrize("threshold", [None, 0.4])
@pytest.mark.parametrize("min_confidence", [0.0, 0.5])
@pytest.mark.parametrize("relevance", ["lexical", "off"])
def test_every_label_is_the_one_that_scoring_every_window_gives(threshold, min_confidence, relevance):
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
        "mismatch": marked_values,
        "decision": LabelDecision(threshold),
    }
    decisive, every = _checker(HashScorer(), **settings), _checker(HashScorer(), exact_scoring="every", **settings)
    found, expected = decisive.check(tasks), every.check(tasks)
    assert [v.label for v in found] == [v.label for v in expected]
    for verdict, wanted in zip(found, expected):
        assert verdict.rule == wanted.rule or (verdict.rule, wanted.rule) == ("model", "relevance")
    assert {v.label for v in expected} == set(Label)
    assert decisive.scorer.pairs < every.scorer.pairs


def test_wider_windows_takes_two_values():
    with pytest.raises(ValueError, match="exact_scoring"):
        _checker(KeywordScorer(), exact_scoring="some")
