"""Verdicts of the segmented checker explain themselves: deciding reference, segment, evidence, probabilities,
the rule that fired and why; the relevance filter, the minimum confidence and the value check each decide."""

from __future__ import annotations

import random

import numpy as np
import pytest

from factscope.checkers.base import CheckTask
from factscope.checkers.segmented import SegmentedChecker
from factscope.core.errors import ConfigError
from factscope.core.files.manifest import describe
from factscope.core.schema import Label, Mismatch, Span
from fake_scorers import plain_options

E, N, C = Label.ENTAILMENT, Label.NEUTRAL, Label.CONTRADICTION


class StandInScorer:
    """A transparent model over word-count tokens.

    A segment that contains the claim word for word entails it (P=0.9), or P=0.55 when 'perhaps' precedes it; one
    that says 'not CLAIM' contradicts it (P=0.8); a segment with the word 'ANYTHING' entails every claim (P=0.7),
    as a model fooled by unrelated text would; anything else is neutral (P=0.8).
    """

    name = "stand-in"

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def score(self, premises, hypotheses):
        rows = []
        for premise, hypothesis in zip(premises, hypotheses):
            key, text = hypothesis.lower().rstrip("."), premise.lower()
            if f"not {key}" in text:
                rows.append([0.1, 0.1, 0.8])
            elif f"perhaps {key}" in text:
                rows.append([0.55, 0.35, 0.1])
            elif key in text:
                rows.append([0.9, 0.05, 0.05])
            elif "ANYTHING" in premise:
                rows.append([0.7, 0.2, 0.1])
            else:
                rows.append([0.1, 0.8, 0.1])
        return np.array(rows)


FILLER = " ".join(f"Filler sentence {i} says nothing much." for i in range(12))


def test_an_entailment_names_its_reference_segment_sentence_and_probabilities():
    reference = f"{FILLER} The river Nile is long. {FILLER}"
    checker = SegmentedChecker(StandInScorer(), plain_options(max_tokens=30))
    (verdict,) = checker.check([CheckTask("the river nile is long", ("Unrelated text here.", reference))])
    assert verdict.label == E and verdict.rule == "model"
    assert verdict.evidence_reference == 1
    assert reference[verdict.evidence_span.start : verdict.evidence_span.end] == "The river Nile is long."
    segment = verdict.segment_span
    assert segment.start <= verdict.evidence_span.start and verdict.evidence_span.end <= segment.end
    assert (reference[segment.start : segment.end], segment) in checker.segments(reference)
    number = checker.segments(reference).index((reference[segment.start : segment.end], segment)) + 1
    assert verdict.probs == pytest.approx((0.9, 0.05, 0.05))
    assert verdict.reason == f"entailed by reference 2, segment {number} (P=0.90)"


def test_contradiction_and_neutral_verdicts_say_why():
    checker = SegmentedChecker(StandInScorer(), plain_options())
    contradicted, neutral = checker.check(
        [
            CheckTask("the sky is green", ("The sky is blue.", "The sky is not the sky is green.")),
            CheckTask("the sky is green", ("The sky is blue today.",)),
        ]
    )
    assert (contradicted.label, contradicted.rule, contradicted.evidence_reference) == (C, "model", 1)
    assert contradicted.reason == "contradicted by reference 2, segment 1 (P=0.80)"
    assert (neutral.label, neutral.rule) == (N, "model")
    assert neutral.reason.startswith("no segment entails or contradicts it")


def test_an_unrelated_segment_does_not_decide_and_the_filter_says_so():
    task = CheckTask("the tower is in paris", ("ANYTHING about cooking pasta.", "The tower stands in Paris, France."))
    filtered = SegmentedChecker(StandInScorer(), plain_options(exact_scoring="every")).check([task])[0]
    assert filtered.label == N and filtered.rule == "relevance"
    assert filtered.evidence_reference == 1
    assert "reference 1, segment 1 says Entailment (P=0.70)" in filtered.reason
    assert "under the floor" in filtered.reason
    unfiltered = SegmentedChecker(StandInScorer(), plain_options(relevance="off")).check([task])[0]
    assert (unfiltered.label, unfiltered.rule, unfiltered.evidence_reference) == (E, "model", 0)
    decisive = SegmentedChecker(StandInScorer(), plain_options()).check([task])[0]
    assert (decisive.label, decisive.rule) == (N, "model"), "a segment under the floor is not scored, nor named"


def test_no_relevant_segment_is_neutral_by_the_relevance_rule():
    task = CheckTask("the tower is in paris", ("ANYTHING about cooking pasta.", "Tomatoes grow in summer."))
    (verdict,) = SegmentedChecker(StandInScorer(), plain_options()).check([task])
    assert verdict.label == N and verdict.rule == "relevance"
    assert verdict.reason.startswith("no segment shares enough of the claim's content words")
    assert verdict.probs is not None and verdict.segment_span is not None


def test_a_claim_without_content_words_is_never_filtered():
    checker = SegmentedChecker(StandInScorer(), plain_options())
    (verdict,) = checker.check([CheckTask("it is", ("ANYTHING at all.",))])
    assert verdict.label == E and verdict.rule == "model"


def test_min_confidence_turns_a_weak_label_neutral():
    task = CheckTask("the cat sat", ("Perhaps the cat sat on a mat.",))
    assert SegmentedChecker(StandInScorer(), plain_options(min_confidence=0.5)).check([task])[0].label == E
    (verdict,) = SegmentedChecker(StandInScorer(), plain_options(min_confidence=0.6)).check([task])
    assert verdict.label == N and verdict.rule == "min-confidence"
    assert verdict.probs == pytest.approx((0.55, 0.35, 0.1))
    assert verdict.reason == "entailed by reference 1, segment 1 (P=0.55), under the minimum confidence 0.60"
    strong = CheckTask("the cat sat", ("The cat sat on a mat.",))
    assert SegmentedChecker(StandInScorer(), plain_options(min_confidence=0.6)).check([strong])[0].label == E


