"""LLM atomic-fact decomposition against the fake LLM server: prompts, strict parsing, failures kept raw."""

import re

import pytest

from factscope.claims.llm_facts import LLMFactExtractor, parse_facts
from factscope.llm.client import LLMClient, LLMConfig
from fake_llm import Fail

REPLIES = {
    "The Lenne flows through Corvel and Astry.": "Fact 1: The Lenne flows through Corvel.\nFact 2: The Lenne flows through Astry.",
    "It is long.": "```\n- The Lenne is long.\n```",
    "Hello there!": "None",
    "Bad one.": "Sure! Here are the facts:\nFact 1: Something.",
}


def _responder(request):
    sentence = re.findall(r"^Sentence: (.*)$", request["messages"][-1]["content"], re.MULTILINE)[-1]
    return REPLIES[sentence]


@pytest.fixture
def client(fake_llm):
    fake_llm.responder = _responder
    return LLMClient(LLMConfig(base_url=fake_llm.base_url, model="fake", cache_path=None, max_retries=0))


def test_parse_facts_is_strict():
    assert parse_facts("Fact 1: A is B.\nFact 2: A is C.") == ["A is B.", "A is C."]
    assert parse_facts("1. A.\n2) B.\n* C.\n\u2022 D.") == ["A.", "B.", "C.", "D."]
    assert parse_facts("None.") == []
    with pytest.raises(ValueError, match="line 1 is not a fact line"):
        parse_facts("Here you go:\nFact 1: A.")
    with pytest.raises(ValueError, match="empty reply"):
        parse_facts("  \n")


def test_decomposes_each_sentence_with_ids_and_spans(client, fake_llm):
    text = "The Lenne flows through Corvel and Astry. It is long."
    extraction = LLMFactExtractor(client).extract([text, "Hello there!"])
    first, second = extraction
    assert [c.text for c in first.claims] == [
        "The Lenne flows through Corvel.",
        "The Lenne flows through Astry.",
        "The Lenne is long.",
    ]
    assert [c.sentence_ids for c in first.claims] == [[0], [0], [1]]
    span = first.claims[2].spans[0]
    assert text[span.start : span.end] == span.text == "is long", "aligned to its words; 'It' is not 'The Lenne'"
    assert [s.text for s in first.claims[0].spans] == ["The Lenne flows through Corvel"]
    assert not first.failed and second.claims == [] and not second.failed
    prompt = fake_llm.requests[0]["json"]["messages"][-1]["content"]
    assert "Fact 1: The Kestrel Bridge is a stone arch bridge." in prompt


def test_unparsable_reply_is_kept_raw_and_marked_failed(client):
    [extraction] = LLMFactExtractor(client).extract(["The Lenne flows through Corvel and Astry. Bad one."])
    assert extraction.failed
    assert "sentence 1" in extraction.error and "not a fact line" in extraction.error
    assert extraction.raw.startswith("Sure! Here are the facts:")
    assert len(extraction.claims) == 2


def test_failed_call_marks_the_text_failed(fake_llm):
    fake_llm.script([Fail(500)])
    client = LLMClient(LLMConfig(base_url=fake_llm.base_url, model="fake", cache_path=None, max_retries=0))
    [extraction] = LLMFactExtractor(client).extract(["It is long."])
    assert extraction.failed and "LLM call failed" in extraction.error
