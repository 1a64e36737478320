"""The OpenAI-compatible client against the fake server: retries, timeouts, cache, concurrency, usage; the
settings (flags > environment > config file > defaults) and the retry policy."""

import email.utils
import time
from pathlib import Path

import httpx
import pytest

from factscope.core.errors import BackendError, ConfigError
from factscope.llm.client import LLMClient, LLMConfig
from factscope.llm.config import default_cache_path
from factscope.llm.retry import RetryPolicy, retry_after_seconds
from fake_llm import Fail, Hang, Logprobs, Raw
from loopback import closed_port

SETTINGS_ENV = ("FACTSCOPE_LLM_BASE_URL", "FACTSCOPE_LLM_MODEL", "FACTSCOPE_LLM_API_KEY", "OPENAI_API_KEY",
                "FACTSCOPE_LLM_CACHE", "FACTSCOPE_LLM_TIMEOUT", "FACTSCOPE_LLM_CONCURRENCY")

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
    with pytest.raises(ConfigError, match="`model`.*FACTSCOPE_LLM_MODEL"):
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


@pytest.fixture
def clean_env(tmp_path, monkeypatch):
    """No FACTSCOPE_LLM_* / OPENAI_API_KEY from the shell, and config and cache homes inside tmp_path."""
    for name in SETTINGS_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache-home"))
    return monkeypatch


@pytest.mark.parametrize(
    ("flag", "env", "in_file", "expected"),
    [(9.0, "7", 5.0, 9.0), (None, "7", 5.0, 7.0), (None, None, 5.0, 5.0), (None, None, None, 60.0)],
)
def test_each_setting_comes_from_flag_then_env_then_file_then_default(tmp_path, clean_env, flag, env, in_file,
                                                                      expected):
    config_file = tmp_path / "config.toml"
    config_file.write_text('[llm]\nbase_url = "http://file.example.org/v1"\nmodel = "m"\n'
                           + (f"timeout = {in_file}\n" if in_file is not None else ""))
    if env is not None:
        clean_env.setenv("FACTSCOPE_LLM_TIMEOUT", env)
    config = LLMConfig.resolve(config_path=config_file, timeout=flag)
    assert config.timeout == expected


def test_the_default_config_file_is_read_and_the_cache_defaults_to_the_cache_home(tmp_path, clean_env):
    default_file = tmp_path / "config-home" / "factscope" / "config.toml"
    default_file.parent.mkdir(parents=True)
    default_file.write_text('[llm]\nbase_url = "http://file.example.org/v1"\nmodel = "file-model"\n')
    config = LLMConfig.resolve()
    assert (config.base_url, config.model) == ("http://file.example.org/v1", "file-model")
    assert config.api_key is None
    assert config.cache_path == default_cache_path() == tmp_path / "cache-home/factscope/llm-cache.sqlite"
    clean_env.setenv("FACTSCOPE_LLM_CACHE", "off")
    assert LLMConfig.resolve().cache_path is None
    assert LLMConfig.resolve(cache_path="~/replies.sqlite").cache_path == Path.home() / "replies.sqlite"


def test_factscope_key_beats_openai_key_and_a_flag_beats_both(clean_env):
    clean_env.setenv("OPENAI_API_KEY", "openai-key")
    assert LLMConfig.resolve("http://x.example.org/v1", "m").api_key == "openai-key"
    clean_env.setenv("FACTSCOPE_LLM_API_KEY", "factscope-key")
    assert LLMConfig.resolve("http://x.example.org/v1", "m").api_key == "factscope-key"
    assert LLMConfig.resolve("http://x.example.org/v1", "m", "flag-key").api_key == "flag-key"
    assert "factscope-key" not in repr(LLMConfig.resolve("http://x.example.org/v1", "m"))


def test_direct_construction_reads_nothing_from_the_environment(clean_env):
    clean_env.setenv("FACTSCOPE_LLM_TIMEOUT", "7")
    clean_env.setenv("OPENAI_API_KEY", "openai-key")
    clean_env.setenv("FACTSCOPE_LLM_CACHE", "/tmp/somewhere.sqlite")
    config = LLMConfig(base_url="http://x.example.org/v1", model="m")
    assert (config.timeout, config.api_key, config.cache_path) == (60.0, None, None)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'[llm]\nmodel = "caf\xe9"\n', "is not UTF-8 text.*save it as UTF-8"),
        (b"[llm]\nmodel = gpt\n", "is not valid TOML.*fix it"),
        (b'llm = "gpt"\n', r"\[llm\] must be a table"),
        (b'[llm]\nmodle = "typo"\n', "unknown setting.*modle.*known: base_url"),
    ],
)
def test_a_bad_config_file_is_a_config_error_naming_the_file(tmp_path, clean_env, content, message):
    config_file = tmp_path / "bad.toml"
    config_file.write_bytes(content)
    with pytest.raises(ConfigError, match=message) as caught:
        LLMConfig.resolve(config_path=config_file)
    assert str(config_file) in str(caught.value)


