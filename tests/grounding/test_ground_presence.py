"""Presence models of Truly Ground: windows, best window, thresholds; the real packaged MiniLM bi-encoder."""

import math
import re

import numpy as np
import pytest

from factscope.core.errors import ConfigError
from factscope.core.schema import Label, Verdict
from factscope.grounding.presence import (
    BiEncoderPresence,
    LLMJudgePresence,
    NLIPresence,
    WindowedPresence,
    decide,
    make_presence,
    parse_judgement,
    sentence_windows,
)
from factscope.grounding.spec import GroundSpec, check_threshold
from factscope.llm.client import LLMClient, LLMConfig


@pytest.fixture(scope="session")
def bi_presence():
    return BiEncoderPresence()


def test_sentence_windows_cover_the_text_with_overlap():
    text = "One is here. Two is here. Three is here. Four is here."
    assert sentence_windows(text, 3, 1) == [
        "One is here. Two is here. Three is here.",
        "Two is here. Three is here. Four is here.",
    ]
    # stride 2 would stop at sentence 3; the last window is added so sentence 4 is covered
    assert sentence_windows(text, 2, 2) == ["One is here. Two is here.", "Three is here. Four is here."]
    assert sentence_windows(text, 3, 3)[-1] == "Two is here. Three is here. Four is here."
    assert sentence_windows("Short text.", 3) == ["Short text."]
    # widths 1 to 3, narrowest first: 4 single sentences, 3 pairs, 2 triples
    windows = sentence_windows(text, 3, 1, min_size=1)
    assert (
        len(windows) == 4 + 3 + 2
        and windows[0] == "One is here."
        and windows[4] == "One is here. Two is here."
    )
    # a width that covers the whole text gives the text itself and ends the list
    assert sentence_windows("Ants dig. Bees fly.", 3, 1, min_size=1) == [
        "Ants dig.",
        "Bees fly.",
        "Ants dig. Bees fly.",
    ]
    assert sentence_windows(text, None) == [text]
    assert sentence_windows("   ", 3) == []


class _Overlap(WindowedPresence):
    """Scores a pair by the share of the fact's words found in the window; records the pairs it saw."""

    threshold = 0.99

    def __init__(self):
        super().__init__(window=1)
        self.seen = []

    def score_pairs(self, pairs):
        self.seen.extend(pairs)
        return np.array([len(set(f.split()) & set(w.split())) / len(f.split()) for f, w in pairs])


def test_best_window_counts_and_pairs_are_deduplicated_and_length_sorted():
    model = _Overlap()
    context = "ant bee cow. xen yak zebu."
    facts = ["xen yak zebu.", "xen yak zebu.", "ant owl."]
    scores = model.score(facts, [[context], [context, "xen yak zebu."], [context]])
    # windows: "ant bee cow." and "xen yak zebu."; fact 1: 0/3 and 3/3 -> best 1.0;
    # fact 2 adds the source "xen yak zebu." (same window, deduplicated) -> 1.0; "ant owl." -> 1/2 words
    assert scores.tolist() == [1.0, 1.0, 0.5]
    assert len(model.seen) == len(set(model.seen)) == 4
    lengths = [len(f) + len(w) for f, w in model.seen]
    assert lengths == sorted(lengths)
    assert model.present(["ant owl."], [[context]]) == [False]
    # no source text at all: absent, not unjudged
    assert model.score(["a"], [[""]]).tolist() == [-math.inf]
    assert decide(np.array([0.5, np.nan, 0.2]), 0.4) == [True, None, False]


def test_packaged_minilm_bi_encoder_finds_paraphrases_not_unrelated_facts(bi_presence):
    context = (
        "Title: Harbour Line tramway \n\n The Harbour Line tramway was opened in 1894. It ran along the quay of "
        "Port Elsby. The line was electrified in 1910 and closed in 1958."
    )
    facts = ["The Harbour Line tramway opened in 1894.", "Penguins live in Antarctica."]
    scores = bi_presence.score(facts, [[context], [context]])
    assert scores[0] > 0.6 and scores[1] < 0.2
    assert bi_presence.present(facts, [[context], [context]]) == [True, False]
    assert bi_presence.threshold == 0.4


class _FakeChecker:
    name = "fake"

    def check(self, tasks):
        verdicts = []
        for task in tasks:
            if "fail" in task.references[0]:
                verdicts.append(Verdict(label=None, failed=True, error="boom"))
            elif task.claim in task.references[0]:
                verdicts.append(Verdict(label=Label.ENTAILMENT, probs=(0.9, 0.05, 0.05)))
            else:
                verdicts.append(Verdict(label=Label.NEUTRAL))
        return verdicts


def test_nli_presence_uses_entailment_probability_and_keeps_failures():
    model = NLIPresence(_FakeChecker(), window=1)
    scores = model.score(["cats purr.", "dogs bark.", "x."], [["cats purr."], ["cats purr."], ["fail."]])
    assert scores[0] == pytest.approx(0.9) and scores[1] == 0.0 and math.isnan(scores[2])
    assert decide(scores, model.threshold) == [True, False, None]


