"""Fast checking mode: relevance pruning, rounds with early exit, and where fast can differ from exact."""

import random

import numpy as np
import pytest

from factscope.checkers.merge import merge_passage_labels
from factscope.checkers.pruning import BM25Index, FastSettings, RoundScorer, SegmentRanker, words
from factscope.core.schema import LABELS, Label
from fake_scorers import plain_options

ENTAILS = (0.95, 0.04, 0.01)
WEAKLY_ENTAILS = (0.6, 0.3, 0.1)
CONTRADICTS = (0.05, 0.15, 0.8)
NEUTRAL = (0.1, 0.85, 0.05)


class StandInScorer:
    """A PairScorer whose probabilities the test sets per (premise, hypothesis); Neutral for any other pair.
    It records every pair it is asked to score."""

    name = "stand-in"

    def __init__(self, probs: dict[tuple[str, str], tuple[float, float, float]] | None = None) -> None:
        self.probs = probs or {}
        self.calls: list[list[tuple[str, str]]] = []

    def score(self, premises, hypotheses):
        pairs = list(zip(premises, hypotheses))
        self.calls.append(pairs)
        return np.array([self.probs.get(pair, NEUTRAL) for pair in pairs], dtype=np.float64)

    def count_tokens(self, text):
        return len(text.split())


def label_of(rows) -> Label:
    return merge_passage_labels(LABELS[int(np.argmax(row))] for row in rows)


def fast_and_exact(claims, segments, scorer, settings):
    """(fast label, exact label, indices scored) for each claim: exact merges every segment, fast the scored ones."""
    kept = SegmentRanker(settings).keep(claims, segments)
    scored = RoundScorer(scorer, settings).score(claims, segments, kept)
    exact = [
        label_of(scorer.score(list(texts), [claim] * len(texts))) if texts else Label.NEUTRAL
        for claim, texts in zip(claims, segments)
    ]
    return [label_of(s.probs) for s in scored], exact, [s.indices for s in scored]


FILLER = [
    "The harbour froze in January and the ferries stopped running until the thaw.",
    "A new bakery opened on the corner, selling rye bread and cinnamon rolls.",
    "The orchestra rehearsed the symphony twice before the concert on Friday.",
    "Farmers planted barley early because the spring rains came in March.",
    "The museum added a wing for textiles woven by local artisans.",
    "Cyclists crowded the mountain pass during the summer race.",
]


def test_bm25_ranks_the_segment_that_shares_the_rare_words_first():
    segments = [*FILLER, "The company raised its quarterly dividend to 13 cents per share."]
    index = BM25Index(segments)
    scores = index.scores("The company increased its dividend per share.")
    assert int(np.argmax(scores)) == len(segments) - 1
    assert scores[1] == 0.0
    assert words("Increasing DIVIDENDS") == ["increa", "divide"]


def test_ranker_keeps_top_k_above_the_floor_with_ties_to_the_earlier_segment():
    claim = "The bakery sells rye bread."
    segments = ["rye bread here", "unrelated words only", "rye bread here", "bakery bakery rye bread sells"]
    kept = SegmentRanker(FastSettings(top_k=2)).keep([claim], [segments])[0]
    assert kept == [3, 0]
    everything = SegmentRanker(FastSettings(top_k=10)).keep([claim], [segments])[0]
    # the segment that shares no word with the claim is below the BM25 floor; the rest by score, ties to the earlier
    assert everything == [3, 0, 2]


def test_a_kept_deciding_segment_gives_the_exact_label():
    claim = "The company raised its dividend to 13 cents."
    decisive = "In March the company raised its dividend to 13 cents per share."
    segments = [*FILLER, decisive]
    scorer = StandInScorer({(decisive, claim): WEAKLY_ENTAILS})
    fast, exact, scored = fast_and_exact([claim], [segments], scorer, FastSettings(top_k=2))
    assert fast == exact == [Label.ENTAILMENT]
    assert len(scored[0]) <= 2


