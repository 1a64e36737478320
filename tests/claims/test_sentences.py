"""The one sentence splitter (factscope.core.text.sentence_spans), the sentences of a parsed doc, and
SentenceExtractor, the sentence-granularity baseline on the packaged spaCy English model."""

import json

import pytest

from factscope.claims.clause_facts import ClauseFactExtractor
from factscope.claims.llm_facts import LLMFactExtractor
from factscope.claims.llm_triplets import TripletExtractor
from factscope.claims.parsing import mask_markup, parse_batch, sentences
from factscope.claims.rule_triplets import RuleTripletExtractor
from factscope.claims.sentences import SentenceExtractor
from factscope.core.text import sentence_spans, split_sentences
from factscope.hf.embedded import load_spacy
from factscope.llm.client import LLMClient, LLMConfig


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
            assert all(span.text in by_sentence[claim.sentence_ids[0]] for span in claim.spans)


def test_non_string_item_fails_alone(extractor):
    results = extractor.extract([3, "Berlin is big."])
    assert results[0].failed and "expected a string, got int" in results[0].error
    assert [c.text for c in results[1].claims] == ["Berlin is big."]


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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("H.J. Muller won the Nobel Prize.", ["H.J. Muller won the Nobel Prize."]),
        ("Warner Bros. Records signed her.", ["Warner Bros. Records signed her."]),
        ("S.S. Lazio won.", ["S.S. Lazio won."]),
        ("U.S. forces left. They returned.", ["U.S. forces left.", "They returned."]),
        ("Dr. Smith met Mr. Jones in St. Louis.", ["Dr. Smith met Mr. Jones in St. Louis."]),
        ("NASA/ESA/J. Lee took it. A. Pagan did not.", ["NASA/ESA/J. Lee took it.", "A. Pagan did not."]),
        ("Growth was 3.5% in 2020.", ["Growth was 3.5% in 2020."]),
        ("It cost $3.50. Then more.", ["It cost $3.50.", "Then more."]),
        (
            "See No. 5 and Fig. 3 here. I said no. Then I left.",
            ["See No. 5 and Fig. 3 here.", "I said no.", "Then I left."],
        ),
        ("Take e.g. the cat. It sleeps.", ["Take e.g. the cat.", "It sleeps."]),
        ("It rained. the game went on.", ["It rained. the game went on."]),
        ("the cat sat. the dog ran.", ["the cat sat.", "the dog ran."]),
        ("He won. 1955 was calm.", ["He won.", "1955 was calm."]),
        ("I don't. She does.", ["I don't.", "She does."]),
        ("Wait... what? He paused... Then he left.", ["Wait... what?", "He paused...", "Then he left."]),
        ("He waited\u2026 Then he left.", ["He waited\u2026", "Then he left."]),
        ('He said "Go." Then he left.', ['He said "Go."', "Then he left."]),
        (
            "She asked \u201cWhy?\u201d and left. (See above.) Next.",
            ["She asked \u201cWhy?\u201d and left.", "(See above.)", "Next."],
        ),
        ("It is **big.** It is old!", ["It is **big.**", "It is old!"]),
        ("Pfizer Inc. - a drug maker - grew.", ["Pfizer Inc. - a drug maker - grew."]),
        ("rates rose for longer.MSCI's index fell.", ["rates rose for longer.", "MSCI's index fell."]),
        ("Paris is big.\n\nRome is old", ["Paris is big.", "Rome is old"]),
        ("Key facts\nParis is big.", ["Key facts", "Paris is big."]),
        ("Einstein was born\nin Ulm in 1879.", ["Einstein was born\nin Ulm in 1879."]),
        ("Einstein was born in\nUlm in 1879.", ["Einstein was born in\nUlm in 1879."]),
        ("It grew fast,\nParis said.", ["It grew fast,\nParis said."]),
        ("He lived in the U.S.\nand Canada.", ["He lived in the U.S.\nand Canada."]),
        ("It is big.\nthe rest is small.", ["It is big.", "the rest is small."]),
        ("## Summary\nParis is big.", ["## Summary", "Paris is big."]),
        ("Paris is big.\n---\nRome is old.", ["Paris is big.", "Rome is old."]),
        (
            "Cities:\n| city | size |\n|---|---|\n| Paris | big |",
            ["Cities:", "| city | size |", "| Paris | big |"],
        ),
        ("", []),
        (" \n\n ", []),
    ],
)
def test_splitter_rules(text, expected):
    assert split_sentences(text) == expected


def test_each_bullet_item_is_a_sentence_without_its_marker():
    text = (
        "Facts:\n- Paris is big.\n* Rome is old. It has ruins.\n\u2022 Bern is small\n"
        "1. Oslo is cold.\n2) Lima is warm.\n+ Quito is high"
    )
    assert split_sentences(text) == [
        "Facts:",
        "Paris is big.",
        "Rome is old.",
        "It has ruins.",
        "Bern is small",
        "Oslo is cold.",
        "Lima is warm.",
        "Quito is high",
    ]


