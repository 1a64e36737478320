"""Session-wide test settings (no model hub access), the `fake_llm` fixture and the `local_llm` fixture (a real
local server, tests/support/local_llm.py).

``fake_llm`` is a running FakeLLMServer (see tests/support/fake_llm.py): script replies with
``fake_llm.script([...])`` or set ``fake_llm.responder``; point a client at ``fake_llm.base_url``.
"""

import os

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

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


@pytest.fixture
def fake_llm():
    """A fake OpenAI-compatible server on 127.0.0.1 with an empty reply queue, stopped after the test."""
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def app():
    """The factscope command line with every command registered, for typer's CliRunner (no entry-point handler:
    exceptions reach the test)."""
    return command_line()
