"""The OpenAI-compatible client against the fake server: retries, timeouts, cache, concurrency, usage."""

import pytest

from factscope.core.errors import BackendError, ConfigError
from factscope.llm.client import LLMClient, LLMConfig
from fake_llm import Fail, Hang, Logprobs, Raw

HELLO = [{"role": "user", "content": "say hello"}]


def make_client(server, tmp_path=None, sleeps=None, **settings):
    config = LLMConfig(
        base_url=server.base_url,
        model="fake-model",
        api_key=settings.pop("api_key", None),
        cache_path=(tmp_path / "cache.sqlite") if tmp_path is not None else None,
        **settings,
    )
    return LLMClient(config, sleep=(sleeps.append if sleeps is not None else lambda seconds: None))


def test_chat_sends_model_messages_temperature_and_key(fake_llm):
    fake_llm.script(["hello there"])
    client = make_client(fake_llm, api_key="sk-test")
    reply = client.chat(HELLO, max_tokens=5)
    assert (reply.text, reply.failed, reply.cached) == ("hello there", False, False)
    request = fake_llm.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["json"] == {"model": "fake-model", "messages": HELLO, "temperature": 0.0, "max_tokens": 5}
    assert request["headers"]["Authorization"] == "Bearer sk-test"


def test_429_with_retry_after_is_retried_after_the_given_wait(fake_llm):
    fake_llm.script([Fail(429, "slow down", retry_after=7), "ok"])
    sleeps = []
    client = make_client(fake_llm, sleeps=sleeps)
    reply = client.chat(HELLO)
    assert reply.text == "ok" and reply.attempts == 2
    assert sleeps == [7.0]
    assert (client.usage.retries, client.usage.requests, client.usage.failures) == (1, 2, 0)


def test_retry_after_is_capped_and_backoff_doubles_up_to_the_cap(fake_llm):
    fake_llm.script([Fail(429, retry_after=500), Fail(503), Fail(503), Fail(503), "ok"])
    sleeps = []
    client = make_client(fake_llm, sleeps=sleeps, backoff_base=1.0, backoff_max=3.0, max_retries=4)
    assert client.chat(HELLO).text == "ok"
    # retry 0: Retry-After 500 capped at 3; retries 1, 2, 3: min(3, 1 * 2**n) = 2, 3, 3 times a factor in [0.5, 1]
    assert sleeps[0] == 3.0
    for wait, ceiling in zip(sleeps[1:], (2.0, 3.0, 3.0), strict=True):
        assert ceiling * 0.5 <= wait <= ceiling


def test_exhausted_500s_give_failed_replies_not_exceptions(fake_llm):
    fake_llm.script([Fail(500, "boom")] * 3 + ["fine"])
    client = make_client(fake_llm, max_retries=2, concurrency=1)
    first, second = client.chat_many([HELLO, [{"role": "user", "content": "again"}]])
    assert first.failed and first.text is None and first.attempts == 3
    assert "HTTP 500" in first.error and "boom" in first.error and "after 3 attempts" in first.error
    assert second.text == "fine" and not second.failed
    assert client.usage.failures == 1 and client.usage.retries == 2


def test_client_errors_other_than_rate_limits_are_not_retried(fake_llm):
    fake_llm.script([Fail(400, "context too long")])
    reply = make_client(fake_llm).chat(HELLO)
    assert reply.failed and "context too long" in reply.error
    assert len(fake_llm.requests) == 1


def test_rejected_key_raises_a_backend_error_naming_the_settings(fake_llm):
    fake_llm.script([Fail(401, "invalid api key")])
    with pytest.raises(BackendError, match="invalid api key.*FACTSCOPE_LLM_API_KEY"):
        make_client(fake_llm).chat(HELLO)


def test_hang_times_out_and_the_retry_succeeds(fake_llm):
    fake_llm.script([Hang(30), "after the hang"])
    client = make_client(fake_llm, timeout=0.3)
    reply = client.chat(HELLO)
    assert reply.text == "after the hang" and reply.attempts == 2
    assert client.usage.retries == 1


