"""Sentence windows: references read as runs of k consecutive sentences, and the checker settings a manifest names."""

from __future__ import annotations

import json

import pytest

from factscope.checkers.base import CheckTask
from factscope.checkers.options import CheckerOptions
from factscope.checkers.registry import _checker_defaults
from factscope.checkers.segmented import SegmentedChecker
from factscope.core.errors import ConfigError
from factscope.core.schema import Label, Span
from factscope.core.text import window_spans
from fake_scorers import KeywordScorer, plain_options

TEXT = "Ann sang. Bob ran far. Cy slept. Di ate."


def words(text: str) -> int:
    return len(text.split())


def test_windows_are_every_run_of_k_sentences_with_stride_one():
    pieces = [TEXT[s.start : s.end] for s in window_spans(TEXT, 2, words, max_tokens=50)]
    assert pieces == ["Ann sang. Bob ran far.", "Bob ran far. Cy slept.", "Cy slept. Di ate."]
    assert [TEXT[s.start : s.end] for s in window_spans(TEXT, 1, words)] == ["Ann sang.", "Bob ran far.", "Cy slept.", "Di ate."]


def test_a_text_of_few_sentences_is_one_window_and_an_empty_one_none():
    assert window_spans("Ann sang. Bob ran.", 3, words) == [Span(start=0, end=18)]
    assert window_spans("   ", 2, words) == []
    with pytest.raises(ValueError, match="at least 1"):
        window_spans(TEXT, 0, words)


def test_a_window_over_the_token_budget_is_cut_to_fit():
    long = "one two three four five six seven eight nine ten. Short one."
    spans = window_spans(long, 2, words, max_tokens=4)
    assert all(words(long[s.start : s.end]) <= 4 for s in spans)
    assert long[spans[0].start : spans[0].end] == "one two three four"
    assert len(spans) == len({(s.start, s.end) for s in spans})


def test_the_checker_scores_each_window_and_points_at_the_deciding_one():
    reference = "Ann sang. Bob ran far. The river is long. Cy slept."
    scorer = KeywordScorer()
    checker = SegmentedChecker(scorer, plain_options(max_tokens=50, window_sentences=2, relevance="off"))
    [verdict] = checker.check([CheckTask("the river is long", (reference,))])
    assert [premise for premise, _ in scorer.calls[0]] == ["Ann sang. Bob ran far.", "Bob ran far. The river is long.", "The river is long. Cy slept."]
    assert verdict.label == Label.ENTAILMENT
    assert reference[verdict.segment_span.start : verdict.segment_span.end] == "Bob ran far. The river is long."
    assert verdict.evidence == "The river is long."


def test_windows_need_a_token_budget():
    with pytest.raises(ConfigError, match="`window_sentences` counts only with segments"):
        SegmentedChecker(KeywordScorer(), plain_options(max_tokens=0, window_sentences=2))


class ManifestScorer(KeywordScorer):
    manifest = json.loads('{"inference": {"window_sentences": 2, "threshold": 0.4}}')


def _chosen(scorer: KeywordScorer, **given: object) -> tuple[object, object, object]:
    """The window width, narrowest window and threshold a checker over ``scorer`` is built with."""
    chosen = _checker_defaults(scorer, CheckerOptions(**given))  # type: ignore[arg-type]
    return chosen.window_sentences, chosen.min_window_sentences, chosen.threshold


def test_a_checker_folder_supplies_its_own_layout_and_threshold_unless_the_caller_sets_them():
    scorer = ManifestScorer()
    assert _chosen(scorer) == (2, None, 0.4)
    assert _chosen(scorer, window_sentences=0, threshold=0.7) == (0, None, 0.7)
    assert _chosen(KeywordScorer()) == (None, None, None)


def test_the_published_judges_refuse_sentence_windows():
    from factscope.checkers.registry import _judge

    with pytest.raises(ConfigError, match="`window_sentences`"):
        _judge(KeywordScorer(), 0, CheckerOptions(window_sentences=2))


def test_mixed_widths_give_every_window_from_the_narrowest_to_the_widest_once():
    pieces = [TEXT[s.start : s.end] for s in window_spans(TEXT, 2, words, max_tokens=50, min_sentences=1)]
    assert pieces == [
        "Ann sang.", "Bob ran far.", "Cy slept.", "Di ate.",
        "Ann sang. Bob ran far.", "Bob ran far. Cy slept.", "Cy slept. Di ate.",
    ]
    assert [TEXT[s.start : s.end] for s in window_spans("Ann sang.", 2, words, min_sentences=1)] == ["Ann sang."]
    with pytest.raises(ValueError, match="min_sentences"):
        window_spans(TEXT, 2, words, min_sentences=3)


def test_a_claim_meets_its_sentence_alone_and_with_its_neighbour():
    reference = "The tower is in Paris. It was completed in 1889."
    scorer = KeywordScorer()
    checker = SegmentedChecker(
        scorer, plain_options(max_tokens=50, window_sentences=2, min_window_sentences=1, relevance="off")
    )
    checker.check([CheckTask("it was completed in 1889", (reference,))])
    assert sorted(premise for premise, _ in scorer.calls[0]) == sorted(
        ["The tower is in Paris.", "It was completed in 1889.", reference]
    )
    with pytest.raises(ConfigError, match="`min_window_sentences` counts only up to `window_sentences`"):
        SegmentedChecker(KeywordScorer(), plain_options(max_tokens=50, window_sentences=2, min_window_sentences=3))


class MixedManifestScorer(KeywordScorer):
    manifest = json.loads('{"inference": {"window_sentences": 2, "min_window_sentences": 1}}')


def test_the_manifests_narrowest_window_comes_only_with_its_own_width():
    scorer = MixedManifestScorer()
    assert _chosen(scorer) == (2, 1, None)
    assert _chosen(scorer, window_sentences=3) == (3, None, None)
    assert _chosen(scorer, window_sentences=3, min_window_sentences=2) == (3, 2, None)
    assert _chosen(scorer, max_tokens=0) == (None, None, None)


def test_a_narrowest_window_without_windows_is_refused():
    with pytest.raises(ConfigError, match="`min_window_sentences` needs sentence windows: give `window_sentences` too"):
        SegmentedChecker(KeywordScorer(), CheckerOptions(min_window_sentences=1))
    with pytest.raises(ConfigError, match="`min_window_sentences` counts only with sentence windows"):
        CheckerOptions(window_sentences=0, min_window_sentences=1)
