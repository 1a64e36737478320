"""RuleTripletExtractor on the packaged spaCy English model: one test per construction."""

import pytest

from factscope.claims.dependency import Proposition, clean_phrase
from factscope.claims.rule_triplets import RuleTripletExtractor, proposition_triplets
from factscope.hf.embedded import load_spacy


@pytest.fixture(scope="session")
def extractor():
    return RuleTripletExtractor(load_spacy())


def triplets(extractor, text):
    return [claim.triplet for claim in extractor.extract([text])[0].claims]


def test_subject_verb_object_keeps_negation_in_predicate(extractor):
    assert triplets(extractor, "Einstein did not win the Nobel Prize.") == [
        ("Einstein", "did not win", "the Nobel Prize"),
    ]


def test_negated_clause_with_attachment_keeps_only_the_attached_triplet(extractor):
    assert triplets(extractor, "Einstein did not win the Nobel Prize in 1905.") == [
        ("Einstein", "did not win the Nobel Prize in", "1905"),
    ]


def test_object_and_attachment_give_two_triplets(extractor):
    assert triplets(extractor, "Einstein won the Nobel Prize in 1921.") == [
        ("Einstein", "won", "the Nobel Prize"),
        ("Einstein", "won the Nobel Prize in", "1921"),
    ]


def test_particle_and_contracted_negation(extractor):
    assert triplets(extractor, "Marie gave up smoking.") == [("Marie", "gave up", "smoking")]
    assert triplets(extractor, "Marie didn't give up chemistry.") == [
        ("Marie", "didn't give up", "chemistry")
    ]


def test_passive_voice_keeps_patient_as_subject_and_expands_agents(extractor):
    assert triplets(extractor, "Apple was founded by Steve Jobs and Steve Wozniak in 1976.") == [
        ("Apple", "was founded by", "Steve Jobs"),
        ("Apple", "was founded by", "Steve Wozniak"),
        ("Apple", "was founded in", "1976"),
    ]


def test_seed_004_figure_1_sentence(extractor):
    # the parser splits the agent: "by the English new wave band" + direct object "A Flock of Seagulls"
    text = (
        "The song 'I Ran (So Far Away)' was originally performed by the English new wave band "
        "A Flock of Seagulls in 1983."
    )
    assert triplets(extractor, text) == [
        ("The song", "was", "I Ran (So Far Away)"),
        ("The song", "was originally performed by", "the English new wave band A Flock of Seagulls"),
        ("The song", "was originally performed in", "1983"),
    ]


def test_copula_and_appositive(extractor):
    assert triplets(extractor, "Paris, the capital of France, is a large city.") == [
        ("Paris", "is", "the capital of France"),
        ("Paris", "is", "a large city"),
    ]
    assert triplets(extractor, "Berlin is big.") == [("Berlin", "is", "big")]


def test_prepositional_objects_with_numbers_and_places(extractor):
    assert triplets(extractor, "Einstein was born in 1879 in Ulm.") == [
        ("Einstein", "was born in", "1879"),
        ("Einstein", "was born in", "Ulm"),
    ]


def test_date_keeps_its_year_and_a_place_keeps_its_country(extractor):
    assert triplets(extractor, "Einstein was born on March 14, 1879 in Ulm, Germany.") == [
        ("Einstein", "was born on", "March 14, 1879"),
        ("Einstein", "was born in", "Ulm, Germany"),
    ]


def test_numbers_as_objects(extractor):
    assert triplets(extractor, "The Eiffel Tower, which was completed in 1889, is 330 metres tall.") == [
        ("The Eiffel Tower", "was completed in", "1889"),
        ("The Eiffel Tower", "is", "330 metres tall"),
    ]


def test_coordinated_subjects_and_objects_expand(extractor):
    assert triplets(extractor, "Apple and Google make phones and tablets.") == [
        ("Apple", "make", "phones"),
        ("Apple", "make", "tablets"),
        ("Google", "make", "phones"),
        ("Google", "make", "tablets"),
    ]