def test_a_wrapped_bullet_item_stays_one_sentence():
    text = "- Paris is the capital\n  of France.\n- Rome is old."
    assert split_sentences(text) == ["Paris is the capital\n  of France.", "Rome is old."]


def test_numbers_at_a_line_start_are_list_markers_only_with_a_space():
    assert split_sentences("1.5 million people live there.\n2020. It was a year.") == [
        "1.5 million people live there.",
        "2020.",
        "It was a year.",
    ]


def test_spans_are_trimmed_offsets_into_the_original_text():
    text = "  Paris is big.  \n\n - Rome is old.\n"
    spans = sentence_spans(text)
    assert [(s.start, s.end) for s in spans] == [(2, 15), (22, 34)]
    assert [text[s.start : s.end] for s in spans] == ["Paris is big.", "Rome is old."]


BULLETED = (
    "H.J. Muller won the Nobel Prize in 1946.\n"
    "Key facts\n"
    "- Warner Bros. Records signed Madonna in 1982.\n"
    "- U.S. forces left Iraq in 2011. They returned in 2014.\n"
    "1. S.S. Lazio won the Italian cup.\n"
    "2) Growth was 3.5% in 2020."
)
BULLETED_SENTENCES = [
    "H.J. Muller won the Nobel Prize in 1946.",
    "Key facts",
    "Warner Bros. Records signed Madonna in 1982.",
    "U.S. forces left Iraq in 2011.",
    "They returned in 2014.",
    "S.S. Lazio won the Italian cup.",
    "Growth was 3.5% in 2020.",
]


def test_parsed_sentences_follow_the_splitter_and_the_parser_keeps_its_boundaries():
    (doc,) = parse_batch(load_spacy(), [BULLETED], 8)
    parsed = sentences(doc)
    assert [s.text for s in parsed] == BULLETED_SENTENCES
    assert [(s.span.start, s.span.end) for s in parsed] == [
        (s.start, s.end) for s in sentence_spans(BULLETED)
    ]
    assert [s.tokens.text for s in parsed] == BULLETED_SENTENCES
    parser_sentences = [s.text.strip() for s in doc.sents]
    assert [s for s in parser_sentences if s not in {"-", "1.", "2)"}] == BULLETED_SENTENCES


def test_offline_and_llm_extractors_number_sentences_alike(fake_llm):
    nlp = load_spacy()
    offline = {}
    for extractor in (
        SentenceExtractor(nlp, keep_all=True),
        RuleTripletExtractor(nlp),
        ClauseFactExtractor(nlp),
    ):
        for claim in extractor.extract([BULLETED])[0].claims:
            (index,) = claim.sentence_ids
            if claim.spans_cover == "sentence":
                offline.setdefault(index, set()).add((claim.spans[0].start, claim.spans[0].end))
    assert sorted(offline) == list(range(len(BULLETED_SENTENCES)))
    assert all(len(spans) == 1 for spans in offline.values())
    rule_claims = RuleTripletExtractor(nlp).extract([BULLETED])[0].claims
    picked = [c for c in rule_claims if c.triplet and c.triplet[2] in {"2014", "the Italian cup"}]
    assert [(c.triplet, c.sentence_ids) for c in picked] == [
        (("U.S. forces", "returned in", "2014"), [4]),
        (("S.S. Lazio", "won", "the Italian cup"), [5]),
    ]

    client = LLMClient(LLMConfig(base_url=fake_llm.base_url, model="fake", max_retries=0))
    items = [{"triplet": ["s", "p", str(n)], "sentences": [n]} for n in range(1, len(BULLETED_SENTENCES) + 1)]
    fake_llm.script([json.dumps({"claims": items})])
    (extraction,) = TripletExtractor(client).extract([BULLETED])
    prompt = fake_llm.requests[0]["json"]["messages"][0]["content"]
    numbered = "\n".join(f"[{n}] {s}" for n, s in enumerate(BULLETED_SENTENCES, 1))
    assert numbered in prompt
    for claim in extraction.claims:
        (index,) = claim.sentence_ids
        assert claim.spans_cover == "sentence"
        assert {(claim.spans[0].start, claim.spans[0].end)} == offline[index]

    fake_llm.script(["None"] * len(BULLETED_SENTENCES))
    LLMFactExtractor(client).extract([BULLETED])
    asked = [r["json"]["messages"][-1]["content"] for r in fake_llm.requests[1:]]
    asked_per_sentence = [sum(f"Sentence: {s}" in a for a in asked) for s in BULLETED_SENTENCES]
    assert asked_per_sentence == [1] * len(BULLETED_SENTENCES)