def test_a_folder_as_config_file_is_a_config_error_even_at_the_default_place(tmp_path, clean_env):
    with pytest.raises(ConfigError, match="is a folder; pass the path of a TOML file"):
        LLMConfig.resolve(config_path=tmp_path)
    (tmp_path / "config-home" / "factscope" / "config.toml").mkdir(parents=True)
    with pytest.raises(ConfigError, match="config.toml is a folder"):
        LLMConfig.resolve("http://x.example.org/v1", "m")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"concurrency": -2}, r"concurrency must be at least 1 \(got -2\)"),
        ({"timeout": 0}, r"timeout must be positive seconds \(got 0\)"),
        ({"timeout": -1.5}, r"timeout must be positive seconds \(got -1.5\)"),
        ({"max_retries": -1}, "max_retries must be 0 or more"),
        ({"base_url": "localhost:8000/v1"}, "base_url must be an http:// or https:// URL.*localhost:8000/v1"),
        ({"base_url": "ftp://x.example.org"}, "base_url must be an http:// or https:// URL"),
        ({"concurrency": "many"}, "concurrency: input should be a valid integer"),
        ({"modle": "typo"}, "unknown setting modle"),
    ],
)
def test_bad_values_are_config_errors_naming_the_setting(settings, message):
    values = {"base_url": "http://x.example.org/v1", "model": "m", **settings}
    with pytest.raises(ConfigError, match=message):
        LLMConfig(**values)


def test_a_bad_value_from_the_environment_or_file_names_where_it_came_from(tmp_path, clean_env):
    clean_env.setenv("FACTSCOPE_LLM_CONCURRENCY", "-1")
    from_env = "concurrency must be at least 1.*from FACTSCOPE_LLM_CONCURRENCY in the environment"
    with pytest.raises(ConfigError, match=from_env):
        LLMConfig.resolve("http://x.example.org/v1", "m")
    clean_env.delenv("FACTSCOPE_LLM_CONCURRENCY")
    config_file = tmp_path / "config.toml"
    config_file.write_text('[llm]\nbase_url = "localhost:8000"\nmodel = "m"\n')
    with pytest.raises(ConfigError, match=f"base_url must be an http.*from \\[llm\\] in {config_file}"):
        LLMConfig.resolve(config_path=config_file)


@pytest.mark.parametrize("status", [408, 409, 425, 429, 500, 502, 503, 504])
def test_transient_statuses_are_retried(fake_llm, status):
    fake_llm.script([Fail(status, "not now"), "ok"])
    reply = make_client(fake_llm).chat(HELLO)
    assert (reply.text, reply.attempts, len(fake_llm.requests)) == ("ok", 2, 2)


@pytest.mark.parametrize("status", [400, 413, 422])
def test_other_client_errors_fail_at_once(fake_llm, status):
    fake_llm.script([Fail(status, "no")])
    sleeps = []
    reply = make_client(fake_llm, sleeps=sleeps).chat(HELLO)
    assert reply.failed and f"HTTP {status}" in reply.error and reply.attempts == 1
    assert len(fake_llm.requests) == 1 and sleeps == []


def test_attempts_are_bounded_by_max_retries(fake_llm):
    fake_llm.script([Fail(429, retry_after=0)] * 10)
    sleeps = []
    client = make_client(fake_llm, sleeps=sleeps, max_retries=3)
    reply = client.chat(HELLO)
    assert reply.failed and reply.attempts == 4 and "after 4 attempts" in reply.error
    assert len(fake_llm.requests) == 4 and sleeps == [0.0, 0.0, 0.0]
    assert (client.usage.requests, client.usage.retries, client.usage.failures) == (4, 3, 1)


def test_no_retries_means_one_attempt(fake_llm):
    fake_llm.script([Fail(503), "never sent"])
    reply = make_client(fake_llm, max_retries=0).chat(HELLO)
    assert reply.failed and reply.attempts == 1 and len(fake_llm.requests) == 1


def test_timeouts_that_persist_give_a_failed_reply(fake_llm):
    fake_llm.script([Hang(30), Hang(30)])
    reply = make_client(fake_llm, timeout=0.2, max_retries=1).chat(HELLO)
    assert reply.failed and reply.attempts == 2 and "timed out after 0.2s" in reply.error


def test_an_unreachable_endpoint_is_retried_then_a_failed_reply():
    sleeps = []
    config = LLMConfig(base_url=f"http://127.0.0.1:{closed_port()}/v1", model="m", max_retries=2)
    reply = LLMClient(config, sleep=sleeps.append).chat(HELLO)
    assert reply.failed and reply.attempts == 3 and "cannot reach http://127.0.0.1" in reply.error
    assert len(sleeps) == 2


def test_retry_after_may_be_an_http_date():
    moment = email.utils.formatdate(time.time() + 30, usegmt=True)
    seconds = retry_after_seconds(httpx.Response(429, headers={"Retry-After": moment}))
    assert seconds is not None and 25 <= seconds <= 30
    assert retry_after_seconds(httpx.Response(429, headers={"Retry-After": "soon"})) is None
    assert retry_after_seconds(httpx.Response(429, headers={"Retry-After": "-4"})) == 0.0
    assert retry_after_seconds(httpx.Response(503)) is None


def test_the_policy_returns_the_last_response_once_the_retries_are_spent():
    sleeps = []
    responses = iter([httpx.Response(500), httpx.Response(503), httpx.Response(502)])
    delivery = RetryPolicy(max_retries=2, backoff_base=0.0, sleep=sleeps.append).send(lambda: next(responses))
    assert delivery.response is not None and delivery.response.status_code == 502
    assert (delivery.attempts, delivery.error, sleeps) == (3, None, [0.0, 0.0])


def test_the_policy_lets_unexpected_exceptions_through_at_once():
    calls = []

    def broken() -> httpx.Response:
        calls.append(1)
        raise RuntimeError("a bug, not a network failure")

    with pytest.raises(RuntimeError, match="a bug"):
        RetryPolicy(sleep=lambda seconds: None).send(broken)
    assert len(calls) == 1


def test_the_policy_rejects_negative_settings():
    with pytest.raises(ConfigError, match="max_retries must be 0 or more"):
        RetryPolicy(max_retries=-1)