def test_coordinated_verbs_share_the_subject_and_pronouns_resolve(extractor):
    text = "Einstein was born in Ulm. He developed relativity and won the Nobel Prize."
    claims = extractor.extract([text])[0].claims
    assert [c.triplet for c in claims] == [
        ("Einstein", "was born in", "Ulm"),
        ("Einstein", "developed", "relativity"),
        ("Einstein", "won", "the Nobel Prize"),
    ]
    assert [c.sentence_ids for c in claims] == [[0], [1], [1]]


def test_it_and_they_resolve_to_fitting_subjects(extractor):
    assert triplets(extractor, "The Eiffel Tower was built in 1889. It is 330 metres tall.") == [
        ("The Eiffel Tower", "was built in", "1889"),
        ("The Eiffel Tower", "is", "330 metres tall"),
    ]
    assert triplets(extractor, "Apple and Google make phones. They compete in many markets.") == [
        ("Apple", "makes", "phones"),
        ("Google", "makes", "phones"),
        ("Apple", "competes in", "many markets"),
        ("Google", "competes in", "many markets"),
    ]


def test_she_skips_a_subject_that_is_not_a_person(extractor):
    text = "Marie Curie studied in Paris. The city was large. She died in 1934."
    assert triplets(extractor, text)[-1] == ("Marie Curie", "died in", "1934")


def test_pronoun_resolution_can_be_turned_off():
    extractor = RuleTripletExtractor(load_spacy(), resolve_pronouns=False)
    assert extractor.extract(["Einstein was born in Ulm. He died in 1955."])[0].claims[-1].triplet == (
        "He",
        "died in",
        "1955",
    )


def test_coordinated_verbs_share_a_modal(extractor):
    text = "Finally, the FDA will conduct workshops, issue guidance manuals and videotapes, and hold teleconferences."
    assert triplets(extractor, text) == [
        ("the FDA", "will conduct", "workshops"),
        ("the FDA", "will issue", "guidance manuals"),
        ("the FDA", "will issue", "videotapes"),
        ("the FDA", "will hold", "teleconferences"),
    ]


def test_coordination_word_is_trimmed_from_a_phrase(extractor):
    text = "This site includes a list of all award winners and a searchable database of articles."
    assert triplets(extractor, text) == [
        ("This site", "includes", "a list of all award winners"),
        ("This site", "includes", "a searchable database of articles"),
    ]


def test_pronoun_without_named_antecedent_is_kept(extractor):
    assert triplets(extractor, "He gave up smoking.") == [("He", "gave up", "smoking")]


def test_relative_clauses(extractor):
    assert triplets(extractor, "Marie Curie, who discovered radium, was Polish.") == [
        ("Marie Curie", "discovered", "radium"),
        ("Marie Curie", "was", "Polish"),
    ]
    assert triplets(extractor, "Born in Ulm, Einstein moved to Berlin, where he worked until 1933.") == [
        ("Einstein", "was born in", "Ulm"),
        ("Einstein", "moved to", "Berlin"),
        ("Einstein", "worked in", "Berlin"),
        ("Einstein", "worked until", "1933"),
    ]


def test_contracted_auxiliaries_are_written_out(extractor):
    assert triplets(extractor, "Berlin is big. It's been a capital since 1871. They're not rivals.") == [
        ("Berlin", "is", "big"),
        ("Berlin", "has been", "a capital"),
        ("Berlin", "has been a capital since", "1871"),
        ("They", "are not", "rivals"),
    ]


def test_undated_participle_takes_the_sentence_tense(extractor):
    assert triplets(extractor, "The reef, located off the coast of Queensland, is huge.") == [
        ("The reef", "is located off", "the coast of Queensland"),
        ("The reef", "is", "huge"),
    ]


