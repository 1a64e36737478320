"""SentenceExtractor: the sentence-granularity baseline on the packaged spaCy English model."""

import pytest

from factscope.claims.clause_facts import ClauseFactExtractor
from factscope.claims.parsing import mask_markup
from factscope.claims.rule_triplets import RuleTripletExtractor
from factscope.claims.sentences import SentenceExtractor
from factscope.hf.embedded import load_spacy


@pytest.fixture(scope="session")
def extractor():
    return SentenceExtractor(load_spacy())


def test_each_statement_is_one_claim_with_its_span(extractor):
    text = "Paris is the capital of France.  It has 2.1 million people.\nBerlin is in Germany."
    claims = extractor.extract([text])[0].claims
    assert [c.text for c in claims] == [
        "Paris is the capital of France.",
        "It has 2.1 million people.",
        "Berlin is in Germany.",
    ]
    assert [c.sentence_ids for c in claims] == [[0], [1], [2]]
    assert {c.kind for c in claims} == {"sentence"}
    assert all(text[c.spans[0].start : c.spans[0].end] == c.text for c in claims)
    assert claims[1].triplet is None and claims[1].render() == "It has 2.1 million people."


def test_questions_refusals_speaker_talk_and_list_markers_are_not_claims(extractor):
    text = (
        "Sure! Who won? I'm not sure about the year.\n1. Paris is old.\n2. Rome is older.\nI hope this helps."
    )
    claims = extractor.extract([text])[0].claims
    assert [c.text for c in claims] == ["Paris is old.", "Rome is older."]


def test_keep_all_keeps_every_non_blank_sentence():
    claims = SentenceExtractor(load_spacy(), keep_all=True).extract(["Who won? I don't know."])[0].claims
    assert [c.text for c in claims] == ["Who won?", "I don't know."]


@pytest.mark.parametrize("text", ["", "  \n\n ", "I cannot answer that.", "As an AI, I have no opinions."])
def test_refusal_or_empty_response_is_an_abstention(extractor, text):
    extraction = extractor.extract([text])[0]
    assert extraction.claims == []
    assert not extraction.failed


def test_sentence_ids_agree_across_offline_extractors(extractor):
    text = "Who won? Einstein was born in Ulm. He died in 1955."
    nlp = load_spacy()
    by_sentence = {c.sentence_ids[0]: c.text for c in extractor.extract([text])[0].claims}
    for other in (RuleTripletExtractor(nlp), ClauseFactExtractor(nlp)):
        for claim in other.extract([text])[0].claims:
            assert text[claim.spans[0].start : claim.spans[0].end] == by_sentence[claim.sentence_ids[0]]


def test_non_string_item_fails_alone(extractor):
    results = extractor.extract([3, "Berlin is big."])
    assert results[0].failed and "expected a string, got int" in results[0].error
    assert [c.text for c in results[1].claims] == ["Berlin is big."]


def test_text_over_max_length_fails_with_advice():
    nlp = load_spacy()
    extractor = SentenceExtractor(nlp)
    too_long = "a" * (nlp.max_length + 1)
    result = extractor.extract([too_long])[0]
    assert result.failed and "max_length" in result.error and "split it first" in result.error
    assert result.claims == []


def test_long_response_in_a_batch(extractor):
    long_text = " ".join(f"Company {n} was founded in {1800 + n}. Is that so?" for n in range(900))
    assert len(long_text.split()) >= 5000
    claims = extractor.extract([long_text, "Berlin is big."])[0].claims
    assert len(claims) == 900
    assert claims[-1].text == "Company 899 was founded in 2699."
    assert claims[-1].sentence_ids == [1798]


def test_markdown_marks_are_left_out_of_the_text_but_inside_the_span(extractor):
    text = (
        "## Summary\n**Paris** is the capital of France.\n* It is known for the *Eiffel Tower*.\nUse `pip`."
    )
    claims = extractor.extract([text])[0].claims
    assert [c.text for c in claims] == [
        "Paris is the capital of France.",
        "It is known for the Eiffel Tower.",
    ]
    assert [text[c.spans[0].start : c.spans[0].end] for c in claims] == [
        "**Paris** is the capital of France.",
        "It is known for the *Eiffel Tower*.",
    ]
    assert [c.sentence_ids for c in claims] == [[1], [2]]


def test_mask_markup_keeps_offsets_and_bullets():
    text = "**Paris** is *old*.\n* Rome `is` older.\n# Title"
    masked = mask_markup(text)
    assert len(masked) == len(text)
    assert masked == "  Paris   is  old .\n* Rome  is  older.\n  Title"
