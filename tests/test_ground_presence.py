"""Presence models of seed 003: windows, best window, thresholds; the real packaged MiniLM bi-encoder."""

import math

import numpy as np
import pytest

from factscope.backends.llm import LLMClient, LLMConfig
from factscope.check.presence import (
    BiEncoderPresence,
    LLMJudgePresence,
    NLIPresence,
    WindowedPresence,
    decide,
    make_presence,
    parse_judgement,
    sentence_windows,
)
from factscope.schema import Label, Verdict


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
        "True." if "Fact: cats purr." in request["messages"][-1]["content"]
        else "maybe" if "Fact: owls" in request["messages"][-1]["content"] else "False"
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
    from factscope.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown presence model"):
        make_presence("nope")
    with pytest.raises(ConfigError, match="--llm-base-url"):
        make_presence("llm")
    model = make_presence("bi", threshold=0.5, window=0)
    assert model.threshold == 0.5 and model.window is None
