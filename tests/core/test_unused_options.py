"""No option is ignored in silence: a checker setting given with a checker that does not use it, and an LLM given
to a run whose components call none, are refused with a message that says which components would use them;
every pair is tried, against a table of which checker uses which setting written here, apart from the rules."""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Any

import pytest
from typer.testing import CliRunner

import factscope
from command_line import command_line
from factscope.checkers.options import CheckerOptions
from factscope.core.errors import ConfigError
from factscope.core.options.metadata import option_fields
from factscope.refchecker.spec import CheckSpec

SEGMENTING = {"embedded", "mpnet", "accurate", "nli", "path"}
MODEL = SEGMENTING | {"minicheck", "hhem", "alignscore"}
USED_BY: dict[str, set[str]] = {
    "max_tokens": SEGMENTING,
    "window_sentences": SEGMENTING,
    "min_window_sentences": SEGMENTING,
    "exact_scoring": MODEL,
    "relevance": MODEL,
    "min_relevance": MODEL,
    "min_confidence": MODEL,
    "mismatch": MODEL,
    "mode": MODEL,
    "threshold": MODEL,
    "decision": MODEL,
    "device": MODEL - {"nli"},
    "precision": {"embedded", "mpnet", "accurate", "path"},
    "label_order": {"nli", "path"},
    "similarity_threshold": {"similarity"},
    "llm_mode": {"llm"},
    "llm_passages": {"llm"},
}
"""Which checkers (by name; `llm` with RefChecker's prompt, not llm:minicheck) use each setting."""

SET: dict[str, Any] = {
    "max_tokens": 100, "window_sentences": 2, "min_window_sentences": 1, "exact_scoring": "every",
    "relevance": "off", "min_relevance": 0.3, "min_confidence": 0.5, "mismatch": "off", "mode": "fast",
    "threshold": 0.5, "decision": "off", "device": "cpu", "precision": "int8", "label_order": ["no", "yes"], "similarity_threshold": 0.5,
    "llm_mode": "single", "llm_passages": "together",
}
"""A value away from its default for each setting."""

CHECKERS = {
    "embedded": {"embedded"}, "mpnet": {"mpnet"}, "accurate": {"accurate"}, "nli:some/model": {"nli"}, "path:folder": {"path"},
    "minicheck:some/model": {"minicheck"}, "hhem:some/model": {"hhem"}, "alignscore:model.ckpt": {"alignscore"},
    "similarity": {"similarity"}, "llm": {"llm"}, "llm:minicheck": set(), "cascade:embedded,llm": {"embedded", "llm"},
}
"""Each checker spec and the names it counts as in ``USED_BY`` (llm:minicheck uses none of the llm settings)."""


class ReadyChecker:
    """A checker built already: it takes no setting."""

    name = "ready"

    def check(self, tasks):
        return []


def test_the_table_covers_every_checker_setting():
    assert {item.name for item in option_fields(CheckerOptions)} == set(USED_BY) == set(SET)


PAIRS = [pytest.param(name, checker, id=f"{name}-{checker}") for name in USED_BY for checker in CHECKERS]


@pytest.mark.parametrize(("name", "checker"), PAIRS)
def test_a_checker_setting_is_refused_where_the_checker_does_not_use_it(name, checker):
    used = bool(USED_BY[name] & CHECKERS[checker])
    if used:
        assert CheckSpec(checker=checker, checker_settings={name: SET[name]}).checker_settings == CheckerOptions(
            **{name: SET[name]}
        )
    else:
        with pytest.raises(ConfigError, match=f"`{name}` counts only with"):
            CheckSpec(checker=checker, checker_settings={name: SET[name]})


@pytest.mark.parametrize("name", sorted(USED_BY))
def test_no_setting_is_taken_with_a_ready_checker(name):
    with pytest.raises(ConfigError, match="not .*a ready checker|`checker='similarity'`|`checker='llm'`|nli:MODEL"):
        CheckSpec(checker=ReadyChecker(), checker_settings={name: SET[name]})


def test_settings_at_their_defaults_are_taken_with_any_checker():
    for checker in [*CHECKERS, ReadyChecker()]:
        assert CheckSpec(checker=checker, checker_settings=CheckerOptions()).checker_settings == CheckerOptions()


NO_LLM = [
    ("check", lambda llm: factscope.check([], llm=llm)),
    ("ground", lambda llm: factscope.ground([], llm=llm)),
    ("attribute", lambda llm: factscope.attribute([], llm=llm)),
    ("knowledge", lambda llm: factscope.knowledge([], llm=llm)),
]


@pytest.mark.parametrize(("system", "call"), NO_LLM, ids=[system for system, _ in NO_LLM])
def test_the_api_refuses_an_llm_no_component_calls(system, call):
    with pytest.raises(ConfigError, match="`llm` counts only with .*`checker`|`llm` counts only with .*`presence`"):
        call(object())


LLM_OPTIONS = [
    ["--llm", "local:embedded"], ["--llm-base-url", "http://127.0.0.1:9/v1"], ["--llm-model", "m"],
    ["--llm-api-key", "k"], ["--llm-config", "llm.toml"], ["--llm-concurrency", "2"], ["--llm-cache", "off"],
    ["--llm-price-prompt", "0.1"], ["--llm-price-completion", "0.1"],
]
COMMANDS = {
    "check": (["check", "input.jsonl"], "--extractor"),
    "ground score": (["ground", "score", "input.jsonl"], "--presence"),
    "attribute score": (["attribute", "score", "input.jsonl", "-o", "out.jsonl"], "--geval"),
    "knowledge score": (["knowledge", "score", "input.jsonl"], "--checker"),
    "agree": (["agree", "human.json", "-i", "input.jsonl"], "--checker"),
    "eval-checker": (["eval-checker", "input.jsonl"], "--checker"),
}
"""Each command with an LLM endpoint whose defaults call none, and a flag its refusal names as a user."""


def _invoke(arguments: list[str]) -> tuple[int, str, BaseException | None]:
    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
        result = CliRunner().invoke(command_line(), arguments, env={"COLUMNS": "300", "HF_HUB_OFFLINE": "1"})
        assert os.listdir(folder) == []
    return result.exit_code, " ".join(result.output.replace("│", " ").split()), result.exception


@pytest.mark.parametrize("given", LLM_OPTIONS, ids=[given[0] for given in LLM_OPTIONS])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_an_llm_option_is_refused_where_no_component_calls_an_llm(command, given):
    arguments, user = COMMANDS[command]
    code, output, _ = _invoke([*arguments, *given])
    assert code == 2 and f"Invalid value for '{given[0]}': {given[0]} counts only with" in output, output
    assert user in output


def test_an_llm_option_is_taken_where_a_component_calls_an_llm():
    """The run goes on, and stops on its missing input."""
    _, output, error = _invoke(["check", "input.jsonl", "--checker", "llm", "--llm-concurrency", "2"])
    assert "counts only" not in output and "input.jsonl: file not found" in str(error), (output, error)


def test_no_checker_factory_takes_keywords_it_does_not_read():
    """A factory takes the options whole and the LLM; no ``**kwargs`` that could swallow a setting."""
    import inspect

    from factscope.checkers.registry import CHECKERS

    for name in CHECKERS.own_names():
        parameters = inspect.signature(CHECKERS.get(name).factory).parameters
        assert list(parameters) == ["argument", "options", "llm"], name
