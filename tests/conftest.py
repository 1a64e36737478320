"""Session-wide test settings (no model hub access), the `fake_llm`, `reader_shell` and `example_workspace`
fixtures, the `local_llm` fixture (a real local server, tests/support/local_llm.py) and the `embedded_chat`
fixture (the embedded model in-process).

``fake_llm`` is a running FakeLLMServer (see tests/support/fake_llm.py): script replies with
``fake_llm.script([...])`` or set ``fake_llm.responder``; point a client at ``fake_llm.base_url``.
"""

import os

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
for _name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):  # they choose an endpoint: a developer's shell must not
    os.environ.pop(_name, None)

from command_line import command_line
from fake_llm import FakeLLMServer


@pytest.fixture(scope="session")
def local_llm(tmp_path_factory):
    """A real OpenAI-compatible server on 127.0.0.1 (llama-cpp-python's, with the embedded SmolLM2-135M-Instruct),
    started once for the session (see tests/support/local_llm.py); skipped where the lm extra is not installed."""
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed: pip install 'factscope[llamacpp]'")
    from factscope.hf.embedded_lm import embedded_model_path
    from local_llm import LocalLLMServer

    with LocalLLMServer(embedded_model_path(), tmp_path_factory.mktemp("local_llm") / "server.log") as server:
        yield server


@pytest.fixture(scope="session")
def embedded_chat():
    """The embedded SmolLM2-135M-Instruct as an in-process chat model, loaded once for the session (dequantised
    on the first run and then read from the user's cache); skipped, outside CI, where it is not installed."""
    from factscope.hf.chat_model import shared_chat_model
    from factscope.hf.embedded_lm import embedded_lm_available
    from optional_extras import require_extra

    require_extra(embedded_lm_available(), "lm")
    return shared_chat_model("embedded")


@pytest.fixture
def fake_llm():
    """A fake OpenAI-compatible server on 127.0.0.1 with an empty reply queue, stopped after the test."""
    with FakeLLMServer() as server:
        yield server


@pytest.fixture(scope="session")
def example_workspace(tmp_path_factory):
    """The tiny models, results files and checker folders that the documentation's examples stand on, each built
    on first use and shared by the tests that run the examples (tests/support/example_inputs.py)."""
    from example_inputs import Workspace

    return Workspace(tmp_path_factory.mktemp("example_inputs"))


@pytest.fixture
def reader_shell(tmp_path, fake_llm, monkeypatch):
    """A reader's shell for the documentation's examples: an endpoint named by OPENAI_API_KEY and OPENAI_BASE_URL
    (the fake server, answering each of factscope's prompts in its shape), no cache, no config file of its own;
    the fake server is returned."""
    from example_replies import reply

    for name in ("FACTSCOPE_LLM_BASE_URL", "FACTSCOPE_LLM_MODEL", "FACTSCOPE_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("FACTSCOPE_LLM_CACHE", "off")
    fake_llm.responder = reply
    return fake_llm


@pytest.fixture
def app():
    """The factscope command line with every command registered, for typer's CliRunner (no entry-point handler:
    exceptions reach the test)."""
    return command_line()
