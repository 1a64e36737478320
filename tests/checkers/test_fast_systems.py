"""Fast mode beyond `check`: ground's presence checks and knowledge's factuality give the decisions of exact mode
on small cases (the deciding window or segment is kept), reading fewer pairs; the mode reaches the models through
the system definitions and the command line."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import numpy as np
import pytest
from typer.testing import CliRunner

from containment import ContainmentChecker, WordEncoder
from factscope.checkers.options import CheckerOptions
from factscope.checkers.pruning import FastSettings
from factscope.checkers.segmented import SegmentedChecker
from factscope.conner.data import KnowledgeRecord
from factscope.conner.evaluator import KnowledgeEvaluator
from factscope.conner.evaluator_setup import make_evaluator
from factscope.conner.spec import KnowledgeSpec
from factscope.core.files.manifest import manifest_path
from factscope.grounding.presence import NLIPresence, ShortlistNLIPresence, decide, make_presence
from factscope.grounding.presence_rounds import PresenceRounds, best_in_rounds, rank_windows
from factscope.grounding.spec import GroundSpec
from factscope.grounding.system import make_spec_presence
from factscope.retrieve.corpus import BM25Retriever, Corpus, Document
from fake_scorers import KeywordScorer, plain_options
from repo_paths import DATA, EXAMPLES

FILLER = [
    "Rain fell in Oslo all week.",
    "The museum opened a new wing.",
    "Tickets sold out in an hour.",
    "The river froze in January.",
    "A new bridge crossed the bay.",
    "Farmers sold apples at the market.",
]
STATED = ["Alice won the race in 2018.", "Bob lost the final.", "Carol painted the harbour."]
SOURCE = " ".join([*FILLER[:3], *STATED, *FILLER[3:]])
FACTS = [
    "Alice won the race in 2018.",  # stated: present
    "Alice won the race in 2019.",  # a changed number: absent
    "Bob lost the final.",  # stated: present
    "Dave sailed to Iceland.",  # shares no word with the source: absent
]


class CountingContainment(ContainmentChecker):
    """The containment checker, counting the pairs each call reads."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def check(self, tasks):
        self.calls.append(len(tasks))
        return super().check(tasks)


def test_rank_windows_keeps_the_windows_that_share_words_most_relevant_first():
    windows = [["Rain fell in Oslo.", "Alice won the race.", "Alice sang."]]
    assert rank_windows(["Alice won the race."], windows, top_k=8) == [["Alice won the race.", "Alice sang."]]
    assert rank_windows(["Alice won the race."], windows, top_k=1) == [["Alice won the race."]]
    assert rank_windows(["Zebra."], windows, top_k=8) == [[]]


def test_rounds_stop_at_the_first_window_that_reaches_the_threshold():
    asked: list[list[tuple[str, str]]] = []

    def score_pairs(pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        asked.append(list(pairs))
        return np.array([{"hit": 0.9, "miss": 0.2, "bad": math.nan}[window] for _, window in pairs])

    rounds = PresenceRounds(first_round=1, round_size=2)
    ranked = [["hit", "miss", "miss"], ["miss", "hit"], ["bad"], []]
    best = best_in_rounds(score_pairs, ["a", "b", "c", "d"], ranked, 0.5, rounds)
    assert best[0] == 0.9 and best[1] == 0.9 and math.isnan(best[2]) and best[3] == -math.inf
    assert [len(call) for call in asked] == [3, 1]  # round 1: a, b, c once each; round 2: b's 'hit' only


@pytest.mark.parametrize("window", [1, 2])
def test_fast_nli_presence_gives_the_exact_decisions_reading_fewer_pairs(window):
    exact_checker, fast_checker = CountingContainment(), CountingContainment()
    exact = NLIPresence(exact_checker, window=window)
    fast = NLIPresence(fast_checker, window=window, mode="fast")
    sources = [[SOURCE]] * len(FACTS)
    exact_scores, fast_scores = exact.score(FACTS, sources), fast.score(FACTS, sources)
    assert decide(fast_scores, fast.threshold) == decide(exact_scores, exact.threshold) == [True, False, True, False]
    assert sum(fast_checker.calls) < sum(exact_checker.calls) / 2
    dave = [window for fact, window in fast_checker.seen if fact == FACTS[3]]
    assert len(dave) == len(fast.windows([[SOURCE]])[0])  # it shares no word with the source: every window is read


def test_fast_shortlist_presence_reads_the_closest_window_first_and_stops():
    exact_checker, fast_checker = CountingContainment(), CountingContainment()
    exact = ShortlistNLIPresence(exact_checker, threshold=0.5, shortlist=3, window=1, encoder=WordEncoder())
    fast = ShortlistNLIPresence(
        fast_checker, threshold=0.5, shortlist=3, window=1, encoder=WordEncoder(), mode="fast"
    )
    sources = [[SOURCE]] * len(FACTS)
    exact_scores, fast_scores = exact.score(FACTS, sources), fast.score(FACTS, sources)
    assert decide(fast_scores, 0.5) == decide(exact_scores, 0.5)
    assert sum(fast_checker.calls) < sum(exact_checker.calls)
    assert fast_checker.calls[0] == len(FACTS)  # round 1: each fact's closest window only


def test_the_presence_mode_goes_from_the_spec_to_the_model_and_its_description():
    from factscope.core.files.manifest import describe
    from factscope.llm.client import LLMClient
    from factscope.llm.config import LLMConfig

    llm = LLMClient(LLMConfig(base_url="http://127.0.0.1:9", model="fake", cache_path=None))
    fast = make_spec_presence(GroundSpec(presence="llm", mode="fast"), llm)
    exact = make_spec_presence(GroundSpec(presence="llm"), llm)
    assert describe(fast)["mode"] == "fast" and describe(exact)["mode"] == "exact"
    assert describe(fast)["rounds"] != describe(exact)["rounds"]
    with pytest.raises(ValueError, match="mode must be"):
        make_presence("llm", mode="quick", llm=llm)  # type: ignore[arg-type]


LONG_PASSAGE = " ".join(
    [*(f"{sentence} It was reported widely." for sentence in FILLER), "Alice won the race in 2018 in Oslo."] * 3
)


def _pruning(mode: str) -> FastSettings | None:
    """The pruning path's settings for ``mode`` 'fast' (how the checkers' fast mode checked), none for 'exact'."""
    return FastSettings() if mode == "fast" else None


def _labels(scores) -> list[str]:
    names = ["consistent", "non_verified", "inconsistent"]
    return [names[int(np.argmax([s.factuality.consistent, s.factuality.non_verified, s.factuality.inconsistent]))]
            for s in scores]


def test_fast_knowledge_factuality_gives_the_exact_labels():
    corpus = Corpus([Document(doc_id=f"d{i}", text=LONG_PASSAGE if i == 0 else FILLER[i]) for i in range(4)])
    records = [
        KnowledgeRecord(id="a", query="Who won?", knowledge="Alice won the race in 2018. Rain fell in Oslo."),
        KnowledgeRecord(id="b", query="Who won?", knowledge="Alice won the race in 2017."),
    ]
    runs = {}
    for mode in ("exact", "fast"):
        scorer = KeywordScorer()
        checker = SegmentedChecker(scorer, plain_options(max_tokens=12), fast=_pruning(mode))
        runs[mode] = (KnowledgeEvaluator(checker=checker, retriever=BM25Retriever(corpus)).score(records), scorer)
    assert _labels(runs["fast"][0]) == _labels(runs["exact"][0]) == ["consistent", "non_verified"]
    scored = {mode: sum(len(call) for call in scorer.calls) for mode, (_, scorer) in runs.items()}
    assert scored["fast"] < scored["exact"]


def test_the_knowledge_mode_reaches_the_checker(tmp_path, monkeypatch):
    from factscope.checkers import registry

    monkeypatch.setattr(registry, "make_checker", lambda spec, *, options, llm: SegmentedChecker(
        KeywordScorer(), plain_options(), fast=_pruning(options.mode)))
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "d1", "text": "Alice won the race."}) + "\n", encoding="utf-8")
    for mode in ("exact", "fast"):
        spec = KnowledgeSpec(corpus=corpus, mode=mode, relevance="none", coherence="none")
        assert make_evaluator(spec).checker.mode == mode  # type: ignore[union-attr]


