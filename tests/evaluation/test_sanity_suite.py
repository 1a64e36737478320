"""The sanity suite: each rewrite makes what it should and nothing unsafe, the generator is deterministic and
writes pairs eval-checker reads, and the shipped checker labels the suite's pairs Entailment."""

from __future__ import annotations

import json
import os

import pytest

from factscope.core.text import split_sentences
from factscope.evaluation.pairs import read_pairs
from factscope.evaluation.sanity import SANITY_KINDS, SanitySource, sanity_pairs, write_sanity_pairs
from factscope.evaluation.sanity_modifiers import modifier_drops
from factscope.evaluation.sanity_rewrites import clauses, passive, past_participle
from factscope.hf.embedded import load_spacy
from repo_paths import EXAMPLES

ENTAILMENT_FLOOR = 0.99
"""The least share of the sample's pairs the shipped checker must label Entailment at every reference length, in
its own layout (1- and 2-sentence windows) and with 1-sentence windows (``--window-sentences 1``): the issue's bar."""

TWO_SENTENCE_FLOOR = 0.95
"""The same with 2-sentence windows alone (``--window-sentences 2``): a copied sentence is always judged with a
neighbour, which now and then tips it."""

TOWN = (
    "Greywater is a small town on the northern bank of the Elm River. "
    "Farmers founded the settlement in 1802, and traders soon followed them. "
    "The first mill stood beside the old ford. "
    "In 1851 the town council approved a plan for a stone bridge. "
    "Local masons built the bridge over three summers. "
    "The bridge carried the main road across the river for a century. "
    "A railway company opened a station in Greywater in 1874. "
    "The station brought new trade to the market square. "
    "Merchants built large warehouses near the tracks. "
    "The town grew quickly during the following decades. "
    "A fire destroyed the eastern quarter in 1903. "
    "Volunteers rebuilt most of the houses within two years. "
    "The council founded a public library in 1910. "
    "A wealthy miller donated the building and its first books. "
    "The library still lends books to the people of the valley. "
    "During the 1930s, the mill closed and many families left. "
    "The railway stopped its passenger service in 1962. "
    "Historians restored the old station in 1995, and it now houses a museum. "
    "The museum displays tools, maps and photographs of the early town. "
    "Visitors often walk along the river to the stone bridge. "
    "Today about four thousand people live in Greywater. "
    "The town holds a harvest fair every October."
)
LAB = (
    "The research team tested a new vaccine on two hundred volunteers. "
    "The volunteers received two doses four weeks apart. "
    "Nurses recorded mild side effects in twelve participants. "
    "No participant needed hospital care. "
    "The team published its results in a medical journal; other groups later confirmed them. "
    "Regulators reviewed the data carefully, and the agency approved the vaccine in March."
)


@pytest.fixture(scope="module")
def nlp():
    return load_spacy()


def test_voice_change_of_a_simple_sentence(nlp):
    assert passive(nlp("The committee approved the plan.")) == "The plan was approved by the committee."
    assert passive(nlp("She wrote the letters.")) == "The letters were written by her."
    assert passive(nlp("Local masons quickly built the bridge.")) == "The bridge was quickly built by local masons."


@pytest.mark.parametrize(
    "sentence",
    [
        "The committee did not approve the plan.",  # an auxiliary and a negation
        "The plan was approved by the committee.",  # already passive
        "The committee approves the plan.",  # not the past tense
        "If the committee approved the plan, the work began.",  # a condition
        "He had a car.",  # a verb without a natural passive
    ],
)
def test_voice_change_is_skipped_where_unsafe(nlp, sentence):
    assert passive(nlp(sentence)) is None


def test_past_participles():
    assert [past_participle(word) for word in ("approved", "wrote", "took", "built", "Gave")] == [
        "approved",
        "written",
        "taken",
        "built",
        "Given",
    ]


def test_clauses_of_coordinated_and_semicolon_sentences(nlp):
    assert clauses(nlp("The company sold its old unit, and the board approved a new strategy.")) == [
        "The company sold its old unit.",
        "The board approved a new strategy.",
    ]
    assert clauses(nlp("The team published its results; other groups later confirmed them.")) == [
        "The team published its results.",
        "Other groups later confirmed them.",
    ]
    assert "The museum opened in June." in clauses(nlp("The library closed in May, but the museum opened in June."))


@pytest.mark.parametrize(
    "sentence",
    [
        "The committee approved the plan.",  # one clause
        "If it rains, the match is cancelled and the fans go home.",  # a condition
        "The town sold apples, pears and plums.",  # a list, not clauses
        "The fans may stay or the match is cancelled.",  # "or" does not give both
    ],
)
def test_no_clause_where_none_holds_alone(nlp, sentence):
    assert clauses(nlp(sentence)) == []