def test_a_pruned_deciding_segment_is_the_only_way_fast_differs():
    claim = "The company raised its dividend to 13 cents."
    decisive = "Payouts to holders went up by a tenth."  # entails (per the stand-in) but shares no word
    segments = [*FILLER, decisive, "The company met in March."]
    scorer = StandInScorer({(decisive, claim): ENTAILS})
    fast, exact, scored = fast_and_exact([claim], [segments], scorer, FastSettings(top_k=3))
    assert exact == [Label.ENTAILMENT]
    assert fast == [Label.NEUTRAL]
    assert segments.index(decisive) not in scored[0]


def test_early_exit_stops_a_claim_once_a_segment_entails_it_with_high_confidence():
    claim = "The company raised its dividend."
    segments = [
        "The company raised its dividend in March.",
        "The company dividend was raised again.",
        "The company said its dividend policy is unchanged.",
        "Its dividend, the company said, rose.",
    ]
    confident = StandInScorer({(segments[0], claim): ENTAILS})
    settings = FastSettings(top_k=4, first_round=1, round_size=1)
    kept = SegmentRanker(settings).keep([claim], [segments])
    assert kept[0][0] == 0
    rounds = RoundScorer(confident, settings)
    rounds.score([claim], [segments], kept)
    assert rounds.pairs_scored == 1 and len(confident.calls) == 1
    hesitant = StandInScorer({(segments[0], claim): WEAKLY_ENTAILS})
    rounds = RoundScorer(hesitant, settings)
    rounds.score([claim], [segments], kept)
    assert rounds.pairs_scored == 4 and len(hesitant.calls) == 4  # entailed, but not confidently: goes on


def test_each_round_is_one_call_for_all_claims_and_identical_pairs_are_scored_once():
    segments = ["Rye bread is sold at the bakery.", "The bakery opened in May.", "Bread prices rose."]
    claims = ["The bakery sells rye bread.", "The bakery sells rye bread.", "The bakery opened in May."]
    scorer = StandInScorer()
    rounds = RoundScorer(scorer, FastSettings(top_k=3, first_round=2, round_size=1))
    rounds.score(claims, [segments] * 3, SegmentRanker(FastSettings(top_k=3)).keep(claims, [segments] * 3))
    assert len(scorer.calls) == 2
    sent = [pair for call in scorer.calls for pair in call]
    assert len(sent) == len(set(sent)) == rounds.pairs_scored


@pytest.mark.parametrize("seed", range(5))
def test_fast_differs_from_exact_only_where_an_unscored_segment_decides(seed):
    generator = random.Random(seed)
    vocabulary = [
        "bread",
        "bakery",
        "rye",
        "company",
        "dividend",
        "share",
        "harbour",
        "ferry",
        "museum",
        "textile",
        "barley",
        "rain",
    ]
    claims, segments, table = [], [], {}
    for _ in range(30):
        claim = " ".join(generator.sample(vocabulary, 3))
        texts = [" ".join(generator.sample(vocabulary, 4)) + f" {n}" for n in range(generator.randint(0, 12))]
        for text in texts:
            table[(text, claim)] = generator.choice([ENTAILS, WEAKLY_ENTAILS, CONTRADICTS, NEUTRAL, NEUTRAL])
        claims.append(claim)
        segments.append(texts)
    scorer = StandInScorer(table)
    fast, exact, scored = fast_and_exact(claims, segments, scorer, FastSettings(top_k=4, first_round=1))
    differing = 0
    for claim, texts, fast_label, exact_label, indices in zip(claims, segments, fast, exact, scored):
        if fast_label == exact_label:
            continue
        differing += 1
        unscored = [table[(texts[i], claim)] for i in range(len(texts)) if i not in indices]
        assert any(LABELS[int(np.argmax(p))] == exact_label for p in unscored)
        assert exact_label is Label.ENTAILMENT or fast_label is Label.NEUTRAL
    assert sum(f == e for f, e in zip(fast, exact)) + differing == len(claims)