def test_the_server_gives_its_mode_to_every_system():
    from factscope.serve.config import Components
    from factscope.serve.systems import make_systems

    systems = make_systems(Components(mode="fast"))
    specs = {name: system._spec for name, system in systems.items()}  # type: ignore[attr-defined]
    assert specs["check"].checker_settings.mode == specs["attribute"].checker_settings.mode == "fast"
    assert specs["ground"].mode == specs["knowledge"].mode == "fast"


@pytest.fixture
def recorded_checkers(monkeypatch):
    """make_checker replaced by one that records its settings and builds a segmented checker over KeywordScorer."""
    from factscope.checkers import registry

    settings: list[CheckerOptions] = []

    def make(spec, *, options, llm):
        settings.append(options)
        return SegmentedChecker(KeywordScorer(), plain_options(), fast=_pruning(options.mode))

    monkeypatch.setattr(registry, "make_checker", make)
    return settings


@pytest.mark.parametrize("mode", ["exact", "fast"])
def test_attribute_and_knowledge_score_take_mode_on_the_command_line(app, tmp_path, recorded_checkers, mode):
    runner = CliRunner()
    result = runner.invoke(app, ["attribute", "score", str(EXAMPLES / "attribute" / "answers.jsonl"),
                                 "-o", str(tmp_path / "a.jsonl"), "--mode", mode])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["knowledge", "score", str(EXAMPLES / "knowledge" / "records.jsonl"),
                                 "-o", str(tmp_path / "k.jsonl"), "--corpus", str(EXAMPLES / "knowledge" / "corpus.jsonl"),
                                 "--relevance-model", "none", "--coherence-model", "none", "--lm", "none",
                                 "--mode", mode])
    assert result.exit_code == 0, result.output
    assert [options.mode for options in recorded_checkers] == [mode, mode]


def test_ground_score_fast_gives_the_exact_decisions_and_records_its_mode(app, tmp_path, monkeypatch):
    from factscope.grounding import presence

    def containment(spec, *, mode="exact", **_):
        return NLIPresence(ContainmentChecker(), window=1, mode=mode)

    monkeypatch.setattr(presence, "make_presence", containment)
    data = DATA / "ground"
    decisions, manifests = {}, {}
    for mode in ("exact", "fast"):
        out = tmp_path / f"{mode}.jsonl"
        result = CliRunner().invoke(app, ["ground", "score", str(data / "original.json"), "--responses",
                                          str(data / "responses.jsonl"), "--mode", mode, "-o", str(out)])
        assert result.exit_code == 0, result.output
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        decisions[mode] = [fact["present"] for row in rows for fact in [*row["response_facts"], *row["gold_facts"]]]
        manifests[mode] = json.loads(manifest_path(out).read_text())
    assert decisions["fast"] == decisions["exact"] and True in decisions["exact"] and False in decisions["exact"]
    assert "'fast'" in repr(manifests["fast"]) and "'fast'" not in repr(manifests["exact"])
