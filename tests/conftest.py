"""Session-wide test settings (no model hub access) and the `fake_llm` fixture.

``fake_llm`` is a running FakeLLMServer (see tests/fake_llm.py): script replies with
``fake_llm.script([...])`` or set ``fake_llm.responder``; point a client at ``fake_llm.base_url``.
"""

import os

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

from fake_llm import FakeLLMServer


@pytest.fixture
def fake_llm():
    """A fake OpenAI-compatible server on 127.0.0.1 with an empty reply queue, stopped after the test."""
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def app():
    """The factscope command line with every command registered, for typer's CliRunner (no entry-point handler:
    exceptions reach the test)."""
    import typer

    from factscope.cli import commands

    application = typer.Typer()

    @application.callback()
    def main() -> None:
        """factscope (test app)."""

    for module in commands.MODULES:
        module.register(application)
    return application