def test_modifiers_dropped(nlp):
    drops = dict(modifier_drops(nlp("The engineers quickly built two new bridges in the valley.")))
    assert drops["The engineers built two new bridges in the valley."] == "quickly"
    assert drops["The engineers quickly built two bridges in the valley."] == "new"
    drops = dict(modifier_drops(nlp("Police arrested the suspect at the station.")))
    assert drops == {"Police arrested the suspect.": "at the station"}
    drops = dict(modifier_drops(nlp("The plan, however, was widely criticised by local residents.")))
    assert drops["The plan was widely criticised by local residents."] == "however"


@pytest.mark.parametrize(
    "sentence",
    [
        "The committee did not approve the expensive plan.",
        "No red car was sold in the town.",
        "The council never funded the old library.",
        "Every large house was painted white.",
        "The first day of continuous negative tests came late.",
        "Can you tell me about your new prices?",
    ],
)
def test_no_modifier_is_dropped_under_negations_quantifiers_or_in_questions(nlp, sentence):
    assert modifier_drops(nlp(sentence)) == []


@pytest.mark.parametrize(
    ("sentence", "kept"),
    [
        ("He almost finished the long race in the park.", "almost"),
        ("The former mayor opened the new museum.", "former"),
        ("The team partially repaired the old bridge.", "partially"),
    ],
)
def test_modifiers_that_change_the_claim_are_kept(nlp, sentence, kept):
    drops = modifier_drops(nlp(sentence))
    assert drops and all(kept in shorter for shorter, _ in drops)


def test_numbers_and_negations_are_never_dropped(nlp):
    sentence = "The busy firm hired 20 new engineers in 2019 and 3 skilled nurses in Berlin."
    for shorter, _ in modifier_drops(nlp(sentence)):
        for number in ("20", "2019", "3"):
            assert number in shorter
    assert modifier_drops(nlp("The firm did not hire new engineers in Berlin.")) == []


def test_generator_makes_every_kind_at_every_length(nlp):
    pairs = sanity_pairs([SanitySource("town", TOWN), SanitySource("lab", LAB)], seed=3, nlp=nlp)
    town = [pair for pair in pairs if pair.source == "town"]
    assert {(pair.kind, pair.reference_sentences) for pair in town} == {
        (kind, length) for kind in SANITY_KINDS for length in (1, 2, 5, 20)
    }
    assert max(pair.reference_sentences for pair in pairs if pair.source == "lab") == 5
    sentences = split_sentences(TOWN)
    for pair in pairs:
        assert pair.label == "entailment" and pair.group == pair.source
        assert len(split_sentences(pair.premise)) == pair.reference_sentences
        source = TOWN if pair.source == "town" else LAB
        assert pair.premise in source
        assert split_sentences(source)[pair.sentence] in pair.premise
        if pair.kind == "verbatim":
            assert pair.hypothesis in pair.premise
        else:
            assert pair.hypothesis not in split_sentences(source) and pair.edit
    assert any(pair.hypothesis == sentences[pair.sentence] for pair in town if pair.kind == "verbatim")


def test_generator_is_deterministic_and_written_for_eval_checker(nlp, tmp_path):
    sources = [SanitySource("town", TOWN), SanitySource("lab", LAB)]
    first = sanity_pairs(sources, seed=7, nlp=nlp)
    assert first == sanity_pairs(sources, seed=7, nlp=nlp)
    assert write_sanity_pairs(tmp_path / "sanity.jsonl", first) == len(first)
    read, skipped = read_pairs(tmp_path / "sanity.jsonl")
    assert not skipped and [pair.id for pair in read] == [pair.id for pair in first]
    assert {pair.dataset for pair in read} >= {"sanity-verbatim-1", "sanity-passive-20"}
    record = json.loads((tmp_path / "sanity.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert {"kind", "reference_sentences", "source", "sentence", "edit"} <= set(record)


def _example_sources() -> list[SanitySource]:
    """The project's example references and knowledge passages, one source each."""
    texts: dict[str, str] = {}
    for line in (EXAMPLES / "check.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for index, text in enumerate(record.get("references") or [record["reference"]]):
            texts.setdefault(text, f"check-{record['id']}-{index}")
    for line in (EXAMPLES / "knowledge" / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        texts.setdefault(record["text"], f"knowledge-{record['id']}")
    return [SanitySource(source_id, text) for text, source_id in texts.items()]


def test_shipped_checker_labels_the_sample_entailment(nlp):
    from factscope.checkers.registry import make_checker
    from factscope.evaluation.sanity_scores import score_sanity

    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    copies = [SanitySource(f"{name}-{n}", text) for n in range(4) for name, text in (("town", TOWN), ("lab", LAB))]
    pairs = sanity_pairs([*copies, *_example_sources()], nlp=nlp)  # each copy draws its own sentences
    layouts = (({}, ENTAILMENT_FLOOR), ({"window_sentences": 1}, ENTAILMENT_FLOOR), ({"window_sentences": 2}, TWO_SENTENCE_FLOOR))
    for layout, floor in layouts:
        report = score_sanity(make_checker("embedded", **layout), pairs)
        assert {row.reference_sentences for row in report.by_length} == {1, 2, 5, 20}
        assert report.lowest_length_share is not None
        assert report.lowest_length_share >= floor, (layout, report.by_length)