def test_the_same_input_gives_the_same_scored_segments_on_every_run():
    generator = random.Random(7)
    vocabulary = ["bread", "bakery", "rye", "company", "dividend", "share", "harbour", "ferry"]
    claims = [" ".join(generator.sample(vocabulary, 3)) for _ in range(10)]
    segments = [[" ".join(generator.sample(vocabulary, 2)) for _ in range(8)] for _ in claims]
    runs = []
    for _ in range(3):
        settings = FastSettings(top_k=3)
        kept = SegmentRanker(settings).keep(claims, segments)
        scored = RoundScorer(StandInScorer(), settings).score(claims, segments, kept)
        runs.append([(s.indices, s.probs.tolist()) for s in scored])
    assert runs[0] == runs[1] == runs[2]


def test_dense_relevance_needs_an_encoder():
    with pytest.raises(ValueError, match="bi-encoder"):
        SegmentRanker(FastSettings(relevance="dense"))


def test_segments_that_are_not_eligible_are_never_kept():
    claim = "The bakery sells rye bread."
    segments = ["bakery rye bread sells", "rye bread", "bakery"]
    kept = SegmentRanker(FastSettings(top_k=2)).keep([claim], [segments], [[False, True, True]])
    assert kept == [[1, 2]]


def make_checker(scorer, mode, **settings):
    from factscope.checkers.segmented import SegmentedChecker

    fast = FastSettings(**settings) if mode == "fast" else None
    return SegmentedChecker(scorer, plain_options(max_tokens=12, exact_scoring="every"), fast=fast)


def test_the_fast_checker_gives_exact_verdicts_when_the_deciding_segment_is_kept():
    from factscope.checkers.base import CheckTask

    claim = "The company raised its dividend to 13 cents."
    decisive = "In March the company raised its dividend to 13 cents per share."
    references = (" ".join(FILLER[:3]), f"{FILLER[3]} {decisive} {FILLER[4]}", FILLER[5])
    scorer = StandInScorer({(decisive, claim): WEAKLY_ENTAILS})
    tasks = [
        CheckTask(claim=claim, references=references),
        CheckTask(claim="Glaciers melted in Norway.", references=references),
    ]
    exact = make_checker(scorer, "exact").check(tasks)
    fast_scorer = StandInScorer({(decisive, claim): WEAKLY_ENTAILS})
    fast = make_checker(fast_scorer, "fast", top_k=2).check(tasks)
    assert [v.label for v in fast] == [v.label for v in exact] == [Label.ENTAILMENT, Label.NEUTRAL]
    assert fast[0].evidence_reference == exact[0].evidence_reference == 1
    assert fast[0].segment_span == exact[0].segment_span
    # no segment shares its content words: the closest one alone is scored, for exact mode's probabilities
    assert fast[1].rule == exact[1].rule == "relevance"
    assert fast[1].probs == exact[1].probs and fast[1].reason == exact[1].reason
    assert sum(map(len, fast_scorer.calls)) < sum(map(len, scorer.calls))


def test_a_claim_the_ranking_keeps_nothing_for_is_decided_by_its_most_relevant_counted_segment():
    from factscope.checkers.base import CheckTask

    claim = "The company raised its dividend to 13 cents."
    decisive = "In March the company raised its dividend to 13 cents per share."
    task = CheckTask(claim=claim, references=(f"{FILLER[0]} {decisive} {FILLER[1]}",))
    exact = make_checker(StandInScorer({(decisive, claim): ENTAILS}), "exact").check([task])
    scorer = StandInScorer({(decisive, claim): ENTAILS})
    fast = make_checker(scorer, "fast", top_k=2)
    fast._ranker.keep = lambda claims, texts, counted: [[] for _ in claims]  # a ranking that scores every segment 0
    verdict = fast.check([task])[0]
    assert verdict.label == exact[0].label == Label.ENTAILMENT and verdict.probs == exact[0].probs
    assert scorer.calls == [[(decisive, claim)]]  # one pair: the segment that shares most of the claim's words


