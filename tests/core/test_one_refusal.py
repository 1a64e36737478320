"""A spec refuses what any front-end refuses, in the same words: every field with a limit (``min``, ``max``,
``check``) of the four system specs, the checker options and the web settings, given a value outside it, is
refused by the Python API (a ConfigError naming the parameter), by the command line (a usage error naming the
flag, with the library's words after it) and, where a request may set it, by the server (a 422 with the same
words)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from dataclasses import Field, fields
from typing import Any

import pytest
from typer.testing import CliRunner

import factscope
from command_line import command_line
from factscope.checkers.options import CheckerOptions
from factscope.cli.option_groups import option_flags
from factscope.conner.spec import KnowledgeSpec
from factscope.core.errors import ConfigError
from factscope.core.options.validation import ValidatedOptions
from factscope.grounding.spec import GroundSpec
from factscope.kalma.spec import AttributeSpec
from factscope.refchecker.spec import CheckSpec
from factscope.retrieve.web_settings import WebSettings

INPUT = "input.jsonl"
"""An input file that does not exist: a run whose options are taken would stop on it (never the case here)."""

FRONT_ENDS: dict[type, tuple[Callable[[dict[str, Any]], object], list[str], str | None]] = {
    CheckSpec: (lambda given: factscope.check([], **given), ["check", INPUT], "check"),
    CheckerOptions: (lambda given: factscope.check([], checker_settings=given), ["check", INPUT], None),
    WebSettings: (lambda given: factscope.check([], retriever="web:serper", web=WebSettings(**given)),
                  ["check", INPUT, "--retriever", "web:serper"], None),
    GroundSpec: (lambda given: factscope.ground([], **given), ["ground", "score", INPUT], "ground"),
    AttributeSpec: (lambda given: factscope.attribute([], **given), ["attribute", "score", INPUT, "-o", "out.jsonl"],
                    "attribute/score"),
    KnowledgeSpec: (lambda given: factscope.knowledge([], **given), ["knowledge", "score", INPUT], "knowledge/score"),
}
"""Each dataclass: its API call with some of its fields given, the command that offers them, and the server's
system whose requests may set the ones marked ``per_request``."""

CONTEXT: dict[str, dict[str, Any]] = {"similarity_threshold": {"checker": "similarity"}, "top_k": {"corpus": "c.jsonl"}}
"""The other parameters a field's rule needs, so that only its limit is tested (the API's keyword and the flag)."""

CHECKED = {"max_tokens": 3, "weights": "1,2", "template": "{bad}", "language": "e n"}
"""A value each field with a ``check`` refuses."""


def _bad_values(item: Field[Any]) -> list[Any]:
    """Values outside the field's limits: under its least, over its most, and one its check refuses."""
    meta = item.metadata
    bad = []
    if "min" in meta:
        low = meta["min"]
        bad.append(low if meta.get("min_open") else low - (0.5 if isinstance(low, float) else 1))
    if "max" in meta:
        bad.append(meta["max"] + (0.5 if isinstance(meta["max"], float) else 1))
    if "check" in meta:
        bad.append(CHECKED[item.name])
    return bad


CASES = [
    pytest.param(group, item, value, id=f"{group.__name__}.{item.name}={value}")
    for group in FRONT_ENDS
    for item in fields(group)
    if "help" in item.metadata
    for value in _bad_values(item)
]


def test_every_dataclass_with_a_limit_is_covered_and_validates_itself():
    assert len({case.values[0] for case in CASES}) == len(FRONT_ENDS)
    assert all(issubclass(group, ValidatedOptions) for group in FRONT_ENDS)


def _api_refusal(group: type, item: Field[Any], value: Any) -> str:
    call, _, _ = FRONT_ENDS[group]
    with pytest.raises(ConfigError) as refused:
        call({item.name: value})
    return str(refused.value)


@pytest.mark.parametrize(("group", "item", "value"), CASES)
def test_the_api_and_the_command_line_refuse_in_the_same_words(group, item, value):
    words = _api_refusal(group, item, value)
    assert f"`{item.name}`" in words
    _, arguments, _ = FRONT_ENDS[group]
    flag = option_flags(item)[0].split("/")[0]
    context = [part for name, given in CONTEXT.get(flag[2:].replace("-", "_"), {}).items()
               for part in (f"--{name}", str(given))]
    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
        result = CliRunner().invoke(
            command_line(), [*arguments, *context, f"{flag}={value}"], env={"COLUMNS": "300", "HF_HUB_OFFLINE": "1"}
        )
        assert os.listdir(folder) == []
    shown = " ".join(result.output.replace("│", " ").split())
    assert result.exit_code == 2 and f"Invalid value for '{flag}'" in shown, shown
    assert words.replace(f"`{item.name}`", flag) in shown, (words, shown)


PER_REQUEST = [case for case in CASES if case.values[1].metadata.get("per_request")]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from factscope.serve.app import create_app
    from factscope.serve.config import ServeConfig

    app = create_app(ServeConfig(data_dir=tmp_path_factory.mktemp("refusal")), warm=False)
    with TestClient(app) as client:
        yield client


@pytest.mark.parametrize(("group", "item", "value"), PER_REQUEST)
def test_the_server_refuses_a_request_option_in_the_same_words(server, group, item, value):
    assert PER_REQUEST, "no option with a limit is set per request"
    words = _api_refusal(group, item, value)
    _, _, system = FRONT_ENDS[group]
    answer = server.post(f"/v1/{system}", json={"records": [{}], item.name: value})
    assert answer.status_code == 422
    problem = answer.json()["error"]
    assert problem["field"] == item.name and problem["message"].endswith(words), problem


def test_the_issues_probes_are_refused_with_the_command_lines_words():
    """`retrieve_k=0`, a segment budget of 3 tokens and a misspelt setting, through the API."""
    with pytest.raises(ConfigError, match="`retrieve_k` must be at least 1, not 0"):
        factscope.check([], retrieve_k=0)
    with pytest.raises(ConfigError, match="`max_tokens`: give 0 .each reference whole. or at least 8 tokens"):
        factscope.check([], checker_settings={"max_tokens": 3})
    with pytest.raises(ConfigError, match="unknown checker setting 'max_token'; did you mean 'max_tokens'"):
        factscope.check([], checker_settings={"max_token": 48})