def test_coordinated_participles_share_the_added_copula(extractor):
    text = "The Palais-Royal, built for Richelieu in 1639 and originally named Palais-Cardinal, is in Paris."
    assert triplets(extractor, text) == [
        ("The Palais-Royal", "was built for", "Richelieu"),  # dated event: past
        ("The Palais-Royal", "was built in", "1639"),
        ("The Palais-Royal", "is named", "Palais-Cardinal"),  # undated: tense of "is in Paris"
        ("The Palais-Royal", "is in", "Paris"),
    ]


def test_clause_on_a_predicate_noun_is_about_the_subject(extractor):
    assert triplets(extractor, "Python is a programming language that was created by Guido van Rossum.") == [
        ("Python", "is", "a programming language"),
        ("Python", "was created by", "Guido van Rossum"),
    ]


def test_cleft_relative_clause_stays_with_its_noun(extractor):
    assert ("Curie", "discovered", "radium") in triplets(extractor, "It was Curie who discovered radium.")


def test_relative_subject_of_a_reported_clause(extractor):
    text = "The treaty imposed reparations on Germany, which many historians believe contributed to the war."
    # the relative pronoun is the subject of "contributed", inside the relative clause "many historians believe"
    assert triplets(extractor, text) == [
        ("The treaty", "imposed", "reparations on Germany"),
        ("reparations on Germany", "contributed to", "the war"),
    ]


def test_measure_keeps_its_unit(extractor):
    assert triplets(extractor, "Water boils at 100 degrees Celsius at sea level.") == [
        ("Water", "boils at", "100 degrees Celsius at sea level")
    ]


def test_infinitive_stays_in_its_noun_phrase(extractor):
    assert triplets(extractor, "Curie was the first woman to win a Nobel Prize.") == [
        ("Curie", "was", "the first woman to win a Nobel Prize")
    ]


def test_imperative_is_not_a_statement(extractor):
    assert extractor.extract(["Paris is old. Let me know if you have other questions."])[0].claims[
        -1
    ].triplet == (
        "Paris",
        "is",
        "old",
    )


def test_open_complement_joins_the_predicate(extractor):
    assert triplets(extractor, "She wanted to become a doctor.") == [("She", "wanted to become", "a doctor")]


def test_intransitive_clause_has_empty_object_and_readable_text(extractor):
    claim = extractor.extract(["The company collapsed."])[0].claims[0]
    assert claim.triplet == ("The company", "collapsed", "")
    assert claim.text == "The company collapsed."
    assert claim.render() == "The company collapsed"


def test_claims_carry_kind_text_and_sentence_span(extractor):
    text = "Hello there!  Apple was founded in 1976. Who cares?"
    claims = extractor.extract([text])[0].claims
    assert len(claims) == 1
    claim = claims[0]
    assert claim.kind == "triplet"
    assert claim.text == "Apple was founded in 1976."
    assert claim.sentence_ids == [1]
    assert text[claim.spans[0].start : claim.spans[0].end] == "Apple was founded in 1976"
    assert claim.spans[0].text == "Apple was founded in 1976" and claim.spans_cover == "words"


def test_statement_without_triplet_falls_back_to_a_sentence_claim(extractor):
    text = "There are three moons."
    claims = extractor.extract([text])[0].claims
    assert [(c.kind, c.text, c.triplet) for c in claims] == [("sentence", "There are three moons.", None)]
    assert RuleTripletExtractor(load_spacy(), sentence_fallback=False).extract([text])[0].claims == []


def test_questions_list_markers_and_refusals_give_nothing(extractor):
    text = "Did he win?\n1. Paris is the capital of France.\n2. I don't know the rest."
    claims = extractor.extract([text])[0].claims
    assert [c.triplet for c in claims] == [("Paris", "is", "the capital of France")]


@pytest.mark.parametrize(
    "refusal",
    [
        "I cannot answer that.",
        "I don't know.",
        "I'm sorry, but I cannot answer that question. I do not have enough information.",
        "As an AI language model, I have no access to current events.",
        "Unfortunately, I don't have information about that.",
        "I apologize, but there is no information about this person.",
        "",
        "   \n ",
    ],
)
def test_refusal_only_or_empty_response_is_an_abstention(extractor, refusal):
    extraction = extractor.extract([refusal])[0]
    assert extraction.claims == []
    assert extraction.failed is False