def test_the_fast_checker_differs_only_where_a_pruned_segment_decides():
    from factscope.checkers.base import CheckTask

    claim = "The company raised its dividend to 13 cents."
    decisive = "The company board met; dividend news came later."  # counted, but ranks low for the claim
    strong = [f"The company raised its dividend to {n} cents per share." for n in (11, 12, 14)]
    references = (" ".join(strong), decisive)
    table = {(decisive, claim): ENTAILS}
    checker = make_checker(StandInScorer(table), "exact")
    assert len(checker.segments(references[0])) == 3
    exact = checker.check([CheckTask(claim=claim, references=references)])
    fast = make_checker(StandInScorer(table), "fast", top_k=2, escalate=False).check(
        [CheckTask(claim=claim, references=references)]
    )
    assert exact[0].label is Label.ENTAILMENT and exact[0].evidence_reference == 1
    assert fast[0].label is Label.NEUTRAL
    wide = make_checker(StandInScorer(table), "fast", top_k=4, escalate=False).check(
        [CheckTask(claim=claim, references=references)]
    )
    assert wide[0].label is Label.ENTAILMENT
    # with the default escalation the Neutral claim is scored against every counted segment: exact mode's label
    escalated = make_checker(StandInScorer(table), "fast", top_k=2).check(
        [CheckTask(claim=claim, references=references)]
    )
    assert escalated[0].label is Label.ENTAILMENT and escalated[0].fast_path == "exact"


def test_an_unknown_mode_is_refused():
    from factscope.checkers.segmented import SegmentedChecker
    from factscope.core.errors import ConfigError

    with pytest.raises(ConfigError, match="`mode` must be one of 'exact', 'fast', not 'quick'"):
        SegmentedChecker(StandInScorer(), plain_options(mode="quick"))


def test_the_results_manifest_records_the_mode_and_the_fast_settings():
    from factscope.core.files.manifest import describe

    fast = describe(make_checker(StandInScorer(), "fast", top_k=5))
    exact = describe(make_checker(StandInScorer(), "exact"))
    assert fast["mode"] == "fast" and fast["fast"]["top_k"] == 5
    assert exact["mode"] == "exact" and exact["fast"] is None


REPORT = (
    "Northwind Traders reported revenue of 4.2 billion dollars for the third quarter, up 8 percent from a year "
    "earlier. The board raised the quarterly dividend to 45 cents per share and approved a buyback of 500 million "
    "dollars. Chief executive Maria Lopez said demand in Europe stayed strong while sales in Asia slowed. The "
    "company expects full-year revenue between 16 and 17 billion dollars. Northwind opened two distribution centres "
    "in Poland during the quarter and plans a third in Spain next year. Operating margin fell to 11 percent because "
    "of higher freight costs. The company employs about 38,000 people in 30 countries."
)
TRAVEL = (
    "The coastal railway reopened in May after a year of repairs to the bridges washed out by winter storms. Trains "
    "now run every two hours between the harbour towns, and the journey takes just under three hours. Local "
    "businesses say visitor numbers have already returned to their level before the storms. The regional council "
    "paid for most of the work and plans to add a station near the new ferry terminal."
)


