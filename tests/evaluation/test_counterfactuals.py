"""The counterfactual pair generator: each kind of edit, its label, its groups and its determinism."""

import json
import re
import subprocess
import sys
from types import SimpleNamespace

import pytest

import repo_paths
from factscope.evaluation.counterfactuals import KINDS, Source, counterfactual_pairs
from factscope.evaluation.pairs import read_pairs

REPO = repo_paths.ROOT
COMMITTED = REPO / "benchmarks" / "data" / "counterfactual_pairs.jsonl"

SOURCES = [
    Source(
        "curie", "Marie Curie was born in Warsaw in 1867. She married the physicist Pierre Curie in 1895."
    ),
    Source(
        "python",
        "Python is a programming language. It was created by Guido van Rossum and first released in 1991.",
    ),
    Source(
        "tramway",
        "The Harbour Line tramway was opened in 1894. It had eleven stations and carried 2,400 passengers a day.",
    ),
    Source("final", "In the cup final, Emma Varga defeated Tomas Lind by two sets to one."),
    Source("harrow", "Eliza Harrow was a British engineer who built canals."),
    Source("viaduct", "The Kessel viaduct was never opened to road traffic."),
    Source("owl", "The marsh owl feeds mainly on rodents and hunts at dusk over open grassland."),
    Source("lisbon", "Lisbon is the capital of Portugal and its largest city."),
    Source(
        "lenne",
        "The Lenne valley is a wine-growing region. Its villages hold a harvest festival every October.",
    ),
]


@pytest.fixture(scope="module")
def pairs():
    return counterfactual_pairs(SOURCES, seed=3)


def _of(pairs, kind, group=None):
    return [pair for pair in pairs if pair.kind == kind and (group is None or pair.group == group)]


def test_every_kind_is_made_with_its_documented_label(pairs):
    labels = {
        "faithful": {"entailment"},
        "number": {"contradiction"},
        "date": {"contradiction"},
        "entity": {"contradiction", "neutral"},
        "negation": {"contradiction"},
        "role": {"not_entailment"},
        "unrelated": {"neutral"},
        "long-premise": {"entailment", "contradiction"},
    }
    assert set(labels) == set(KINDS)
    for kind, allowed in labels.items():
        made = _of(pairs, kind)
        assert made, f"no {kind} pair"
        assert {pair.label for pair in made} <= allowed, kind
        assert {pair.dataset for pair in made} == {f"counterfactual-{kind}"}


def test_faithful_pairs_are_the_premise_sentences(pairs):
    for pair in _of(pairs, "faithful"):
        assert pair.hypothesis in pair.premise


def test_edits_change_the_fact_and_leave_no_copy_in_the_premise(pairs):
    for pair in pairs:
        if pair.label in ("contradiction", "not_entailment") and pair.kind != "long-premise":
            assert pair.hypothesis not in pair.premise, pair


def test_a_number_swap_gives_a_value_the_premise_does_not_state(pairs):
    (swap,) = _of(pairs, "number", "tramway")
    old, new = swap.edit.split(" -> ")
    assert old in ("eleven", "2,400") and new != old
    assert not re.search(rf"\b{re.escape(new)}\b", swap.premise)
    assert swap.hypothesis.replace(new, old, 1) in swap.premise


def test_a_year_is_shifted_when_it_dates_a_one_off_event(pairs):
    shifted = {pair.edit.split(" -> ")[0] for pair in _of(pairs, "date")}
    assert {"1867", "1991"} <= shifted
    for pair in _of(pairs, "date"):
        old, new = pair.edit.split(" -> ")
        assert new != old and new not in pair.premise


def test_an_identifying_or_bounding_date_and_a_bound_number_are_left_alone():
    sources = [
        Source("census", "The village had 1,450 inhabitants at the 2011 census."),
        Source("bound", "The bridge was finished by 1902 after more than 40 years of work."),
        Source("apollo", "Apollo 11 was launched from Florida."),
    ]
    made = counterfactual_pairs(sources, kinds=("date", "number"))
    assert [pair.edit.split(" -> ")[0] for pair in made if pair.group == "census"] == ["1,450"]
    assert [pair.group for pair in made if pair.group != "census"] == []


def test_a_birthplace_swap_contradicts_and_a_described_subject_swap_is_neutral(pairs):
    by_group = {pair.group: pair for pair in _of(pairs, "entity")}
    born = by_group["curie"]
    assert born.label == "contradiction" and born.edit.startswith("Warsaw -> ")
    new = born.edit.split(" -> ")[1]
    assert new not in born.premise
    described = by_group["harrow"]
    assert described.label == "neutral" and described.edit.startswith("Eliza Harrow -> ")


