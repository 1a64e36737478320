"""Long responses with the LLM extractors: a response over the piece budget is sent in pieces cut at sentence
starts (a sentence over it in windows), one prompt each, and the claims are joined in order with the sentence ids
and spans of the whole response; a piece whose reply cannot be read is kept raw and marked failed without losing
the other pieces' claims; a response within the budget is one prompt, as it always was."""

from __future__ import annotations

import itertools
import json
import re
from string import Template

import pytest

from factscope.claims.llm_facts import LLMFactExtractor
from factscope.claims.llm_triplets import AtomicClaimExtractor, TripletExtractor, numbered_sentences
from factscope.claims.prompt_pieces import (
    MIN_PIECE_CHARS,
    PROMPT_PIECE_CHARS,
    checked_piece_chars,
    prompt_pieces,
    sentence_windows,
)
from factscope.core.prompts import load_prompt
from factscope.core.text import sentence_spans
from factscope.llm.client import LLMClient, LLMConfig

BROKEN_TOWN = 9000
"""The town whose piece gets a reply that is not JSON."""


def town_sentence(number: int) -> str:
    return f"Town{number} has {number * 7} inhabitants and lies on the river Riv{number}."


def long_response() -> str:
    """About 1 MB of distinct sentences, in paragraphs of ten."""
    sentences = [town_sentence(number) for number in range(16_000)]
    paragraphs = [" ".join(sentences[i : i + 10]) for i in range(0, len(sentences), 10)]
    return "\n\n".join(paragraphs)


def shown_sentences(request: dict) -> list[str]:
    """The numbered sentences a triplet-extraction prompt shows, in order."""
    prompt = request["messages"][0]["content"].split("Now the response")[1]
    return re.findall(r"^\[\d+\] (.*)$", prompt, re.MULTILINE)


def triplet_reply(request: dict) -> str:
    """One triplet per shown sentence, naming its town; not JSON for the piece showing BROKEN_TOWN."""
    shown = shown_sentences(request)
    if any(sentence.startswith(f"Town{BROKEN_TOWN} ") for sentence in shown):
        return "Town, has, inhabitants (not JSON)"
    claims = [
        {"triplet": [sentence.split()[0], "has", sentence.split()[2] + " inhabitants"], "sentences": [number]}
        for number, sentence in enumerate(shown, start=1)
    ]
    return json.dumps({"claims": claims})


@pytest.fixture
def client(fake_llm):
    return LLMClient(LLMConfig(base_url=fake_llm.base_url, model="fake", cache_path=None, max_retries=0))


@pytest.fixture
def one_at_a_time(fake_llm):
    """A client that sends one request at a time, so the server receives the prompts in order."""
    config = LLMConfig(
        base_url=fake_llm.base_url, model="fake", cache_path=None, max_retries=0, concurrency=1
    )
    return LLMClient(config)


def test_a_one_megabyte_response_is_extracted_in_pieces_with_the_claims_in_order(fake_llm, client):
    response = long_response()
    assert len(response) > 1_000_000
    sentences = sentence_spans(response)
    fake_llm.responder = triplet_reply
    (extraction,) = TripletExtractor(client).extract([response], ["Tell me about the towns."])

    requests = [request["json"] for request in fake_llm.requests]
    assert len(requests) > len(response) / PROMPT_PIECE_CHARS
    assert all(len(" ".join(shown_sentences(request))) <= PROMPT_PIECE_CHARS for request in requests)
    assert all(
        "Question: Tell me about the towns." in request["messages"][0]["content"] for request in requests
    )
    assert sorted(sentence for request in requests for sentence in shown_sentences(request)) == sorted(
        response[span.start : span.end] for span in sentences
    )
    assert client.usage.calls == len(requests)
    assert client.usage.prompt_tokens == sum(len(r["messages"][0]["content"].split()) for r in requests)

    (broken,) = [
        request for request in requests if f"Town{BROKEN_TOWN} has" in request["messages"][0]["content"]
    ]
    lost = {int(sentence.split()[0][4:]) for sentence in shown_sentences(broken)}
    assert BROKEN_TOWN in lost and len(lost) > 10
    assert extraction.failed and extraction.raw == "Town, has, inhabitants (not JSON)"
    firsts = sorted(int(shown_sentences(request)[0].split()[0][4:]) for request in requests)
    number = firsts.index(min(lost)) + 1
    assert re.fullmatch(
        rf"piece {number} of {len(requests)} \(sentences {min(lost)}-{max(lost)}\): reply is not JSON: .*",
        extraction.error,
    )

    kept = [town for town in range(len(sentences)) if town not in lost]
    assert [claim.triplet for claim in extraction.claims] == [
        (f"Town{town}", "has", f"{town * 7} inhabitants") for town in kept
    ]
    for claim, town in zip(extraction.claims, kept, strict=True):
        assert claim.sentence_ids == [town]
        assert [response[span.start : span.end] for span in claim.spans] == [f"Town{town} has {town * 7} inhabitants"]