def test_hedged_or_regretful_statement_keeps_its_claim(extractor):
    assert triplets(extractor, "Unfortunately, Einstein died in 1955.") == [("Einstein", "died in", "1955")]
    assert triplets(extractor, "I'm not sure, but Paris is the capital of France.") == [
        ("Paris", "is", "the capital of France")
    ]


def test_markdown_list_response(extractor):
    text = (
        "## Facts\n**Paris** is the capital of France.\n- It has 2.1 million people\n- It is on the *Seine*"
    )
    claims = extractor.extract([text])[0].claims
    assert [c.triplet for c in claims] == [
        ("Paris", "is", "the capital of France"),
        ("Paris", "has", "2.1 million people"),
        ("Paris", "is on", "the Seine"),
    ]
    assert text[claims[2].spans[0].start : claims[2].spans[0].end] == "It is on the *Seine"


def test_bad_items_fail_alone_and_batches_keep_order(extractor):
    results = extractor.extract(["Berlin is big.", None, "Paris is old."])
    assert [r.failed for r in results] == [False, True, False]
    assert "expected a string" in results[1].error
    assert results[0].claims[0].triplet == ("Berlin", "is", "big")
    assert results[2].claims[0].triplet == ("Paris", "is", "old")


def test_question_count_must_match(extractor):
    with pytest.raises(ValueError, match="one question per text"):
        extractor.extract(["Berlin is big."], ["q1", "q2"])


def test_long_response_in_a_batch(extractor):
    sentences = [
        f"Company {n} was founded in {1800 + n} by Anna Berg. It makes phones and tablets. Who cares?"
        for n in range(400)
    ]
    long_text = " ".join(sentences)
    assert len(long_text.split()) >= 5000
    results = extractor.extract([long_text, "Berlin is big."])
    triplets = [c.triplet for c in results[0].claims]
    assert ("Company 399", "was founded in", "2199") in triplets
    assert ("Company 399", "was founded by", "Anna Berg") in triplets
    assert len(set(triplets)) == len(triplets)
    assert max(c.sentence_ids[0] for c in results[0].claims) > 1000
    assert all(long_text[s.start : s.end] == s.text for c in results[0].claims for s in c.spans)
    founded = next(c for c in results[0].claims if c.triplet == ("Company 399", "was founded by", "Anna Berg"))
    assert [s.text for s in founded.spans] == ["Company 399 was founded", "by Anna Berg"]
    assert results[1].claims[0].triplet == ("Berlin", "is", "big")


def test_conditional_clause_is_not_asserted(extractor):
    assert triplets(extractor, "If Einstein had stayed in Ulm, he would have become an engineer.") == [
        ("Einstein", "would have become", "an engineer")
    ]


def test_between_keeps_both_ends_and_abbreviations_keep_their_full_stop(extractor):
    assert triplets(extractor, "The town flourished between 6500 and 5500 BC.") == [
        ("The town", "flourished between", "6500 and 5500 BC")
    ]
    assert triplets(extractor, "The U.S. invested in Canada.") == [("The U.S.", "invested in", "Canada")]


def test_proposition_triplets_without_object():
    proposition = Proposition("Einstein", "was born", "", (("in", "Ulm"), ("in", "1879")))
    assert proposition_triplets(proposition) == [
        ("Einstein", "was born in", "Ulm"),
        ("Einstein", "was born in", "1879"),
    ]


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("the band ,", "the band"),
        ("'I Ran (So Far Away)'", "'I Ran (So Far Away)'"),
        ("The song ' '", "The song"),
        ("Ulm)", "Ulm"),
        ("(ICL", "ICL"),
        ("strengthened (", "strengthened"),
        ("the Smiths'", "the Smiths'"),
        ("'Hey June", "Hey June"),
    ],
)
def test_clean_phrase_trims_punctuation_and_unbalanced_brackets(raw, clean):
    assert clean_phrase(raw) == clean
