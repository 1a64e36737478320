"""The abstention detector: sentences that decline to answer, responses made only of them, and claim filtering."""

from __future__ import annotations

import pytest

from factscope.claims.abstention import AbstentionDetector, Screening, is_abstaining
from factscope.core.schema import Claim

ABSTAINING = [
    "I don't know.",
    "I do not know who won the race.",
    "I don\u2019t know.",
    "I do not have information about the 2031 election.",
    "I don't have enough information to answer that.",
    "I'm not sure.",
    "I am not certain which year it was.",
    "I cannot answer that question.",
    "I can't say for certain.",
    "I'm unable to determine the winner from this.",
    "I could not find the answer in the passages.",
    "I couldn't find any mention of him.",
    "I have no information on that.",
    "As an AI language model, I cannot browse the internet.",
    "I'm sorry, but I cannot predict future stock prices.",
    "Sorry, I don't know.",
    "The references do not say who won.",
    "The references don't mention his birthplace.",
    "The provided context does not contain the answer.",
    "These passages do not provide any details about the cause.",
    "The documents don't specify the date.",
    "The context contains no information about the treaty.",
    "The passages say nothing about her husband.",
    "The sources are silent on this point.",
    "There is no information about the second album.",
    "There's not enough information to tell.",
    "There is no mention of a sequel in the references.",
    "No information is available about the founder.",
    "Based on the provided context, I cannot answer who won.",
    "According to the references, there is no information about the mayor.",
    "Unfortunately, the documents do not mention the price.",
    "It is unclear from the context who signed first.",
    "It is not possible to determine the winner based on the passages.",
    "The answer cannot be determined from the documents.",
    "The answer is unknown.",
    "No answer.",
    "Unknown.",
    "N/A",
    "Not mentioned.",
    "Insufficient information.",
    "references do not say who won",
]

STATEMENTS = [
    "The cause of the fire is unknown.",
    "The identity of the painter remains unknown to historians.",
    "Paris is not the capital of Germany.",
    "He did not attend the ceremony.",
    "There is no evidence that the drug causes cancer.",
    "There is no record of him visiting Rome.",
    "The report does not include the 2020 figures because the survey was cancelled.",
    "I think Paris is the capital of France.",
    "The data does not show a trend.",
    "Nobody knows who wrote the letter, according to the museum.",
    "Python was created by Guido van Rossum.",
    "None of the three candidates won a majority.",
    "I'm sorry, but Paris is the capital of France.",
    "",
]


@pytest.mark.parametrize("sentence", ABSTAINING)
def test_sentences_that_decline_to_answer_abstain(sentence):
    assert is_abstaining(sentence)


@pytest.mark.parametrize("sentence", STATEMENTS)
def test_statements_with_not_or_unknown_are_claims(sentence):
    assert not is_abstaining(sentence)


def test_a_response_abstains_only_when_every_sentence_does():
    detector = AbstentionDetector()
    assert detector.screen("I don't know. The references do not say.") == Screening(abstaining=(0, 1), abstains=True)
    partial = detector.screen("Alice won the race. I don't know when.")
    assert partial == Screening(abstaining=(1,), abstains=False)
    assert detector.screen("") == Screening(abstaining=(), abstains=False)
    assert not detector.screen("Alice won the race.").abstains


def test_claims_drawn_only_from_abstaining_sentences_are_dropped():
    detector = AbstentionDetector()
    screening = detector.screen("Alice won the race. I don't know when. She was born in Oslo.")
    claims = [
        Claim(text="Alice won the race.", sentence_ids=[0]),
        Claim(text="The speaker does not know when Alice won.", sentence_ids=[1]),
        Claim(text="Alice won, at an unknown time.", sentence_ids=[0, 1]),
        Claim(text="The references do not say when Alice won.", sentence_ids=[0]),
        Claim(text="", kind="triplet", triplet=("I", "don't know", "when"), sentence_ids=[]),
        Claim(text="She was born in Oslo.", sentence_ids=[2]),
    ]
    kept = detector.answering_claims(claims, screening)
    assert [c.text for c in kept] == ["Alice won the race.", "Alice won, at an unknown time.", "She was born in Oslo."]