def test_a_response_within_the_budget_is_one_prompt_as_before(fake_llm, client):
    response = " ".join(town_sentence(number) for number in range(80))[:PROMPT_PIECE_CHARS].rsplit(" ", 1)[0]
    assert len(response) > PROMPT_PIECE_CHARS - 80
    fake_llm.responder = triplet_reply
    (extraction,) = TripletExtractor(client).extract([response], ["Towns?"])
    (request,) = fake_llm.requests
    before = Template(load_prompt("extract_triplets")).safe_substitute(
        question="Towns?", sentences=numbered_sentences(response, sentence_spans(response))
    )
    assert request["json"]["messages"][0]["content"] == before
    assert not extraction.failed and client.usage.calls == 1
    assert json.loads(extraction.raw)["claims"][0]["triplet"][0] == "Town0"


def test_a_response_one_character_over_the_budget_is_two_prompts(fake_llm, one_at_a_time):
    first, second = town_sentence(1), town_sentence(2)
    response = first + " " * (MIN_PIECE_CHARS - len(first)) + second
    fake_llm.responder = triplet_reply
    (extraction,) = TripletExtractor(one_at_a_time, piece_chars=len(response) - 1).extract([response])
    assert [shown_sentences(request["json"]) for request in fake_llm.requests] == [[first], [second]]
    assert [claim.triplet[0] for claim in extraction.claims] == ["Town1", "Town2"]
    assert [claim.sentence_ids for claim in extraction.claims] == [[0], [1]]
    assert response[extraction.claims[1].spans[0].start : extraction.claims[1].spans[0].end] == "Town2 has 14 inhabitants"
    assert extraction.raw.count("\n---\n") == 1 and not extraction.failed


def test_the_same_claim_from_two_pieces_is_one_claim_with_both_sentences(fake_llm, client):
    response = "Paris is in France. " * 3 + "Lyon is in France. " * 3
    fake_llm.responder = lambda request: json.dumps(
        {"claims": [{"triplet": ["France", "has", "cities"], "sentences": [1]}]}
    )
    (extraction,) = TripletExtractor(client, piece_chars=MIN_PIECE_CHARS).extract([response])
    assert len(fake_llm.requests) == 2
    (claim,) = extraction.claims
    assert claim.sentence_ids == [0, 5] and len(claim.spans) == 2


def test_a_sentence_over_the_budget_is_sent_in_windows_of_its_words(fake_llm, one_at_a_time):
    sentence = " ".join(f"word{number}" for number in range(200))
    fake_llm.responder = lambda request: json.dumps(
        {"claims": [{"claim": shown_sentences(request)[0].split()[0], "sentences": [1]}]}
    )
    (extraction,) = AtomicClaimExtractor(one_at_a_time, piece_chars=MIN_PIECE_CHARS).extract([sentence])
    shown = [shown_sentences(request["json"]) for request in fake_llm.requests]
    assert all(len(window) == 1 and len(window[0]) <= MIN_PIECE_CHARS for window in shown)
    assert " ".join(window[0] for window in shown) == sentence
    assert [claim.text for claim in extraction.claims] == [window[0].split()[0] for window in shown]
    for claim in extraction.claims:
        (span,) = claim.spans
        assert claim.sentence_ids == [0] and sentence[span.start : span.end] == span.text == claim.text


