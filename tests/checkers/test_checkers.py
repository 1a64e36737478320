"""Label mapping of HF NLI models, segmenting of long references and the A.3 merge, the similarity checker."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from factscope.checkers.base import CheckTask
from factscope.checkers.registry import make_checker
from factscope.checkers.segmented import SegmentedChecker
from factscope.core.errors import ConfigError
from factscope.core.schema import LABELS, Label, Span
from factscope.core.text import segment_spans, split_sentences
from factscope.hf.label_map import label_columns
from factscope.hf.nli import HFNLIScorer
from fake_scorers import KeywordScorer, plain_options
from tiny_models import build_nli_classifier


@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny-nli")
    # columns in MNLI-style order; the bias makes column 0 (contradiction) win for every input
    return build_nli_classifier(folder, {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}, bias=[4.0, 0.0, 0.0])


def test_label_columns_from_config_and_explicit_order():
    assert label_columns({0: "entailment", 1: "neutral", 2: "contradiction"}) == {
        0: Label.ENTAILMENT, 1: Label.NEUTRAL, 2: Label.CONTRADICTION,
    }
    assert label_columns({0: "LABEL_0", 1: "LABEL_1"}, ["not_entailment", "entailment"]) == {
        0: Label.NEUTRAL, 1: Label.ENTAILMENT,
    }
    with pytest.raises(ConfigError, match="`label_order`"):
        label_columns({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})


def test_hf_scorer_reorders_columns_into_label_order(tiny_nli):
    scorer = HFNLIScorer(str(tiny_nli))
    probs = scorer.score(["the cat sat on the mat .", "paris is in france ."], ["a cat sat", "paris is in france"])
    assert probs.shape == (2, 3)
    assert np.allclose(probs.sum(axis=1), 1.0)
    # softmax of logits (4, 0, 0): 0.9479 for contradiction, which must land in the Contradiction column
    expected = np.exp(4) / (np.exp(4) + 2)
    assert probs[0, LABELS.index(Label.CONTRADICTION)] == pytest.approx(expected, rel=1e-4)


def test_make_checker_loads_nli_and_path_specs(tiny_nli):
    for spec in (f"nli:{tiny_nli}", f"path:{tiny_nli}"):
        verdicts = make_checker(spec).check([CheckTask("the cat sat", ("the cat sat on the mat .",))])
        assert verdicts[0].label == Label.CONTRADICTION
        assert verdicts[0].probs is not None and sum(verdicts[0].probs) == pytest.approx(1.0)
    with pytest.raises(ConfigError, match="unknown checker"):
        make_checker("magic")


def segment_text(text: str, count_tokens, max_tokens: int) -> list[str]:
    return [text[span.start : span.end] for span in segment_spans(text, count_tokens, max_tokens)]


def test_segmenting_respects_the_token_budget():
    text = " ".join(f"Sentence number {i} is here." for i in range(40))
    segments = segment_text(text, lambda s: len(s.split()), max_tokens=20)
    assert all(len(s.split()) <= 20 for s in segments)
    assert " ".join(segments).split() == text.split()
    long_sentence = "word " * 130
    assert all(len(s.split()) <= 50 for s in segment_text(long_sentence, lambda s: len(s.split()), 50))


def test_segment_spans_index_the_original_text():
    # every sentence starts with "The": segment k+1's first word also occurs inside segment k
    text = "  " + "\n".join(f"The item  number {i} is here." for i in range(30)) + " The " + "long " * 60 + "end.\n"
    spans = segment_spans(text, lambda s: len(s.split()), max_tokens=20)
    assert len(spans) > 3
    assert all(a.end <= b.start for a, b in itertools.pairwise(spans))
    pieces = [text[span.start : span.end] for span in spans]
    assert all(len(piece.split()) <= 20 for piece in pieces)
    assert " ".join(pieces).split() == text.split()
    assert pieces[1].startswith("The item  number") and "\n" in pieces[1]
    assert segment_spans("   ", len, 5) == [] and segment_spans(" short text ", len, 50) == [Span(start=1, end=11)]


def test_long_reference_is_checked_segment_by_segment_and_merged():
    filler = " ".join(f"Filler sentence {i} says nothing." for i in range(60))
    reference = f"{filler} The river is long. {filler}"
    scorer = KeywordScorer()
    checker = SegmentedChecker(scorer, plain_options(max_tokens=50, exact_scoring="every"))
    verdicts = checker.check([CheckTask("the river is long", (reference,)), CheckTask("the dog barked", (reference,))])
    assert verdicts[0].label == Label.ENTAILMENT
    assert verdicts[0].evidence == "The river is long."
    assert reference[verdicts[0].evidence_span.start : verdicts[0].evidence_span.end] == "The river is long."
    assert verdicts[1].label == Label.NEUTRAL
    # all pairs of the batch went to the model in one call, each segment paired with each claim
    assert len(scorer.calls) == 1
    assert len(scorer.calls[0]) == 2 * len(checker.segments(reference)) > 2


def test_noisy_context_merge_rule():
    checker = SegmentedChecker(KeywordScorer(), plain_options())
    supported = CheckTask("python was created by guido", ("Java was not python was created by guido.", "Python was created by guido."))
    contradicted = CheckTask("the sky is green", ("Unrelated passage.", "The sky is not the sky is green."))
    neither = CheckTask("the moon is cheese", ("Unrelated passage.", "Another one."))
    labels = [v.label for v in checker.check([supported, contradicted, neither])]
    assert labels == [Label.ENTAILMENT, Label.CONTRADICTION, Label.NEUTRAL]


def test_no_references_is_neutral():
    assert SegmentedChecker(KeywordScorer(), plain_options()).check([CheckTask("anything", ())])[0].label == Label.NEUTRAL


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Dr. Smith arrived. He paid $3.50 for it!", ["Dr. Smith arrived.", "He paid $3.50 for it!"]),
        ("First line\n\nSecond line", ["First line", "Second line"]),
        ("", []),
    ],
)
def test_sentence_splitting(text, expected):
    assert split_sentences(text) == expected


def test_similarity_checker_on_the_packaged_minilm():
    checker = make_checker("similarity", similarity_threshold=0.6)
    verdicts = checker.check(
        [
            CheckTask("A cat is sitting on a mat.", ("The weather was cold. A cat sat on the mat.",)),
            CheckTask("Berlin is the capital of Germany.", ("The cat sat on the mat.",)),
        ]
    )
    assert verdicts[0].label == Label.ENTAILMENT and verdicts[0].evidence == "A cat sat on the mat."
    assert verdicts[1].label == Label.NEUTRAL and verdicts[1].score < 0.6
