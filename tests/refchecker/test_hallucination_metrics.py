"""RefChecker's aggregation rules, rates and copy rate against hand-computed examples."""

import pytest

from factscope.core.schema import Label
from factscope.metrics.hallucination import (
    copy_rate,
    dataset_rates,
    majority_label,
    strict_label,
    summarize_response,
)

E, N, C = Label.ENTAILMENT, Label.NEUTRAL, Label.CONTRADICTION


def test_response_summary_counts_ratios_and_aggregations():
    summary = summarize_response([E, E, N, C, None])
    assert summary.claims == 5 and summary.failed == 1
    assert summary.counts == {E: 2, N: 1, C: 1}
    # 4 checked claims: E 2/4, N 1/4, C 1/4
    assert summary.ratios == {E: 0.5, N: 0.25, C: 0.25}
    assert summary.strict == C
    assert summary.majority == E
    # scalar (1 + 1 + 0 - 1) / 4
    assert summary.soft_scalar == pytest.approx(0.25)
    assert summary.hallucination_rate == pytest.approx(0.5)
    assert not summary.abstain


def test_strict_is_max_pooling_and_majority_breaks_ties_towards_severity():
    assert strict_label([E, N, E]) == N
    assert strict_label([E, E]) == E
    assert majority_label([E, N]) == N
    assert majority_label([E, C, N, C, E]) == C


def test_no_claims_is_abstention_and_all_failed_is_not():
    assert summarize_response([]).abstain
    failed = summarize_response([None, None])
    assert not failed.abstain and failed.ratios is None and failed.strict is None


def test_dataset_rates_follow_equation_one():
    # responses: [E, N] -> rE .5 rN .5; [C] -> rC 1; [] abstains; [E, E, E, C] -> rE .75 rC .25
    summaries = [summarize_response(x) for x in ([E, N], [C], [], [E, E, E, C])]
    rates = dataset_rates(summaries)
    assert rates.responses == 4 and rates.answered == 3
    assert rates.abstain_rate == pytest.approx(1 / 4)
    assert rates.rates[E] == pytest.approx((0.5 + 0 + 0.75) / 3)
    assert rates.rates[N] == pytest.approx(0.5 / 3)
    assert rates.rates[C] == pytest.approx((1 + 0.25) / 3)
    assert rates.hallucination_rate == pytest.approx((0.5 + 1.25) / 3)


def test_copy_rate_averages_one_to_four_gram_coverage():
    reference = "Marie Curie won the Nobel Prize in Physics in 1903."
    claim = "Marie Curie won the Nobel Prize in Chemistry"
    # 8 words. 1-grams: 7/8 (chemistry missing); 2-grams: 6/7; 3-grams: 5/6; 4-grams: 4/5
    expected = (7 / 8 + 6 / 7 + 5 / 6 + 4 / 5) / 4
    assert copy_rate(claim, reference) == pytest.approx(expected)
    # a two-word claim has only 1- and 2-grams
    assert copy_rate("Curie won", reference) == pytest.approx((1 + 1) / 2)
    assert copy_rate("", reference) is None
