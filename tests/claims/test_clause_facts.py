"""ClauseFactExtractor on the packaged spaCy English model: atomic facts per construction (Truly Ground A.3)."""

import pytest

from factscope.claims.clause_facts import ClauseFactExtractor, as_sentence, proposition_facts
from factscope.claims.dependency import Proposition, third_person
from factscope.hf.embedded import load_spacy


@pytest.fixture(scope="session")
def extractor():
    return ClauseFactExtractor(load_spacy())


def facts(extractor, text):
    return [claim.text for claim in extractor.extract([text])[0].claims]


def test_core_fact_and_one_fact_per_attachment(extractor):
    assert facts(extractor, "Apple was founded by Steve Jobs in 1976.") == [
        "Apple was founded.",
        "Apple was founded by Steve Jobs.",
        "Apple was founded in 1976.",
    ]


def test_seed_003_examples(extractor):
    # Sentences of Truly Ground appendix A.3; the paper's InstructGPT facts are in the comments.
    ipl = (
        "The Indian Premier League (IPL) (also known as the TATA IPL for sponsorship reasons) is a men's "
        "Twenty20 (T20) cricket league that is annually held in India and contested by ten city-based "
        "franchise teams."
    )
    assert facts(extractor, ipl) == [
        "The Indian Premier League (IPL) is known.",
        "The Indian Premier League (IPL) is known as the TATA IPL.",  # Fact 4
        "The Indian Premier League (IPL) is known for sponsorship reasons.",  # Fact 5
        "The Indian Premier League (IPL) is a men's Twenty20 (T20) cricket league.",  # Fact 1
        "The Indian Premier League (IPL) is annually held.",
        "The Indian Premier League (IPL) is annually held in India.",  # Fact 2
        "The Indian Premier League (IPL) is contested.",
        "The Indian Premier League (IPL) is contested by ten city-based franchise teams.",  # Fact 3
    ]
    season = "The first season was due to start in April 2008 in a 'high-profile ceremony' in New Delhi."
    assert facts(extractor, season) == [
        "The first season was due to start.",  # Fact 1
        "The first season was due to start in April 2008.",  # Fact 2
        "The first season was due to start in a 'high-profile ceremony' in New Delhi.",  # Facts 3 and 4 merged
    ]


def test_core_facts_off_keeps_only_attached_facts():
    extractor = ClauseFactExtractor(load_spacy(), core_facts=False)
    assert facts(extractor, "Apple was founded by Steve Jobs in 1976.") == [
        "Apple was founded by Steve Jobs.",
        "Apple was founded in 1976.",
    ]


def test_appositive_and_coordinated_attachments(extractor):
    assert facts(extractor, "Marie Curie, a Polish chemist, won the Nobel Prize in 1903 and 1911.") == [
        "Marie Curie was Polish.",
        "Marie Curie was a chemist.",
        "Marie Curie won the Nobel Prize.",
        "Marie Curie won the Nobel Prize in 1903.",
        "Marie Curie won the Nobel Prize in 1911.",
    ]


def test_nationality_is_its_own_fact(extractor):
    # Truly Ground: "Napoleon is a French general" decomposes into "Napoleon is French." and "Napoleon is a general."
    assert facts(extractor, "Napoleon is a French general.") == [
        "Napoleon is French.",
        "Napoleon is a general.",
    ]
    unsplit = ClauseFactExtractor(load_spacy(), split_nationality=False)
    assert facts(unsplit, "Napoleon is a French general.") == ["Napoleon is a French general."]
    assert facts(extractor, "The English Premier League is a football league.") == [
        "The English Premier League is a football league."
    ]


def test_relative_clause_becomes_a_standalone_fact(extractor):
    assert facts(extractor, "The Eiffel Tower, which was completed in 1889, is 330 metres tall.") == [
        "The Eiffel Tower was completed.",
        "The Eiffel Tower was completed in 1889.",
        "The Eiffel Tower is 330 metres tall.",
    ]


def test_participle_clause_takes_the_subject_and_tense(extractor):
    assert facts(extractor, "Born in Ulm, Einstein moved to Berlin.") == [
        "Einstein was born.",
        "Einstein was born in Ulm.",
        "Einstein moved.",
        "Einstein moved to Berlin.",
    ]


def test_coordinated_subjects_agree_with_the_verb(extractor):
    assert facts(extractor, "Apple and Google make phones.") == [
        "Apple makes phones.",
        "Google makes phones.",
    ]


def test_coordinated_verbs_and_pronoun_resolution(extractor):
    text = "Einstein developed relativity and won the Nobel Prize. He died in 1955."
    claims = extractor.extract([text])[0].claims
    assert [c.text for c in claims] == [
        "Einstein developed relativity.",
        "Einstein won the Nobel Prize.",
        "Einstein died.",
        "Einstein died in 1955.",
    ]
    assert [c.sentence_ids for c in claims] == [[0], [0], [1], [1]]
    assert {c.kind for c in claims} == {"fact"}
    assert text[claims[3].spans[0].start : claims[3].spans[0].end] == "He died in 1955"


def test_negated_clause_keeps_negation_with_its_attachment(extractor):
    assert facts(extractor, "Tesla was not founded by Elon Musk.") == ["Tesla was not founded by Elon Musk."]


def test_copula_with_only_a_place_has_no_bare_core(extractor):
    assert facts(extractor, "Paris, the capital of France, is on the Seine.") == [
        "Paris is the capital of France.",
        "Paris is on the Seine.",
    ]


def test_unread_statement_is_kept_whole_and_speaker_talk_dropped(extractor):
    claims = extractor.extract(["There are three moons. I hope this helps!"])[0].claims
    assert [(c.text, c.kind, c.sentence_ids) for c in claims] == [("There are three moons.", "fact", [0])]


@pytest.mark.parametrize("text", ["", "I don't know.", "Sorry, I cannot answer that. Who knows?"])
def test_abstention_and_empty_text(extractor, text):
    extraction = extractor.extract([text])[0]
    assert extraction.claims == []
    assert not extraction.failed


def test_long_response_in_a_batch(extractor):
    long_text = " ".join(
        f"Company {n} was founded in {1800 + n} by Anna Berg. It makes phones and tablets."
        for n in range(400)
    )
    assert len(long_text.split()) >= 5000
    results = extractor.extract(["Berlin is big.", long_text])
    texts = [c.text for c in results[1].claims]
    assert "Company 399 was founded in 2199." in texts
    assert "Company 399 makes phones." in texts
    assert len(set(texts)) == len(texts)
    assert [c.text for c in results[0].claims] == ["Berlin is big."]


def test_proposition_facts_by_hand():
    proposition = Proposition("the ICL", "was founded", "", (("in", "2007"), ("with", "funding")))
    assert proposition_facts(proposition) == [
        "The ICL was founded.",
        "The ICL was founded in 2007.",
        "The ICL was founded with funding.",
    ]
    assert as_sentence("iOS", "is", "") == "IOS is."


@pytest.mark.parametrize(
    ("plural", "singular"),
    [
        ("make", "makes"),
        ("have led", "has led"),
        ("are", "is"),
        ("teach", "teaches"),
        ("fly", "flies"),
        ("play", "plays"),
        ("do not sell", "does not sell"),
    ],
)
def test_third_person_agreement(plural, singular):
    assert third_person(plural) == singular
