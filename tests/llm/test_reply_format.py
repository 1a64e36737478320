"""Reply formats: what the roles declare, how they are written into a request, and that an HTTP endpoint is sent
exactly the request it was sent before formats existed."""

from __future__ import annotations

import json
import re

import pytest

from factscope.checkers.llm import LABEL_FORMAT, joint_format, parse_joint_labels
from factscope.claims.llm_facts import FACTS_FORMAT
from factscope.llm.client import LLMClient, LLMConfig
from factscope.llm.reply_format import ReplyFormat


def test_a_choice_is_an_escaped_alternation_and_round_trips_through_its_spec():
    choice = ReplyFormat.one_of(["1", "2.5", "a|b"])
    assert choice.labels() == ["1", "2.5", "a|b"]
    assert choice.regex() == r"(1|2\.5|a\|b)"
    assert re.fullmatch(choice.regex(), "a|b") and not re.fullmatch(choice.regex(), "a")
    assert ReplyFormat.from_spec(json.loads(json.dumps(choice.spec()))) == choice
    schema = ReplyFormat.json_schema({"type": "object", "required": ["a"]})
    assert ReplyFormat.from_spec(schema.spec()) == schema
    with pytest.raises(ValueError, match="not a regular expression"):
        schema.regex()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ReplyFormat.one_of([]), "one or more non-empty labels"),
        (lambda: ReplyFormat.one_of(["Yes", ""]), "one or more non-empty labels"),
        (lambda: ReplyFormat.matching("(unclosed"), "is not a regular expression"),

        (lambda: ReplyFormat.from_spec({"kind": "grammar", "value": "x"}), "not a reply format"),
        (lambda: ReplyFormat.matching("x").labels(), "has no labels"),
    ],
)
def test_bad_formats_are_refused_with_what_is_wrong(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_a_schema_or_spec_of_the_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match="must be an object"):
        ReplyFormat.json_schema(["not", "an", "object"])
    with pytest.raises(TypeError, match="not a reply format"):
        ReplyFormat.from_spec({"kind": "choice", "value": ["Yes"]})


def test_the_roles_formats_accept_what_their_parsers_read():
    assert re.fullmatch(LABEL_FORMAT.regex(), "Contradiction")
    three = joint_format(3).regex()
    assert re.fullmatch(three, "1. Entailment\n2. Neutral\n3. Contradiction")
    assert parse_joint_labels("1. Entailment\n2. Neutral\n3. Contradiction", 3)
    assert not re.fullmatch(three, "1. Entailment\n2. Maybe\n3. Neutral")
    assert not re.fullmatch(three, "1. Entailment\n2. Neutral")  # too few lines
    assert not re.fullmatch(three, "1. Entailment\n2. Neutral\n3. Neutral\n1. Neutral")  # no repeating
    assert not re.fullmatch(three, "2. Entailment\n1. Neutral\n3. Neutral")  # in order
    assert re.fullmatch(FACTS_FORMAT.regex(), "Fact 1: Curie was a physicist.\nFact 2: Curie was born in 1867.")
    assert re.fullmatch(FACTS_FORMAT.regex(), "None")


def test_an_endpoint_is_sent_no_reply_format_and_keeps_its_cache_keys(fake_llm, tmp_path):
    fake_llm.script(["Neutral"])
    config = LLMConfig(base_url=fake_llm.base_url, model="fake", cache_path=tmp_path / "cache.sqlite")
    with LLMClient(config) as client:
        first = client.chat([{"role": "user", "content": "Label?"}], reply_format=LABEL_FORMAT, max_tokens=4)
        again = client.chat([{"role": "user", "content": "Label?"}], max_tokens=4)
    assert first.text == "Neutral" and again.cached and again.text == "Neutral"
    (request,) = fake_llm.requests
    assert "reply_format" not in request["json"] and request["json"]["max_tokens"] == 4
