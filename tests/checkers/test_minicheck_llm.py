"""The LLM judge with MiniCheck's prompt: the messages are the authors' format, Yes/No is parsed strictly, and a
claim is supported when every sentence is supported by some reference."""

import pytest

from factscope.checkers.base import CheckTask
from factscope.checkers.minicheck_llm import MiniCheckLLMChecker, parse_yes_no
from factscope.checkers.registry import make_checker
from factscope.core.errors import ConfigError
from factscope.core.schema import Label
from factscope.llm.client import LLMClient
from factscope.llm.config import LLMConfig

SYSTEM = (
    "Determine whether the provided claim is consistent with the corresponding document. Consistency in this context "
    "implies that all information presented in the claim is substantiated by the document. If not, it should be "
    "considered inconsistent. Please assess the claim's consistency with the document by responding with either "
    '"Yes" or "No".'
)


@pytest.fixture
def client(fake_llm):
    return LLMClient(LLMConfig(base_url=fake_llm.base_url, model="bespoke-minicheck", max_retries=0))


def test_messages_are_minichecks_format(client):
    checker = make_checker("llm:minicheck", llm=client)
    assert isinstance(checker, MiniCheckLLMChecker)
    assert checker.messages("The cat sat.", "A cat sat.") == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Document: The cat sat.\nClaim: A cat sat."},
    ]
    with pytest.raises(ConfigError, match="llm:minicheck"):
        make_checker("llm:other", llm=client)


def test_yes_no_parsing():
    assert parse_yes_no(" Yes.") is True and parse_yes_no('"no"') is False
    with pytest.raises(ValueError):
        parse_yes_no("Probably")


def test_every_sentence_needs_a_yes_from_some_reference(client, fake_llm):
    def answer(request):
        user = request["messages"][1]["content"]
        return "Yes" if "Claim: Curie won." in user and "Document: Curie won in 1903." in user else "No"

    fake_llm.responder = answer
    checker = MiniCheckLLMChecker(client)
    refs = ("Paris is big.", "Curie won in 1903.")
    one, two = checker.check([CheckTask("Curie won.", refs), CheckTask("Curie won. She was born in 1867.", refs)])
    assert one.label is Label.ENTAILMENT
    assert two.label is Label.NEUTRAL


def test_an_undecided_claim_is_a_failed_verdict(client, fake_llm):
    fake_llm.responder = lambda request: "Maybe"
    verdict = MiniCheckLLMChecker(client).check([CheckTask("Curie won.", ("Curie won in 1903.",))])[0]
    assert verdict.failed and verdict.label is None and "Yes or No" in (verdict.error or "")
