"""A SegmentedChecker takes its settings whole, as CheckerOptions: each setting it once refused itself is refused
by the options (or, for a narrowest window without windows, by the checker), and the checker built from the
options is the one the registry builds."""

from __future__ import annotations

import warnings

import pytest

from factscope.checkers.options import CheckerOptions
from factscope.checkers.pruning import FastSettings
from factscope.checkers.relevance import DEFAULT_MIN_RELEVANCE
from factscope.checkers.segmented import SegmentedChecker
from factscope.checkers.segmented_settings import FAST_MODE_DEPRECATED
from factscope.core.errors import ConfigError, FactscopeWarning
from fake_scorers import KeywordScorer


@pytest.mark.parametrize(
    "settings, refusal",
    [
        ({"max_tokens": -1}, "`max_tokens` must be at least 0, not -1"),
        ({"max_tokens": 4}, "`max_tokens`: give 0 (each reference whole) or at least 8 tokens"),
        ({"window_sentences": -1}, "`window_sentences` must be at least 0, not -1"),
        (
            {"max_tokens": 0, "window_sentences": 2},
            "`window_sentences` counts only with segments (`max_tokens` above 0): windows are cut within `max_tokens`",
        ),
        ({"window_sentences": 2, "min_window_sentences": 0}, "`min_window_sentences` must be at least 1, not 0"),
        (
            {"window_sentences": 2, "min_window_sentences": 3},
            "`min_window_sentences` counts only up to `window_sentences` (the widest window)",
        ),
        ({"exact_scoring": "some"}, "`exact_scoring` must be one of 'decisive', 'every', not 'some'"),
        ({"relevance": "semantic"}, "`relevance` must be one of 'lexical', 'off', not 'semantic'"),
        ({"min_relevance": -0.1}, "`min_relevance` must be at least 0, not -0.1"),
        ({"min_confidence": 1.5}, "`min_confidence` must be at most 1, not 1.5"),
        ({"mode": "quick"}, "`mode` must be one of 'exact', 'fast', not 'quick'"),
        ({"threshold": 1.5}, "`threshold` must be at most 1, not 1.5"),
        ({"mismatch": "some"}, "`mismatch` must be one of 'values', 'all', 'off', not 'some'"),
    ],
)
def test_each_setting_the_checker_once_refused_is_refused_by_its_options(settings, refusal):
    with pytest.raises(ConfigError) as caught:
        CheckerOptions(**settings)
    assert str(caught.value) == refusal


def test_a_narrowest_window_without_windows_is_refused_by_the_checker_in_the_same_words():
    options = CheckerOptions(min_window_sentences=1)  # a checker's manifest may give the widest window
    with pytest.raises(ConfigError) as caught:
        SegmentedChecker(KeywordScorer(), options)
    assert str(caught.value) == "`min_window_sentences` needs sentence windows: give `window_sentences` too"


def test_the_default_checker_takes_the_default_options():
    checker = SegmentedChecker(KeywordScorer())
    assert (checker.max_tokens, checker.window_sentences, checker.min_window_sentences) == (200, 0, None)
    assert checker.relevance == "lexical" and checker.min_relevance == DEFAULT_MIN_RELEVANCE
    assert checker.min_confidence == 0.0 and checker.exact_scoring == "decisive"
    assert checker.decision.threshold is None and checker.claim_decision is None
    assert checker.mismatch_check == (
        "factscope.checkers.mismatch.find_mismatch(kinds=('number', 'date', 'quantity', 'entity'))"
    )
    assert checker.mode == "exact" and checker.fast is None and checker.name == "keyword"


def test_the_options_settings_reach_the_checker():
    options = CheckerOptions(
        max_tokens=50, window_sentences=3, min_window_sentences=1, min_relevance=0.4,
        min_confidence=0.3, mismatch="values", threshold=0.6, exact_scoring="every",
    )
    checker = SegmentedChecker(KeywordScorer(), options, name="mine")
    assert (checker.max_tokens, checker.window_sentences, checker.min_window_sentences) == (50, 3, 1)
    assert (checker.min_relevance, checker.min_confidence) == (0.4, 0.3)
    assert checker.decision.threshold == 0.6 and checker.exact_scoring == "every" and checker.name == "mine"
    assert checker.mismatch_check == "factscope.checkers.mismatch.find_mismatch(kinds=('number', 'date', 'quantity'))"
    unchecked = SegmentedChecker(KeywordScorer(), CheckerOptions(relevance="off", mismatch="off"))
    assert unchecked.relevance == "off" and unchecked.mismatch_check is None


def test_the_deprecated_mode_warns_and_checks_as_exact_mode_and_the_pruning_path_is_asked_for_by_its_settings():
    with pytest.warns(FactscopeWarning) as caught:
        checker = SegmentedChecker(KeywordScorer(), CheckerOptions(mode="fast"))
    assert str(caught[0].message) == FAST_MODE_DEPRECATED and caught[0].filename == __file__
    assert checker.mode == "exact" and checker.fast is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pruning = SegmentedChecker(KeywordScorer(), fast=FastSettings(top_k=2))
    assert pruning.mode == "fast" and pruning.fast == FastSettings(top_k=2)
