"""Every LLM role with the embedded SmolLM2-135M-Instruct in-process (`--llm local:embedded`): chat template,
greedy batched decoding, replies held to the roles' formats, usage counted, replies cached, failures kept.

A 135M model's answers are not what is tested; the format, counts and bookkeeping are. Replies are capped at a
few tokens so that the file stays within seconds (about 10 generated tokens a second on 2 busy cores).
"""

from __future__ import annotations

import json

import pytest

from cli_entry import run_factscope
from factscope.checkers.llm import LABEL_FORMAT, parse_label
from factscope.core.errors import BackendError, ConfigError
from factscope.hf.chat_model import Generated
from factscope.hf.in_process_llm import IN_PROCESS_URL, InProcessLLMClient, local_model_name
from factscope.llm.config import LLMConfig
from factscope.llm.reply_format import ReplyFormat
from repo_paths import EXAMPLES

CAPITAL = [{"role": "user", "content": "What is the capital of France?"}]
CLAIMS = [
    [{"role": "user", "content": f"Reference: Paris is the capital of France.\nClaim: {claim}\n"
                                 "Answer Entailment, Neutral or Contradiction."}]
    for claim in ("Paris is in France.", "Paris is in Peru.", "Paris has a river.")
]


def _client(model, tmp_path=None, **options) -> InProcessLLMClient:
    cache = tmp_path / "cache.sqlite" if tmp_path is not None else None
    return InProcessLLMClient(model, LLMConfig(base_url=IN_PROCESS_URL, model="x", cache_path=cache), **options)


def test_label_replies_are_held_to_the_labels_counted_and_cached(embedded_chat, tmp_path):
    client = _client(embedded_chat, tmp_path)
    replies = client.chat_many(CLAIMS + CLAIMS[:1], reply_format=LABEL_FORMAT, max_tokens=6)
    assert [reply.failed for reply in replies] == [False] * 4 and replies[3].text == replies[0].text
    for reply in replies:
        parse_label(reply.text)
        # the label's own tokens, then the end-of-turn token that stopped it
        assert reply.usage["completion_tokens"] == len(embedded_chat.tokenizer(reply.text)["input_ids"]) + 1
        assert reply.finish_reason == "stop"
    assert client.usage.calls == client.usage.requests == 3  # the repeated conversation asked once
    assert client.usage.prompt_tokens == sum(len(embedded_chat.prompt_ids(c)) for c in CLAIMS)
    again = client.chat_many(CLAIMS, reply_format=LABEL_FORMAT, max_tokens=6)
    assert all(reply.cached for reply in again) and client.usage.requests == 3
    rows = dict(client.usage_rows())
    assert rows["LLM model"] == "local:embedded" and rows["LLM generations"] == 3 and rows["LLM cache hits"] == 3
    # the format is part of the request, so an unconstrained client does not reuse the constrained replies
    free = InProcessLLMClient(embedded_chat, client.config, constrained=False)
    free.chat_many(CLAIMS[:1], reply_format=LABEL_FORMAT, max_tokens=2)
    assert free.usage.cache_hits == 0


def test_json_replies_parse_and_batching_does_not_change_greedy_replies(embedded_chat):
    client = _client(embedded_chat)
    schema = {"type": "object", "properties": {"answer": {"enum": ["yes", "no"]}}, "required": ["answer"],
              "additionalProperties": False}
    question = [{"role": "user", "content": "Is Paris in France? Reply in JSON."}]
    (reply,) = client.chat_many([question], reply_format=ReplyFormat.json_schema(schema), max_tokens=12)
    assert json.loads(reply.text)["answer"] in {"yes", "no"}
    alone = client.chat(CAPITAL, max_tokens=8)
    longer = [{"role": "user", "content": "Name three rivers of Europe and say where each one flows."}]
    together = client.chat_many([longer, CAPITAL, CAPITAL[:1] + [{"role": "user", "content": "Thanks."}]],
                                max_tokens=8)
    assert together[1].text == alone.text and "Paris" in alone.text
    if not alone.truncated:  # ended by the end-of-turn token, which counts as a completion token
        assert alone.usage["completion_tokens"] == len(embedded_chat.tokenizer(alone.text)["input_ids"]) + 1