def test_negation_is_put_on_or_taken_off_the_main_verb(pairs):
    hypotheses = {pair.hypothesis for pair in _of(pairs, "negation")}
    assert "Python is not a programming language." in hypotheses
    assert "The Kessel viaduct was opened to road traffic." in hypotheses
    assert "She did not marry the physicist Pierre Curie in 1895." in hypotheses


def test_a_role_swap_exchanges_subject_and_object(pairs):
    (swap,) = _of(pairs, "role", "final")
    assert swap.hypothesis == "In the cup final, Tomas Lind defeated Emma Varga by two sets to one."


def test_unrelated_and_long_premises_share_no_name_with_the_fact(pairs):
    premises = {source.premise for source in SOURCES}
    for pair in _of(pairs, "unrelated"):
        own = next(source.premise for source in SOURCES if source.id == pair.group)
        assert pair.premise in premises and pair.premise != own
        names = set(re.findall(r"(?<!^)\b[A-Z][a-z]+", pair.hypothesis))
        assert not names & set(re.findall(r"\b[A-Z][a-z]+", pair.premise)), pair
    for pair in _of(pairs, "long-premise"):
        own = next(source.premise for source in SOURCES if source.id == pair.group)
        assert own in pair.premise and len(pair.premise) > len(own)


def test_groups_are_the_source_ids_or_their_given_group(pairs):
    assert {pair.group for pair in pairs} <= {source.id for source in SOURCES}
    grouped = counterfactual_pairs(
        [Source("a", SOURCES[0].premise, group="claim-7"), Source("b", SOURCES[1].premise, group="claim-7")]
    )
    assert {pair.group for pair in grouped} == {"claim-7"}
    assert len({pair.id for pair in grouped}) == len(grouped)


def test_the_same_seed_gives_the_same_pairs(pairs):
    again = counterfactual_pairs(SOURCES, seed=3)
    assert [pair.model_dump() for pair in again] == [pair.model_dump() for pair in pairs]
    assert len({pair.id for pair in pairs}) == len(pairs)


def test_a_source_keeps_its_pairs_when_another_is_added(pairs):
    extra = Source("glory", '"The Glory of Love" is a song written by Billy Hill in 1936.')
    more = counterfactual_pairs([*SOURCES, extra], seed=3, kinds=("faithful", "number", "date", "negation"))
    fewer = counterfactual_pairs(SOURCES, seed=3, kinds=("faithful", "number", "date", "negation"))
    assert [p for p in more if p.group != "glory"] == fewer


def test_facts_given_with_a_source_are_edited_only_where_the_premise_states_the_value():
    source = Source(
        "given",
        "The tower, finished in 1889 for the fair, is 330 metres tall.",
        facts=("The tower is 330 metres tall.", "The tower has 1,665 steps."),
    )
    made = counterfactual_pairs([source], kinds=("faithful", "number"))
    assert {pair.hypothesis for pair in made if pair.kind == "faithful"} == set(source.facts)
    numbers = [pair for pair in made if pair.kind == "number"]
    assert [pair.edit.split(" -> ")[0] for pair in numbers] == ["330"]


def test_repeated_source_ids_are_refused():
    with pytest.raises(ValueError, match="unique"):
        counterfactual_pairs([SOURCES[0], SOURCES[0]])


def test_the_committed_evaluation_file_is_read_by_the_pair_reader():
    read, errors = read_pairs(COMMITTED)
    assert errors == [] and len(read) > 300
    rows = [json.loads(line) for line in COMMITTED.read_text(encoding="utf-8").splitlines()]
    assert {row["dataset"] for row in rows} == {f"counterfactual-{kind}" for kind in KINDS}
    assert all(row["group"].startswith(("examples-", "hard-pairs-")) for row in rows)


@pytest.mark.slow
def test_the_committed_evaluation_file_is_up_to_date():
    script = REPO / "benchmarks" / "make_counterfactual_pairs.py"
    command = [sys.executable, str(script), "--check"]
    done = subprocess.run(command, check=False, capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr


def test_capping_a_kind_keeps_a_seeded_sample_in_order():
    sys.path.insert(0, str(REPO / "benchmarks"))
    from make_counterfactual_pairs import capped

    pairs = [
        SimpleNamespace(id=f"{kind}{i}", kind=kind) for kind, count in (("negation", 6), ("number", 3)) for i in range(count)
    ]
    kept = capped(pairs, {"negation": 2}, seed=0)
    negations = [pair.id for pair in kept if pair.kind == "negation"]
    assert len(negations) == 2 and negations == sorted(negations)
    assert [pair.id for pair in kept if pair.kind == "number"] == ["number0", "number1", "number2"]
    assert [pair.id for pair in capped(pairs, {"negation": 2}, seed=0)] == [pair.id for pair in kept]