def test_malformed_json_body_is_a_failure_with_the_raw_body(fake_llm):
    fake_llm.script([Raw("<html>proxy error</html>")])
    reply = make_client(fake_llm).chat(HELLO)
    assert reply.failed and reply.raw == "<html>proxy error</html>" and "not JSON" in reply.error
    assert len(fake_llm.requests) == 1


def test_reply_without_content_fails_and_is_not_cached(fake_llm, tmp_path):
    fake_llm.script([Raw('{"choices": []}'), "now fine"])
    client = make_client(fake_llm, tmp_path)
    bad = client.chat(HELLO)
    assert bad.failed and "unexpected reply" in bad.error and bad.raw == '{"choices": []}'
    assert client.chat(HELLO).text == "now fine"
    assert len(fake_llm.requests) == 2


def test_second_call_is_served_from_the_cache_with_no_request(fake_llm, tmp_path):
    fake_llm.script(["cached answer"])
    make_client(fake_llm, tmp_path).chat(HELLO)
    again = make_client(fake_llm, tmp_path)  # a new client on the same cache file, e.g. a resumed run
    reply = again.chat(HELLO)
    assert (reply.text, reply.cached) == ("cached answer", True)
    assert len(fake_llm.requests) == 1
    assert (again.usage.calls, again.usage.cache_hits, again.usage.requests) == (1, 1, 0)
    assert again.usage.prompt_tokens == 0  # tokens count what was paid for in this run


def test_cache_key_includes_parameters(fake_llm, tmp_path):
    fake_llm.script(["cold", "warm"])
    client = make_client(fake_llm, tmp_path)
    assert client.chat(HELLO).text == "cold"
    assert client.chat(HELLO, temperature=0.7).text == "warm"
    assert client.chat(HELLO).text == "cold"
    assert len(fake_llm.requests) == 2


def test_failures_are_never_cached(fake_llm, tmp_path):
    fake_llm.script([Fail(400, "bad"), "good"])
    client = make_client(fake_llm, tmp_path)
    assert client.chat(HELLO).failed
    assert client.chat(HELLO).text == "good"


def test_chat_many_keeps_order_bounds_concurrency_and_sends_duplicates_once(fake_llm):
    fake_llm.delay = 0.15
    fake_llm.responder = lambda request: "echo " + request["messages"][0]["content"]
    conversations = [[{"role": "user", "content": f"q{i}"}] for i in range(6)] + [
        [{"role": "user", "content": "q0"}]
    ]
    done = []
    client = make_client(fake_llm, concurrency=2)
    replies = client.chat_many(conversations, on_done=lambda: done.append(1))
    assert [reply.text for reply in replies] == [f"echo q{i}" for i in range(6)] + ["echo q0"]
    assert len(fake_llm.requests) == 6 and len(done) == 7
    assert fake_llm.max_in_flight == 2


def test_usage_totals_and_cost(fake_llm):
    # the fake counts whitespace words: prompt "say hello" = 2 tokens, replies 3 and 1 tokens
    fake_llm.script(["one two three", "four"])
    client = make_client(fake_llm, price_prompt_per_1k=0.5, price_completion_per_1k=2.0)
    client.chat(HELLO)
    client.chat(HELLO, seed=1)
    usage = client.usage
    assert (usage.calls, usage.requests, usage.prompt_tokens, usage.completion_tokens) == (2, 2, 4, 4)
    # cost = 4 / 1000 * 0.5 + 4 / 1000 * 2.0 = 0.002 + 0.008 = 0.01
    assert usage.cost(0.5, 2.0) == pytest.approx(0.01)
    rows = dict(client.usage_rows())
    assert rows["LLM cost"] == pytest.approx(0.01) and rows["LLM calls"] == 2
    assert usage.cost(None, None) is None


