"""`factscope serve` hands every option to the library's ``serve`` in the dataclass that declares it (``Startup``,
``ServeConfig``, ``Components``, ``Limits``, the web settings), the API key also from FACTSCOPE_API_KEY; ``serve``
refuses an address other than loopback without a key before it builds anything, and ``Components.needs_llm``
says whether the chosen components need an LLM client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

import uvicorn
from typer.testing import CliRunner

from command_line import command_line
from factscope.cli import serve as serve_command
from factscope.core.errors import ConfigError
from factscope.serve import app as serve_app
from factscope.serve.config import Components, Limits, ServeConfig, Startup


def _served(monkeypatch: pytest.MonkeyPatch, *argv: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """What `factscope serve ARGV` hands the library's ``serve`` (which is not run)."""
    handed: dict[str, Any] = {}
    monkeypatch.setattr(serve_app, "serve", lambda config, startup: handed.update(config=config, startup=startup))
    result = CliRunner().invoke(command_line(serve_command), ["serve", *argv], env=env)
    assert result.exit_code == 0, result.output
    return handed


def test_every_kind_of_option_reaches_the_dataclass_that_declares_it(monkeypatch, tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    handed = _served(
        monkeypatch, "--port", "9001", "--no-warm", "--data-dir", str(tmp_path / "data"), "--batch-wait-ms", "0",
        "--check-checker", "mpnet", "--check-retriever", "wikipedia", "--corpus", str(corpus), "--lm", "none",
        "--mode", "fast", "--max-records", "3", "--search-results", "5",
        env={"FACTSCOPE_API_KEY": "from-env"},
    )
    config: ServeConfig = handed["config"]
    assert handed["startup"] == Startup(host="127.0.0.1", port=9001, warm=False)
    assert config.data_dir == tmp_path / "data" and config.batch_wait_ms == 0.0 and config.api_key == "from-env"
    assert config.limits == Limits(max_records=3)
    components = config.components
    assert (components.check_checker, components.check_retriever, components.mode) == ("mpnet", "wikipedia", "fast")
    assert components.knowledge_corpus == corpus and components.knowledge_lm == "none" and components.llm is None
    assert components.web.results_per_query == 5


def test_the_defaults_are_the_dataclasses_and_an_empty_key_is_none(monkeypatch):
    handed = _served(monkeypatch, "--lm", "none", env={"FACTSCOPE_API_KEY": ""})
    assert handed["startup"] == Startup()
    assert handed["config"] == ServeConfig(components=Components(knowledge_lm="none"))


def test_serve_refuses_another_address_without_a_key_and_runs_uvicorn_at_the_address(monkeypatch, tmp_path):
    ran: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **where: ran.append(where))
    with pytest.raises(ConfigError, match="`api_key`"):
        serve_app.serve(ServeConfig(data_dir=tmp_path), Startup(host="0.0.0.0"))
    assert ran == []
    serve_app.serve(ServeConfig(data_dir=tmp_path, api_key="k"), Startup(host="0.0.0.0", port=9002))
    serve_app.serve(ServeConfig(data_dir=tmp_path))
    assert [(where["host"], where["port"]) for where in ran] == [("0.0.0.0", 9002), ("127.0.0.1", 8000)]


@pytest.mark.parametrize(("components", "needed"), [
    (Components(), False),
    (Components(knowledge_lm="embedded"), False),
    (Components(knowledge_lm="endpoint"), True),
    (Components(check_extractor="llm"), True),
    (Components(ground_extractor="llm-facts"), True),
    (Components(attribute_checker="llm"), True),
    (Components(ground_presence="llm"), True),
])
def test_components_say_whether_they_need_an_llm(components: Components, needed: bool):
    assert components.needs_llm() is needed


def test_a_data_dir_default_is_relative_to_where_the_server_starts():
    assert ServeConfig().data_dir == Path(".factscope/serve")