def test_llm_judge_parses_true_false_and_marks_unparsable(fake_llm):
    fake_llm.responder = lambda request: (
        "True."
        if "Fact: cats purr." in request["messages"][-1]["content"]
        else "maybe"
        if "Fact: owls" in request["messages"][-1]["content"]
        else "False"
    )
    client = LLMClient(LLMConfig(base_url=fake_llm.base_url, model="judge", cache_path=None, max_retries=0))
    model = LLMJudgePresence(client)
    scores = model.score(["cats purr.", "dogs bark.", "owls hoot."], [["Cats purr. Dogs sleep."]] * 3)
    assert scores[:2].tolist() == [1.0, 0.0] and math.isnan(scores[2])
    assert model.failures[0]["raw"] == "maybe"
    prompt = fake_llm.requests[0]["json"]["messages"][-1]["content"]
    assert "Cats purr. Dogs sleep." in prompt
    assert parse_judgement("**False**") is False and parse_judgement("I think so") is None


def test_make_presence_specs(bi_presence):
    with pytest.raises(ConfigError, match="unknown presence model"):
        make_presence("nope")
    with pytest.raises(ConfigError, match="needs a chat model: pass `llm`"):
        make_presence("llm")
    model = make_presence("bi", threshold=0.5, window=0)
    assert model.threshold == 0.5 and model.window is None


def test_cross_encoder_presence_on_a_tiny_model_takes_the_best_window(tmp_path):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from factscope.grounding.presence import CrossEncoderPresence
    from tiny_models import build_nli_classifier

    folder = build_nli_classifier(tmp_path / "cross", {0: "LABEL_0"}, seed=1)
    model = CrossEncoderPresence(str(folder), threshold=0.0, window=1)
    text = "the cat sat on the mat. paris is the capital of france. the river was tall."
    facts = ["paris is the capital of france.", "the dog sat."]
    scores = model.score(facts, [[text], [text]])
    # reference: the tiny model's first logit for (fact as query, sentence as passage), best sentence per fact
    tokenizer = AutoTokenizer.from_pretrained(folder)
    network = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    sentences = sentence_windows(text, 1)
    for fact, score in zip(facts, scores):
        with torch.inference_mode():
            logits = network(**tokenizer([fact] * 3, sentences, padding=True, return_tensors="pt")).logits[
                :, 0
            ]
        assert score == pytest.approx(float(logits.max()), abs=1e-5)


def test_cross_encoder_threshold_is_on_the_raw_score(tmp_path):
    from factscope.grounding.presence import CrossEncoderPresence
    from tiny_models import build_nli_classifier

    # zero classifier weights: every pair scores exactly its bias
    high = build_nli_classifier(tmp_path / "high", {0: "LABEL_0"}, bias=[6.5])
    low = build_nli_classifier(tmp_path / "low", {0: "LABEL_0"}, bias=[5.5])
    pair = (["the cat sat."], [["the cat sat on the mat."]])
    assert CrossEncoderPresence(str(high)).present(*pair) == [True]  # 6.5 >= 6 (the paper's threshold)
    assert CrossEncoderPresence(str(low)).present(*pair) == [False]  # 5.5 < 6


def test_nli_presence_through_a_check_task_checker_spec(tmp_path):
    from tiny_models import build_nli_classifier

    folder = build_nli_classifier(
        tmp_path / "nli", {0: "entailment", 1: "neutral", 2: "contradiction"}, bias=[2.0, 0.0, 0.0]
    )
    model = make_presence(f"nli:nli:{folder}")
    # softmax of (2, 0, 0): P(entailment) = e^2 / (e^2 + 2) = 7.389 / 9.389 = 0.787 >= 0.5
    [score] = model.score(["the cat sat."], [["the cat sat on the mat."]])
    assert score == pytest.approx(np.exp(2) / (np.exp(2) + 2), abs=1e-4)
    assert model.present(["the cat sat."], [["the cat sat on the mat."]]) == [True]


@pytest.mark.parametrize(
    ("presence", "threshold"),
    [("bi", -1.0), ("bi:some/model", 1.0), ("nli:embedded", 0.0), ("bi-nli", 0.437), ("llm", 1.0),
     ("cross", -50.0), ("mine", 9.0)],
)
def test_a_threshold_within_the_models_score_range_is_taken(presence, threshold):
    check_threshold(presence, threshold)


@pytest.mark.parametrize(("presence", "threshold", "message"), [
    ("bi", 1.5, "`threshold=1.5` is outside -1 to 1, the range of `presence` bi's scores (a cosine similarity)"),
    ("nli:embedded", -0.1,
     "`threshold=-0.1` is outside 0 to 1, the range of `presence` nli's scores (an entailment probability)"),
    ("llm", 2.0, "`threshold=2` is outside 0 to 1, the range of `presence` llm's scores (a judgement scored 0 or 1)"),
])
def test_a_threshold_outside_the_models_score_range_is_refused(presence, threshold, message):
    with pytest.raises(ConfigError, match=f"^{re.escape(message)}$"):
        check_threshold(presence, threshold)
    with pytest.raises(ConfigError, match=f"^{re.escape(message)}$"):
        GroundSpec(presence=presence, threshold=threshold)


def test_the_threshold_help_states_the_range_of_each_model_with_a_fixed_one():
    from dataclasses import fields

    from factscope.grounding.spec import SCORE_RANGES

    help = next(item for item in fields(GroundSpec) if item.name == "threshold").metadata["help"]
    for name, (low, high, _) in SCORE_RANGES.items():
        stated = help.split(f"{low:g} to {high:g} with ", 1)[1].split(" (", 1)[0]
        assert name in stated.replace("`presence` ", "").replace(" and", ",").split(", "), (name, stated)
