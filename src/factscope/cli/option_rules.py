"""Options that count only with another option's value: given on the command line without it, the run would ignore
them (``--top-k`` without ``--corpus``) or misuse them (``--min-window`` over ``--window``), so they are refused,
as a value outside its range is: a usage error (exit code 2) naming the option, before any file is read or model
loaded. The Ray engine's options, which scripts pass for either engine, are only warned about on the local
engine. An option left at its default is never refused."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import typer

from factscope.cli.web_options import WEB_FLAGS


@dataclass(frozen=True)
class OptionRule:
    """``option`` counts only when ``holds`` is true of the parsed parameters; ``needs`` says when, for the
    message."""

    option: str
    holds: Callable[[Mapping[str, Any]], bool]
    needs: str
    refuse: bool = True
    """False: a warning, and the run goes on without the option."""

    @property
    def param(self) -> str:
        """The parameter of ``option`` (--top-k: top_k)."""
        return self.option[2:].replace("-", "_")


def refuse_ignored(context: typer.Context, rules: Sequence[OptionRule]) -> None:
    """Refuse, as a usage error, the first option of ``rules`` given on the command line whose rule does not hold,
    or warn about it when its rule only warns (called first thing in a command's body with its ``context``)."""
    from factscope.cli.display import console

    for rule in rules:
        source = context.get_parameter_source(rule.param)
        given = source is not None and source.name == "COMMANDLINE"
        if not given or rule.holds(context.params):
            continue
        if rule.refuse:
            raise typer.BadParameter(f"it counts only {rule.needs}", param_hint=f"'{rule.option}'")
        console.print(f"[bold yellow]warning[/] {rule.option} counts only {rule.needs}; this run ignores it")


def _checker_name(params: Mapping[str, Any]) -> str:
    return str(params.get("checker") or "").split(":", 1)[0]


def _on_ray(params: Mapping[str, Any]) -> bool:
    return params.get("engine") == "ray"


RAY_OPTIONS = (
    OptionRule("--concurrency", _on_ray, "with --engine ray", refuse=False),
    OptionRule("--num-gpus", _on_ray, "with --engine ray", refuse=False),
)
"""The Ray engine's options (every command with --engine)."""

SEGMENT_OPTIONS = (
    OptionRule(
        "--window-sentences",
        lambda p: not p.get("window_sentences") or p.get("segment_tokens") != 0,
        "with segments (--segment-tokens above 0): windows are cut within --segment-tokens",
    ),
    OptionRule(
        "--min-window-sentences",
        lambda p: p.get("segment_tokens") != 0 and p.get("window_sentences") != 0,
        "with sentence windows (--segment-tokens above 0, --window-sentences not 0)",
    ),
    OptionRule(
        "--min-window-sentences",
        lambda p: p.get("min_window_sentences") is None
        or not p.get("window_sentences")
        or p["min_window_sentences"] <= p["window_sentences"],
        "up to --window-sentences (the widest window)",
    ),
)
"""How model checkers read references (check, agree, eval-checker)."""

UNSEGMENTED_CHECKERS = frozenset({"similarity", "llm"})
"""Checkers that read each reference whole, with no segments, relevance floor or label decision of their own."""

MODEL_CHECKER = "with a model checker, not similarity or llm"


def _model_checker(params: Mapping[str, Any]) -> bool:
    return _checker_name(params) not in UNSEGMENTED_CHECKERS


def _web_retriever(params: Mapping[str, Any]) -> bool:
    from factscope.retrieve.web_retrievers import is_web_retriever

    return is_web_retriever(str(params.get("retriever") or ""))


def _retrieves(params: Mapping[str, Any]) -> bool:
    return params.get("corpus") is not None or _web_retriever(params)


WEB_OPTIONS = tuple(
    OptionRule(flag, _web_retriever, "with --retriever web:serper, web:brave or wikipedia")
    for flag in WEB_FLAGS
)
"""The web retrieval options (check, knowledge score)."""

FAST_MODE_OPTIONS = (
    OptionRule(
        "--mode",
        lambda p: p.get("mode") != "fast" or _model_checker(p),
        "with a model checker (embedded, nli, path, minicheck, hhem, alignscore), not similarity or llm",
    ),
)
"""The checking mode (check, attribute score, knowledge score)."""

CHECK_OPTIONS = (
    *RAY_OPTIONS,
    *SEGMENT_OPTIONS,
    *FAST_MODE_OPTIONS,
    OptionRule("--min-confidence", _model_checker, MODEL_CHECKER),
    OptionRule("--threshold", _model_checker, MODEL_CHECKER),
    OptionRule("--min-relevance", lambda p: p.get("relevance") == "lexical", "with --relevance lexical"),
    OptionRule("--top-k", _retrieves, "with --corpus or a web retriever (passages retrieved)"),
    OptionRule("--retriever", _retrieves, "with --corpus, or as web:serper, web:brave or wikipedia"),
    OptionRule("--retrieve-for", _retrieves, "with --corpus or a web retriever"),
    *WEB_OPTIONS,
    OptionRule(
        "--similarity-threshold", lambda p: _checker_name(p) == "similarity", "with --checker similarity"
    ),
)
"""`factscope check`."""

WINDOW = "with sentence windows (--window not 0)"

WINDOW_OPTIONS = (
    OptionRule("--stride", lambda p: p.get("window") != 0, WINDOW),
    OptionRule("--min-window", lambda p: p.get("window") != 0, WINDOW),
    OptionRule(
        "--min-window",
        lambda p: p.get("min_window") is None or p.get("window") is None or p["min_window"] <= p["window"],
        "up to --window (the widest window)",
    ),
)
"""Ground's presence windows (ground score, ground calibrate)."""

FEW_SHOT_OPTIONS = (
    OptionRule("--shots", lambda p: p.get("mode") == "few", "with --mode few"),
    OptionRule("--select-from", lambda p: p.get("mode") == "few", "with --mode few"),
)
"""Knowledge generation's demonstrations (knowledge generate, knowledge select)."""
