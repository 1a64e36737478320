"""A sentence's pronoun names the entity the text is about, never a noun inside an owned subject phrase; a sample
of benchmarks/pronoun_subjects.py on hand-written responses."""

import sys

import pytest

import repo_paths
from factscope.claims.clause_facts import ClauseFactExtractor
from factscope.claims.rule_triplets import RuleTripletExtractor
from factscope.hf.embedded import load_spacy

sys.path.insert(0, str(repo_paths.ROOT / "benchmarks"))
import pronoun_subjects
from pronoun_subjects import PronounResponse, judge, subject_verdict, summary

WEBB = (
    "The James Webb Space Telescope was launched in 2021. Its primary mirror is made of 18 hexagonal segments. "
    "It orbits the Earth at an altitude of about 570 kilometres."
)


@pytest.fixture(scope="module")
def rules():
    return RuleTripletExtractor(load_spacy())


@pytest.fixture(scope="module")
def facts(rules):
    return ClauseFactExtractor(rules.nlp)


def last_subjects(extractor, text):
    claims = extractor.extract([text])[0].claims
    last = max(i for c in claims for i in c.sentence_ids)
    return [c.triplet[0] for c in claims if last in c.sentence_ids]


def test_pronoun_after_an_owned_subject_names_the_owner(rules, facts):
    claims = rules.extract([WEBB])[0].claims
    assert [c.triplet for c in claims][-2:] == [
        ("The James Webb Space Telescope", "orbits", "the Earth"),
        ("The James Webb Space Telescope", "orbits the Earth at", "an altitude of about 570 kilometres"),
    ]
    assert [c.text for c in facts.extract([WEBB])[0].claims][-1] == (
        "The James Webb Space Telescope orbits the Earth at an altitude of about 570 kilometres."
    )


def test_pronoun_is_kept_when_the_owner_is_another_entity(rules):
    assert last_subjects(
        rules, "Pierre Curie was a physicist. His wife Marie was a chemist. She won a prize."
    ) == ["She"]
    assert last_subjects(rules, "The telescope's mirror is large. It orbits the Sun.") == ["It"]


def test_agreeing_possessive_leads_back_to_the_person(rules):
    text = "Einstein was born in Ulm. His father Hermann was a salesman. He moved to Munich."
    assert last_subjects(rules, text) == ["Einstein"]


def test_subject_of_a_subordinate_clause_is_not_an_antecedent(rules):
    text = (
        "Fifty Shades of Grey has attracted criticism, with some readers stating that the book confuses "
        "the practice with abuse. It is a 2011 erotic romance novel."
    )
    assert last_subjects(rules, text) == ["Fifty Shades of Grey"]


def test_clause_before_a_semicolon_and_a_title_with_my_are_antecedents(rules):
    text = "Pompeii has been a popular tourist destination for 250 years; it was on the Grand Tour. It is a ruin."
    assert last_subjects(rules, text) == ["Pompeii"]
    assert last_subjects(rules, 'My Fair Lady has been called "the perfect musical". It is a musical.') == [
        "My Fair Lady"
    ]


def test_subject_verdicts_on_hand_made_subjects():
    sentence = "It orbits the Earth after its launch."
    entity = "James Webb Space Telescope"
    assert subject_verdict("The James Webb Space Telescope", sentence, entity, "it") == "right"
    assert subject_verdict("It", sentence, entity, "it") == "kept"
    assert subject_verdict("Its primary mirror", sentence, entity, "it") == "wrong"
    assert subject_verdict("its launch", sentence, entity, "it") is None


def test_summary_share_is_wrong_over_judged():
    response = PronounResponse("X", "it", ("X is big.", "It is red."), False)
    rows = [
        (response, {"right": 5, "kept": 2, "wrong": 1, "unjudged": 4}),
        (response, dict.fromkeys(("right", "kept", "wrong", "unjudged"), 0)),
    ]
    figures = summary(rows)
    assert figures["judged_claims"] == 8
    assert figures["wrong_share"] == 0.125
    assert figures["responses_with_a_wrong_subject"] == 1


SAMPLE = [
    PronounResponse(
        "James Webb Space Telescope", "it", tuple(WEBB.split(". ")[:2]) + ("It orbits the Sun.",), True
    ),
    PronounResponse(
        "Marie Curie",
        "she",
        ("Marie Curie was born in Warsaw.", "Her father taught physics.", "She moved to Paris in 1891."),
        True,
    ),
    PronounResponse(
        "Nile",
        "it",
        ("The Nile flows through eleven countries.", "Its basin covers Egypt.", "It is 6,650 km long."),
        True,
    ),
    PronounResponse(
        "Beatles",
        "they",
        (
            "The Beatles were formed in Liverpool in 1960.",
            "Their first album was released in 1963.",
            "They split up in 1970.",
        ),
        True,
    ),
    PronounResponse(
        "Eiffel Tower",
        "it",
        (
            "The Eiffel Tower was completed in 1889, after engineers said that the design was unsafe.",
            "It is 330 metres tall.",
        ),
        False,
    ),
]


def test_benchmark_sample_has_no_wrong_subject(rules, facts):
    for name, extractor in (("rules", rules), ("facts", facts)):
        results = extractor.extract([r.text for r in SAMPLE])
        rows = [(r, judge(r, result.claims, name)) for r, result in zip(SAMPLE, results)]
        figures = summary(rows)
        assert figures["judged_claims"] >= len(SAMPLE), name
        assert figures["wrong"] == 0, (name, rows)


def test_benchmark_builds_a_response_from_evidence(rules):
    pool = {
        "Franklin was born in Boston.",
        "Benjamin Franklin's newspaper was widely read in the colonies.",
        "Benjamin Franklin became a printer in Philadelphia and he wrote almanacs.",
    }
    response = pronoun_subjects.build_response("Benjamin Franklin", pool, rules.nlp)
    assert response is not None
    assert response.pronoun == "he"
    assert response.sentences == (
        "Benjamin Franklin became a printer in Philadelphia and he wrote almanacs.",
        "His newspaper was widely read in the colonies.",
        "He was born in Boston.",
    )