def test_llm_facts_send_a_long_sentence_in_windows_and_keep_a_failed_windows_raw_reply(
    fake_llm, one_at_a_time
):
    sentence = " ".join(f"word{number}" for number in range(2_000))
    response = f"Short one here.\n\n{sentence}"

    def reply(request):
        shown = request["messages"][-1]["content"].rsplit("Sentence: ", 1)[1].strip()
        if shown.startswith("word") and "word1000 " in shown:
            return "Sure, here they are."
        return f"Fact 1: {shown.split()[0]} comes first.\nFact 2: {shown.split()[-1]} comes last."

    fake_llm.responder = reply
    (extraction,) = LLMFactExtractor(one_at_a_time).extract([response])
    shown = [
        request["json"]["messages"][-1]["content"].rsplit("Sentence: ", 1)[1].strip()
        for request in fake_llm.requests
    ]
    assert shown[0] == "Short one here."
    windows = shown[1:]
    assert len(windows) >= -(-len(sentence) // PROMPT_PIECE_CHARS) > 2
    assert all(len(window) <= PROMPT_PIECE_CHARS for window in windows) and " ".join(windows) == sentence
    assert one_at_a_time.usage.calls == len(shown)
    broken = next(number for number, window in enumerate(windows, start=1) if "word1000 " in window)
    assert extraction.failed and extraction.raw == "Sure, here they are."
    assert (
        extraction.error
        == f"sentence 1, window {broken} of {len(windows)}: line 1 is not a fact line: 'Sure, here they are.'"
    )
    kept = [window for number, window in enumerate(windows, start=1) if number != broken]
    assert [claim.text for claim in extraction.claims] == [
        "Short comes first.",
        "here. comes last.",
        *(f"{w.split()[p]} comes {which}." for w in kept for p, which in ((0, "first"), (-1, "last"))),
    ]
    assert [claim.sentence_ids for claim in extraction.claims[2:]] == [[1]] * (2 * len(kept))
    assert {(span.start, span.end) for claim in extraction.claims[2:] for span in claim.spans} == {
        (len("Short one here.\n\n"), len(response))
    }


def test_pieces_cover_the_sentences_in_order_each_within_the_budget():
    response = "\n\n".join(
        " ".join(town_sentence(number) for number in range(start, start + 7)) for start in range(0, 70, 7)
    )
    sentences = sentence_spans(response)
    pieces = prompt_pieces(response, sentences, 500)
    assert len(pieces) > 8
    assert all(piece.parts[-1].end - piece.parts[0].start <= 500 for piece in pieces)
    assert [i for piece in pieces for i in piece.sentence_ids] == list(range(len(sentences)))
    assert [part for piece in pieces for part in piece.parts] == sentences
    (whole,) = prompt_pieces(response, sentences, len(response))
    assert list(whole.parts) == sentences and list(whole.sentence_ids) == list(range(len(sentences)))
    assert prompt_pieces("  --- ", [], 500) == []


def test_a_long_sentence_is_cut_into_windows_that_lose_no_character():
    text = "Intro. " + "X" * 150 + " " + "b " * 80
    intro, sentence = sentence_spans(text)
    windows = sentence_windows(text, sentence, 100)
    assert len(windows) == 4 and all(window.end - window.start <= 100 for window in windows)
    assert (windows[0].start, windows[-1].end) == (sentence.start, sentence.end)
    gaps = [text[before.end : after.start] for before, after in itertools.pairwise(windows)]
    assert gaps == ["", " ", " "]
    assert text[windows[0].start : windows[0].end] == "X" * 100
    assert text[windows[1].start : windows[1].end].startswith("X" * 50 + " b b")
    assert sentence_windows(text, intro, 100) == [intro]


@pytest.mark.parametrize("value", [MIN_PIECE_CHARS - 1, 0, -5, True, 4000.0, "4000"])
def test_the_piece_budget_has_a_range(client, value):
    with pytest.raises(ValueError, match=f"piece_chars must be a whole number of at least {MIN_PIECE_CHARS}"):
        checked_piece_chars(value)
    for extractor in (TripletExtractor, AtomicClaimExtractor, LLMFactExtractor):
        with pytest.raises(ValueError, match="piece_chars"):
            extractor(client, piece_chars=value)