def _year_check(claim: str, evidence: str, *, context: str | None = None) -> Mismatch | None:
    """A stand-in value check: the first four-digit year of the claim against the evidence's."""
    import re

    claimed = re.search(r"\b\d{4}\b", claim)
    if claimed is None or claimed.group() in evidence:
        return None
    stated = re.search(r"\b\d{4}\b", evidence)
    span = Span(start=claimed.start(), end=claimed.end())
    if stated is None:
        return Mismatch(kind="date", claim_value=claimed.group(), claim_span=span)
    return Mismatch(
        kind="date",
        claim_value=claimed.group(),
        claim_span=span,
        evidence_value=stated.group(),
        evidence_span=Span(start=stated.start(), end=stated.end()),
    )


def test_a_value_mismatch_overrules_an_entailment_with_spans_in_the_reference():
    calls = []

    def check(claim: str, evidence: str, *, context: str | None = None) -> Mismatch | None:
        calls.append((claim, evidence, context))
        return _year_check(claim, evidence, context=context)

    reference = f"{FILLER} The museum opened to the public in 1994. {FILLER}"
    checker = SegmentedChecker(StandInScorer(), plain_options(max_tokens=30), value_check=check)
    contradicted, kept, absent = checker.check(
        [
            CheckTask("the museum opened to the public in 1995", (reference.replace("1994", "ANYTHING 1994"),)),
            CheckTask("the museum opened", (reference,)),
            CheckTask("the museum opened in 1995", ("The museum opened in spring, ANYTHING.",)),
        ]
    )
    assert contradicted.label == C and contradicted.rule == "mismatch"
    assert contradicted.reason == "date 1995 in the claim, 1994 in the evidence"
    span = contradicted.mismatch.evidence_span
    assert reference.replace("1994", "ANYTHING 1994")[span.start : span.end] == "1994"
    assert contradicted.mismatch.claim_span == Span(start=35, end=39)
    assert calls[0][2] is not None and calls[0][1] in calls[0][2]
    assert kept.label == E and kept.rule == "model" and kept.mismatch is None
    assert absent.label == N and absent.rule == "mismatch" and absent.mismatch.evidence_span is None
    assert absent.reason == "date 1995 in the claim is not in the evidence"


def test_the_value_check_runs_only_on_entailments():
    calls = []

    def check(claim: str, evidence: str, *, context: str | None = None) -> Mismatch | None:
        calls.append(claim)
        return None

    checker = SegmentedChecker(StandInScorer(), plain_options(), value_check=check)
    checker.check([CheckTask("the sky is green", ("The sky is not the sky is green.",)), CheckTask("x y", ("z w",))])
    assert calls == []


def _tasks() -> list[CheckTask]:
    return [
        CheckTask("the river nile is long", (f"{FILLER} The river Nile is long. {FILLER}", "Cooking pasta. ANYTHING.")),
        CheckTask("the sky is green", ("The sky is not the sky is green.", "Perhaps the sky is green.")),
        CheckTask("the tower is in paris", ("ANYTHING about cooking pasta.",)),
        CheckTask("the cat sat", ()),
    ]


def test_the_same_input_gives_the_same_verdicts_in_any_batch_order():
    tasks = _tasks()
    options = plain_options(max_tokens=30, min_confidence=0.3)
    first = SegmentedChecker(StandInScorer(), options).check(tasks)
    again = SegmentedChecker(StandInScorer(), options).check(tasks)
    order = list(range(len(tasks)))
    random.Random(3).shuffle(order)
    shuffled = SegmentedChecker(StandInScorer(), options).check([tasks[i] for i in order])
    assert first == again
    assert [shuffled[order.index(i)] for i in range(len(tasks))] == first


def test_settings_are_checked_and_recorded_in_the_manifest():
    options = plain_options(min_relevance=0.3, min_confidence=0.7)
    checker = SegmentedChecker(StandInScorer(), options, value_check=_year_check)
    described = describe(checker)
    assert described["relevance"] == "lexical" and described["min_relevance"] == 0.3
    assert described["min_confidence"] == 0.7
    assert described["mismatch_check"].endswith("_year_check")
    assert describe(SegmentedChecker(StandInScorer(), plain_options()))["mismatch_check"] is None
    for bad in ({"min_confidence": 1.5}, {"min_relevance": -0.1}, {"relevance": "semantic"}):
        with pytest.raises(ConfigError):
            SegmentedChecker(StandInScorer(), plain_options(**bad))


def test_the_report_shows_each_verdicts_reason_escaped():
    from factscope.core.schema import Claim
    from factscope.metrics.hallucination import summarize_response
    from factscope.refchecker.system import CHECK
    from factscope.refchecker.task import CheckResult, ClaimResult
    from factscope.reports.dispatch import render_rows

    reference = "Tomatoes grow in summer <b>heat</b>."
    checker = SegmentedChecker(StandInScorer(), plain_options())
    (verdict,) = checker.check([CheckTask("the tower is in paris", (reference,))])
    row = CheckResult(
        id="r",
        response="The tower is in Paris.",
        references=[reference],
        claims=[ClaimResult(claim=Claim(text="the tower is in paris", kind="sentence"), verdict=verdict)],
        summary=summarize_response([verdict.label]),
    )
    page = render_rows(CHECK, [row], [row], title="check")
    assert verdict.reason.replace("'", "&#39;") in page
    assert 'title="rule: relevance"' in page
    assert "<b>heat</b>" not in page