@pytest.mark.slow
def test_the_real_embedded_checker_gives_the_same_labels_in_both_modes():
    from factscope.checkers.base import CheckTask
    from factscope.checkers.embedded import load_embedded_scorer
    from factscope.checkers.segmented import SegmentedChecker

    references = (TRAVEL, REPORT, TRAVEL.replace("May", "June"))
    claims = [
        "Northwind raised its quarterly dividend to 45 cents per share.",
        "Northwind's operating margin rose to 15 percent.",
        "The coastal railway reopened after repairs.",
        "The company makes electric bicycles.",
    ]
    tasks = [CheckTask(claim=claim, references=references) for claim in claims]
    model = load_embedded_scorer()
    exact_scorer, fast_scorer = CountingScorer(model), CountingScorer(model)
    exact = SegmentedChecker(exact_scorer, plain_options(max_tokens=40, exact_scoring="every")).check(tasks)
    fast_checker = SegmentedChecker(fast_scorer, plain_options(max_tokens=40), fast=FastSettings(top_k=3))
    fast = fast_checker.check(tasks)
    assert [v.label for v in fast] == [v.label for v in exact]
    assert 0 < fast_scorer.pairs < exact_scorer.pairs
    assert fast_checker.check(tasks) == fast


class CountingScorer:
    """Passes pairs to a real scorer and counts them."""

    def __init__(self, scorer):
        self.scorer = scorer
        self.name = scorer.name
        self.pairs = 0

    def score(self, premises, hypotheses):
        self.pairs += len(premises)
        return self.scorer.score(premises, hypotheses)

    def count_tokens(self, text):
        return self.scorer.count_tokens(text)