def test_complete_returns_prompt_token_logprobs(fake_llm):
    fake_llm.script([Logprobs(["Paris", " is", " nice"], [None, -1.5, -0.25])])
    client = make_client(fake_llm)
    reply = client.complete("Paris is nice", logprobs=1)
    assert reply.tokens == ["Paris", " is", " nice"] and reply.token_logprobs == [None, -1.5, -0.25]
    body = fake_llm.requests[0]["json"]
    assert fake_llm.requests[0]["path"] == "/v1/completions"
    assert (body["prompt"], body["echo"], body["logprobs"], body["max_tokens"]) == (
        "Paris is nice",
        True,
        1,
        0,
    )


def test_complete_passes_text_offsets_and_rejects_uneven_logprobs(fake_llm, tmp_path):
    fake_llm.script(
        [
            Logprobs(["a", "b"], [None, -1.0, -2.0]),
            Logprobs(["Hi", " you"], [None, -0.5], text_offset=[0, 2]),
        ]
    )
    client = make_client(fake_llm, tmp_path)
    uneven = client.complete("a b")
    assert uneven.failed and "differ in length" in uneven.error
    assert client.complete("Hi you").text_offset == [0, 2]
    assert client.usage.failures == 1


def test_complete_failure_is_marked(fake_llm):
    fake_llm.script([Fail(500)] * 2)
    reply = make_client(fake_llm, max_retries=1).complete("x")
    assert reply.failed and reply.tokens == [] and "HTTP 500" in reply.error


def test_resolve_prefers_flags_then_environment_then_config_file(tmp_path, monkeypatch):
    config_file = tmp_path / "config.toml"
    config_file.write_text(
        '[llm]\nbase_url = "http://file.example.org/v1"\nmodel = "file-model"\napi_key = "file-key"\nconcurrency = 3\n'
        'cache_path = "off"\n'
    )
    for name in ("FACTSCOPE_LLM_BASE_URL", "FACTSCOPE_LLM_MODEL", "FACTSCOPE_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FACTSCOPE_LLM_MODEL", "env-model")
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    config = LLMConfig.resolve(base_url="http://flag.example.org/v1", config_path=config_file)
    assert (config.base_url, config.model, config.api_key) == ("http://flag.example.org/v1", "env-model", "env-key")
    assert config.concurrency == 3 and config.cache_path is None


def test_resolve_names_the_missing_setting(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no config file there
    for name in ("FACTSCOPE_LLM_BASE_URL", "FACTSCOPE_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match="FACTSCOPE_LLM_BASE_URL"):
        LLMConfig.resolve(model="m")
    with pytest.raises(ConfigError, match="--llm-model.*FACTSCOPE_LLM_MODEL"):
        LLMConfig.resolve(base_url="http://x.example.org/v1")


def test_resolve_rejects_unknown_config_keys_and_missing_files(tmp_path):
    config_file = tmp_path / "config.toml"
    config_file.write_text('[llm]\nbase_url = "http://x.example.org/v1"\nmodle = "typo"\n')
    with pytest.raises(ConfigError, match="unknown setting.*modle"):
        LLMConfig.resolve(config_path=config_file)
    with pytest.raises(ConfigError, match="not found"):
        LLMConfig.resolve(config_path=tmp_path / "missing.toml")


def test_a_fatal_error_stops_the_batch_early(fake_llm):
    fake_llm.delay = 0.05
    fake_llm.script([Fail(401, "invalid api key")] * 40)
    client = make_client(fake_llm, concurrency=2)
    with pytest.raises(BackendError):
        client.chat_many([[{"role": "user", "content": f"q{i}"}] for i in range(40)])
    assert len(fake_llm.requests) < 10


def test_settings_are_validated():
    with pytest.raises(ConfigError, match="concurrency must be at least 1.*timeout must be positive"):
        LLMConfig(base_url="http://x.example.org/v1", model="m", concurrency=0, timeout=0)
