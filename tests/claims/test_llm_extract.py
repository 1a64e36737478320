"""LLM claim extraction: prompt building, strict parsing with safe repairs, sentence ids and spans."""

import json

import pytest

from factscope.claims.llm_triplets import (
    AtomicClaimExtractor,
    TripletExtractor,
    load_json_reply,
    parse_claims,
)
from factscope.llm.client import LLMClient, LLMConfig
from fake_llm import Fail, Raw

RESPONSE = "Paris is the capital of France. It has 2.1 million inhabitants."


@pytest.fixture
def client(fake_llm):
    return LLMClient(LLMConfig(base_url=fake_llm.base_url, model="fake", max_retries=0))


def reply_of(*claims):
    return json.dumps({"claims": list(claims)})


def test_prompt_numbers_the_sentences_and_names_the_question(fake_llm, client):
    fake_llm.script([reply_of()])
    TripletExtractor(client).extract([RESPONSE], ["What is the capital of France?"])
    prompt = fake_llm.requests[0]["json"]["messages"][0]["content"]
    assert (
        "Question: What is the capital of France?\nResponse:\n[1] Paris is the capital of France.\n" in prompt
    )
    assert "[2] It has 2.1 million inhabitants.\nAnswer:" in prompt
    assert "$" not in prompt.split("Now the response")[1]


def test_triplets_map_sentence_numbers_to_ids_and_spans(fake_llm, client):
    fake_llm.script(
        [
            reply_of(
                {"triplet": ["Paris", "capital of", "France"], "sentences": [1]},
                {"triplet": ["Paris", "population", "2.1 million"], "sentences": [2, 1]},
            )
        ]
    )
    (extraction,) = TripletExtractor(client).extract([RESPONSE])
    assert not extraction.failed
    first, second = extraction.claims
    assert first.kind == "triplet" and first.triplet == ("Paris", "capital of", "France")
    assert first.text == "Paris capital of France" and first.sentence_ids == [0]
    assert [s.text for s in first.spans] == ["Paris is the capital of France"] and first.spans_cover == "words"
    assert [RESPONSE[s.start : s.end] for s in first.spans] == [s.text for s in first.spans]
    assert second.sentence_ids == [0, 1]
    assert [s.text for s in second.spans] == ["Paris", "2.1 million"] and second.spans_cover == "words"


def test_code_fence_and_trailing_commas_are_repaired(fake_llm, client):
    fake_llm.script(
        ['```json\n{"claims": [{"triplet": ["Paris", "in", "France"], "sentences": [1],},]}\n```']
    )
    (extraction,) = TripletExtractor(client).extract([RESPONSE])
    assert not extraction.failed and extraction.claims[0].triplet == ("Paris", "in", "France")


def test_prose_around_one_json_value_is_dropped():
    assert load_json_reply('Here you go:\n{"claims": []}\nHope this helps.') == {"claims": []}


def test_unparsable_reply_is_kept_raw_and_marked_failed(fake_llm, client):
    fake_llm.script(["(Paris, capital of, France)"])
    (extraction,) = TripletExtractor(client).extract([RESPONSE])
    assert extraction.failed and extraction.claims == []
    assert extraction.raw == "(Paris, capital of, France)" and "not JSON" in extraction.error


@pytest.mark.parametrize(
    ("claims", "message"),
    [
        ([{"triplet": ["Paris", "France"], "sentences": [1]}], "claim 1: a triplet must be a list of three"),
        ([{"triplet": ["Paris", " ", "France"]}], "claim 1: the triplet .* has an empty part"),
        (
            [{"triplet": ["a", "b", "c"]}, {"triplet": ["Paris", "in", "France"], "sentences": [3]}],
            "claim 2: .*1..2",
        ),
        ([{"triplet": ["a", "b", "c"], "sentences": ["one"]}], "not an integer"),
    ],
)
def test_bad_claims_fail_the_extraction_with_the_reason(claims, message):
    with pytest.raises(ValueError, match=message):
        parse_claims(json.dumps({"claims": claims}), sentence_count=2)


def test_wrong_top_level_shape_is_rejected():
    with pytest.raises(ValueError, match='"claims"'):
        parse_claims('{"triplets": []}', sentence_count=1)


def test_bare_lists_and_duplicate_claims_are_accepted_and_merged():
    claims = parse_claims(
        '[["Paris", "in", "France"], {"triplet": ["Paris", "in", "France"], "sentences": ["2"]}]', 2
    )
    assert len(claims) == 1 and claims[0].sentence_ids == [1]


def test_no_claims_is_an_abstention_not_a_failure(fake_llm, client):
    fake_llm.script([reply_of()])
    (extraction,) = TripletExtractor(client).extract(["I'm sorry, I cannot answer that."])
    assert extraction.claims == [] and not extraction.failed


def test_empty_text_is_an_abstention_without_a_call(fake_llm, client):
    extractions = TripletExtractor(client).extract(["", "   "])
    assert [(e.claims, e.failed) for e in extractions] == [([], False), ([], False)]
    assert fake_llm.requests == []


def test_batch_keeps_order_and_a_failed_call_fails_only_its_text(fake_llm, client):
    def responder(request):
        prompt = request["messages"][0]["content"].split("Now the response")[1]
        if "Berlin" in prompt:
            return Fail(400, "context length exceeded")
        city = "Rome" if "Rome" in prompt else "Oslo"
        return reply_of({"triplet": [city, "is", "a city"], "sentences": [1]})

    fake_llm.responder = responder
    texts = ["Rome is a city.", "Berlin is a city.", "Oslo is a city."]
    rome, berlin, oslo = TripletExtractor(client).extract(texts, [None, None, None])
    assert rome.claims[0].triplet[0] == "Rome" and oslo.claims[0].triplet[0] == "Oslo"
    assert berlin.failed and "LLM call failed" in berlin.error and "context length" in berlin.error


def test_atomic_claims_keep_their_sentences(fake_llm, client):
    fake_llm.script([reply_of({"claim": "Paris has 2.1 million inhabitants.", "sentences": [2]})])
    extractor = AtomicClaimExtractor(client)
    (extraction,) = extractor.extract([RESPONSE])
    claim = extraction.claims[0]
    assert (claim.kind, claim.triplet, claim.sentence_ids) == ("fact", None, [1])
    assert claim.render() == "Paris has 2.1 million inhabitants."
    assert "atomic claims" in fake_llm.requests[0]["json"]["messages"][0]["content"]


def test_questions_must_align_with_texts(client):
    with pytest.raises(ValueError, match="2 texts but 1 questions"):
        TripletExtractor(client).extract(["a.", "b."], ["q"])


def test_a_reply_cut_at_the_token_limit_says_so(fake_llm, client):
    cut = '{"claims": [{"triplet": ["Paris", "capital of"'
    body = {
        "choices": [{"index": 0, "message": {"role": "assistant", "content": cut}, "finish_reason": "length"}]
    }
    fake_llm.script([Raw(json.dumps(body))])
    (extraction,) = TripletExtractor(client, max_tokens=16).extract([RESPONSE])
    assert extraction.failed and extraction.raw == cut
    assert "cut off at max_tokens=16" in extraction.error
