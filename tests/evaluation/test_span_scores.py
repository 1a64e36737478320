"""Character-level and example-level span scores (RAGTruth's), checked against hand-computed examples."""

import pytest

from factscope.metrics.span_scores import Counts, character_counts, example_counts, span_scores


def test_character_counts_of_one_example_count_overlapping_spans_once():
    assert character_counts([(0, 10)], [(5, 15)]) == Counts(tp=5, fp=5, fn=5)
    assert character_counts([(2, 6), (4, 8)], []) == Counts(tp=0, fp=6, fn=0)
    assert character_counts([], [(0, 4)]) == Counts(tp=0, fp=0, fn=4)


def test_hand_computed_scores_over_four_examples():
    scores = span_scores([
        ([(0, 10)], [(5, 15)]),  # tp 5, fp 5, fn 5; both hallucinated
        ([], [(0, 4)]),  # fn 4; a missed hallucinated response
        ([(2, 6), (4, 8)], []),  # fp 6; a false alarm
        ([], []),  # nothing on either side
    ])
    assert scores.examples == 4
    assert scores.character == Counts(tp=5, fp=11, fn=9)
    assert scores.character.precision == pytest.approx(5 / 16)
    assert scores.character.recall == pytest.approx(5 / 14)
    assert scores.character.f1 == pytest.approx(10 / 30)
    assert scores.example == Counts(tp=1, fp=1, fn=1)
    assert (scores.example.precision, scores.example.recall, scores.example.f1) == (0.5, 0.5, 0.5)


def test_an_empty_denominator_is_undefined_not_zero():
    nothing_predicted = span_scores([([], [(0, 3)])])
    assert nothing_predicted.character.precision is None and nothing_predicted.character.recall == 0.0
    assert nothing_predicted.character.f1 is None
    assert example_counts([], []) == Counts()
    assert span_scores([]).figures()["example_f1"] is None
