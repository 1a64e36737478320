"""``LLMEndpoint``: an endpoint's client from its settings (the environment and config file filling the rest),
the errors naming the setting to give, and the command line's errors naming its options."""

import pytest

from factscope.cli.llm_options import LLMOptions
from factscope.core.errors import ConfigError
from factscope.hf.llm_endpoint import LLMEndpoint


@pytest.fixture(autouse=True)
def _no_settings_around(monkeypatch, tmp_path):
    for name in ("FACTSCOPE_LLM_BASE_URL", "FACTSCOPE_LLM_MODEL", "FACTSCOPE_LLM_CACHE", "FACTSCOPE_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))


def test_the_client_takes_the_settings_given(fake_llm):
    endpoint = LLMEndpoint(base_url=fake_llm.base_url, model="fake", concurrency=3, cache_path="off",
                           price_prompt_per_1k=0.5)
    config = endpoint.build().config
    assert (config.base_url, config.model) == (fake_llm.base_url, "fake")
    assert config.concurrency == 3 and config.cache_path is None
    assert config.price_prompt_per_1k == 0.5 and config.price_completion_per_1k is None
    assert endpoint.build_if(False) is None and endpoint.configured()


def test_settings_from_the_config_file_fill_the_rest(fake_llm, tmp_path):
    config_file = tmp_path / "config.toml"
    config_file.write_text(
        f'[llm]\nbase_url = "{fake_llm.base_url}"\nmodel = "from-file"\n', encoding="utf-8"
    )
    endpoint = LLMEndpoint(config_path=config_file, cache_path="off")
    assert endpoint.configured() and endpoint.build().config.model == "from-file"


def test_a_missing_endpoint_names_the_setting_and_the_command_line_its_flag():
    assert not LLMEndpoint().configured()
    with pytest.raises(ConfigError, match="no LLM endpoint: pass `base_url`") as missing:
        LLMEndpoint().build()
    for way in ("FACTSCOPE_LLM_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "[llm] in", "pass `local`"):
        assert way in str(missing.value)
    with pytest.raises(ConfigError, match="no LLM model: pass --llm-model"):
        LLMOptions(base_url="http://127.0.0.1:9/v1").build()
    with pytest.raises(ConfigError, match=r"pass --llm-base-url .* or pass --llm to run a model in-process"):
        LLMOptions().build()


def test_openai_api_key_alone_means_openais_endpoint_and_openai_base_url_moves_it(monkeypatch, fake_llm):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    config = LLMEndpoint(model="gpt-4o-mini", cache_path="off").build().config
    assert (config.base_url, config.api_key) == ("https://api.openai.com/v1", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    assert LLMEndpoint(model="gpt-4o-mini", cache_path="off").build().config.base_url == fake_llm.base_url
    monkeypatch.setenv("FACTSCOPE_LLM_BASE_URL", "http://127.0.0.1:9/v1")  # factscope's own variable comes first
    assert LLMEndpoint(model="m", cache_path="off").build().config.base_url == "http://127.0.0.1:9/v1"
    assert LLMEndpoint(base_url="http://127.0.0.2:9/v1", model="m").build().config.base_url == "http://127.0.0.2:9/v1"


def test_a_key_for_another_endpoint_does_not_choose_openai(monkeypatch):
    monkeypatch.setenv("FACTSCOPE_LLM_API_KEY", "for-my-vllm")
    with pytest.raises(ConfigError, match="no LLM endpoint"):
        LLMEndpoint(model="m").build()


def test_an_in_process_model_and_an_endpoint_together_are_refused():
    both = {"local": "local:embedded", "base_url": "http://127.0.0.1:9/v1"}
    in_library = "^`local` runs a model in-process: leave `base_url` out, or leave `local` out$"
    with pytest.raises(ConfigError, match=in_library):
        LLMEndpoint(**both).build()
    on_the_command_line = "^--llm runs a model in-process: leave --llm-base-url out, or leave --llm out$"
    with pytest.raises(ConfigError, match=on_the_command_line):
        LLMOptions(**both).build()
    assert LLMEndpoint(local="local:embedded").configured()