def test_check_mode_fast_warns_and_checks_exactly_and_device_reaches_the_checker(app, tmp_path, monkeypatch):
    import json

    from typer.testing import CliRunner

    from factscope.checkers import embedded
    from factscope.core.files.manifest import manifest_path

    devices = []

    def stand_in(path=None, device="cpu", precision="fp32"):
        devices.append(device)
        return StandInScorer()

    monkeypatch.setattr(embedded, "load_embedded_scorer", stand_in)
    source = tmp_path / "in.jsonl"
    row = {"id": "a", "response": "Northwind raised its dividend.", "references": [REPORT, TRAVEL]}
    source.write_text(json.dumps(row) + "\n", encoding="utf-8")
    output = tmp_path / "out.jsonl"
    result = CliRunner().invoke(
        app,
        ["check", str(source), "-o", str(output), "--mode", "fast", "--device", "cpu"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert devices == ["cpu"]
    checker = json.loads(manifest_path(output).read_text(encoding="utf-8"))["settings"]["checker"]
    assert checker["mode"] == "exact"  # fast mode is folded into exact mode (its warning: test_cascade_systems)
    rerun = CliRunner().invoke(
        app, ["check", str(source), "-o", str(output), "--mode", "exact", "--device", "cpu"]
    )
    assert rerun.exit_code == 0 and len(output.read_text(encoding="utf-8").splitlines()) == 1  # resumed: the same run


def test_a_claim_near_entailment_is_escalated_and_given_exact_modes_verdict():
    from factscope.checkers.base import CheckTask

    claim = "The company raised its dividend to 13 cents."
    decisive = "The company board met; dividend news came later."  # counted, but ranks low for the claim
    strong = [f"The company raised its dividend to {n} cents per share." for n in (11, 12, 14)]
    references = (" ".join(strong), decisive)
    near = (0.35, 0.55, 0.1)  # 0.2 short of Entailment
    table = {(decisive, claim): ENTAILS, **{(text, claim): near for text in strong}}
    task = CheckTask(claim=claim, references=references)
    exact = make_checker(StandInScorer(table), "exact").check([task])[0]
    escalated = make_checker(StandInScorer(table), "fast", top_k=2).check([task])[0]
    assert escalated.label is exact.label is Label.ENTAILMENT and escalated.fast_path == "exact"
    assert (escalated.probs, escalated.segment_span, escalated.evidence) == (exact.probs, exact.segment_span,
                                                                              exact.evidence)
    pruned = make_checker(StandInScorer(table), "fast", top_k=2, escalate=False).check([task])[0]
    assert pruned.label is Label.NEUTRAL and pruned.fast_path == "pruned"
    narrow = make_checker(StandInScorer(table), "fast", top_k=2, exact_margin=0.1).check([task])[0]
    assert narrow.label is Label.NEUTRAL and narrow.fast_path == "pruned"  # 0.2 is outside a 0.1 margin
    assert exact.fast_path is None


class HashedScorer(StandInScorer):
    """Probabilities drawn from a hash of the pair: any pair has fixed, varied probabilities."""

    ROWS = (ENTAILS, WEAKLY_ENTAILS, CONTRADICTS, NEUTRAL, NEUTRAL, NEUTRAL, (0.3, 0.6, 0.1), (0.1, 0.5, 0.4))

    def score(self, premises, hypotheses):
        import zlib

        pairs = list(zip(premises, hypotheses))
        self.calls.append(pairs)
        rows = [self.ROWS[zlib.crc32(f"{p}|{h}".encode()) % len(self.ROWS)] for p, h in pairs]
        return np.array(rows, dtype=np.float64).reshape(-1, 3)


@pytest.mark.parametrize("seed", range(3))
def test_escalated_claims_always_get_exact_modes_label_and_a_full_margin_makes_fast_mode_exact(seed):
    from factscope.checkers.base import CheckTask

    generator = random.Random(seed)
    vocabulary = ["bread", "bakery", "rye", "company", "dividend", "share", "harbour", "ferry", "museum", "barley"]
    sentences = [" ".join(generator.sample(vocabulary, 4)).capitalize() + f" {n}." for n in range(40)]
    tasks = [
        CheckTask(
            claim=" ".join(generator.sample(vocabulary, 3)).capitalize() + ".",
            references=tuple(" ".join(generator.sample(sentences, 8)) for _ in range(2)),
        )
        for _ in range(20)
    ]
    exact = [v.label for v in make_checker(HashedScorer(), "exact").check(tasks)]
    fast = make_checker(HashedScorer(), "fast", top_k=3, first_round=1).check(tasks)
    assert all(v.label == e for v, e in zip(fast, exact) if v.fast_path == "exact")
    assert {v.fast_path for v in fast} == {"exact", "pruned"}
    full = make_checker(HashedScorer(), "fast", top_k=3, first_round=1, exact_margin=1.0).check(tasks)
    assert [v.label for v in full] == exact
    pruned = make_checker(HashedScorer(), "fast", top_k=3, first_round=1, escalate=False).check(tasks)
    assert [v.label for v in pruned] != exact  # the rule is needed here: pruning alone changes labels


def test_exact_margin_outside_zero_to_one_is_refused():
    with pytest.raises(ValueError, match="exact_margin"):
        FastSettings(exact_margin=1.5)


def test_an_entailment_the_value_check_overrules_is_escalated_to_exact_modes_strongest_window():
    from functools import partial

    from factscope.checkers.base import CheckTask
    from factscope.checkers.mismatch import find_mismatch
    from factscope.checkers.segmented import SegmentedChecker

    claim = "The company raised its dividend to 13 cents."
    wrong_value = "The company raised its dividend to 14 cents per share."  # ranks first, weakly entails
    right_value = "Its payout went up to 13 cents a share, the company said."  # pruned (top_k 1), entails
    table = {(wrong_value, claim): WEAKLY_ENTAILS, (right_value, claim): ENTAILS}
    task = CheckTask(claim=claim, references=(wrong_value, right_value))
    numbers = partial(find_mismatch, kinds=("number",))

    def checker(mode, **settings):
        fast = FastSettings(top_k=1, **settings) if mode == "fast" else None
        return SegmentedChecker(StandInScorer(table), plain_options(max_tokens=40), value_check=numbers, fast=fast)

    exact = checker("exact").check([task])[0]
    assert exact.label is Label.ENTAILMENT and exact.evidence_reference == 1
    pruned = checker("fast", escalate=False).check([task])[0]
    assert pruned.label is Label.CONTRADICTION and pruned.rule == "mismatch"
    escalated = checker("fast", exact_margin=0.0).check([task])[0]
    assert escalated.label is Label.ENTAILMENT and escalated.fast_path == "exact"
    assert escalated.evidence_reference == 1 and escalated.probs == exact.probs