def test_failures_are_replies_marked_failed_with_the_reason(embedded_chat, monkeypatch):
    client = _client(embedded_chat)
    (unknown,) = client.chat_many([CAPITAL], logit_bias={"1": 5})
    assert unknown.failed and "does not take logit_bias" in unknown.error
    short = client.chat(CAPITAL, max_tokens=3)
    assert not short.failed and short.truncated and short.usage["completion_tokens"] == 3
    monkeypatch.setattr(embedded_chat, "window", 20)
    too_long = client.chat(CAPITAL, max_tokens=3)
    assert too_long.failed and "the model's window is 20" in too_long.error
    assert client.usage.failures == 2
    with pytest.raises(BackendError, match="no completions endpoint"):
        client.complete("Paris is")


@pytest.mark.parametrize("setting", ["embedded", "local:", "local: ", "http://localhost:8000/v1"])
def test_the_setting_must_name_a_local_model(setting):
    with pytest.raises(ConfigError, match="llm must be local:PATH_OR_NAME"):
        local_model_name(setting)


def test_check_with_the_llm_checker_in_process(embedded_chat, monkeypatch, capsys, tmp_path):
    records = tmp_path / "one.jsonl"
    records.write_text((EXAMPLES / "check.jsonl").read_text(encoding="utf-8").splitlines()[0] + "\n")
    out = tmp_path / "checked.jsonl"
    ran = run_factscope(monkeypatch, capsys, "check", str(records), "--extractor", "sentences", "--checker", "llm",
                        "--llm", "local:embedded", "--llm-cache", "off", "-o", str(out))
    assert ran.code == 0, ran.text
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    labels = [claim["verdict"]["label"] for claim in row["claims"]]
    assert len(labels) == 3 and all(label in {"Entailment", "Neutral", "Contradiction"} for label in labels)
    assert "LLM generations" in ran.text and "local:embedded" in ran.text
    both = run_factscope(monkeypatch, capsys, "check", str(records), "--checker", "llm", "--llm", "local:embedded",
                         "--llm-base-url", "http://127.0.0.1:9/v1", "-o", str(tmp_path / "x.jsonl"))
    assert both.code != 0 and "leave --llm-base-url out" in both.text


class _OneByOne:
    """A chat model that answers each conversation in turn, noting each reply in ``events``."""

    spec = "one-by-one"

    def __init__(self, events: list[str]) -> None:
        self.events = events
        self.limits: list[list[int]] = []

    def generate(self, conversations, decoding, formats, on_reply, limits):
        self.limits.append(list(limits))
        for index, _ in enumerate(conversations):
            self.events.append(f"reply {index}")
            on_reply(index, Generated("Neutral", 3, 1))


def test_progress_moves_as_each_reply_is_written_not_after_the_batch():
    events: list[str] = []
    client = InProcessLLMClient(_OneByOne(events))
    replies = client.chat_many(CLAIMS, on_done=lambda: events.append("done"), reply_format=LABEL_FORMAT)
    assert [reply.text for reply in replies] == ["Neutral"] * 3
    assert events == ["reply 0", "done", "reply 1", "done", "reply 2", "done"]


def test_a_reply_past_its_time_budget_fails_and_says_so(embedded_chat):
    client = _client(embedded_chat, seconds=1e-6)
    (reply,) = client.chat_many(CLAIMS[:1], max_tokens=8)
    assert reply.failed and reply.text is None
    assert reply.error.startswith("no reply within the time budget of 1e-06 s a call (1 tokens written)")


def test_calls_with_different_token_limits_are_decoded_in_one_batch():
    model = _OneByOne([])
    InProcessLLMClient(model).chat_many(CLAIMS, max_tokens=[4, 8, 12], reply_format=LABEL_FORMAT)
    assert model.limits == [[4, 8, 12]]
