"""Every numeric option has a range, enforced while the command line is parsed: a value outside it is a usage
error (exit code 2) naming the option, printed before any file is read or model loaded, and no results file is
made."""

from __future__ import annotations

import contextlib
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from command_line import command_line
from factscope.core.seeds import SEED_MAX

APP = command_line()

INPUT = "input.jsonl"
"""An input file that does not exist: a command whose options parse would stop on it (never the case here)."""

ARGS: dict[str, list[str]] = {
    "check": ["check", INPUT],
    "agree": ["agree", "human.json", "-i", INPUT],
    "ground score": ["ground", "score", INPUT],
    "ground generate": ["ground", "generate", INPUT, "-o", "out.jsonl"],
    "ground calibrate": ["ground", "calibrate", INPUT],
    "attribute generate": ["attribute", "generate", INPUT, "-o", "out.jsonl"],
    "attribute score": ["attribute", "score", INPUT, "-o", "out.jsonl"],
    "attribute make-questions": ["attribute", "make-questions", INPUT, "-o", "out.jsonl"],
    "knowledge score": ["knowledge", "score", INPUT],
    "knowledge generate": ["knowledge", "generate", INPUT],
    "knowledge select": ["knowledge", "select", INPUT],
    "knowledge agree": ["knowledge", "agree", INPUT, "human.jsonl"],
    "train-checker": ["train-checker", "--data", INPUT, "--out", "checker"],
    "report": ["report", INPUT],
    "examples": ["examples", "folder"],
    "checkers": ["checkers"],
    "eval-checker": ["eval-checker", INPUT],
    "export": ["export", INPUT, "-o", "out.csv"],
    "eval-spans": ["eval-spans", INPUT, INPUT],
    "package-checker": ["package-checker", "checker", "--name", "mine"],
    "serve": ["serve"],
}
"""Each command with the arguments it requires."""

COUNT = ["0", "-1"]
NON_NEGATIVE = ["-1"]
SEED = ["-1", str(SEED_MAX + 1)]
COSINE = ["-1.5", "1.5", "nan", "inf", "-inf"]
SHARE = ["-0.1", "1.5", "nan", "inf"]
NON_NEGATIVE_FINITE = ["-1", "inf", "nan"]
SEGMENT_TOKENS = ["-1", "1", "7"]
Q_KNOW_WEIGHTS = ["1,2", "0.25,0.25,0.25,nan", "-1,1,1,1", "a,b,c,d", "1,1,1,1,1", "inf,0,0,0"]

LLM = {
    "--llm-concurrency": COUNT,
    "--llm-timeout": ["0", "-1", "nan"],
    "--llm-price-prompt": NON_NEGATIVE_FINITE,
    "--llm-price-completion": NON_NEGATIVE_FINITE,
}
ENGINE = {"--concurrency": COUNT, "--num-gpus": NON_NEGATIVE_FINITE}
WEB = {
    "--search-results": ["0", "21"],
    "--passage-words": ["7"],
    "--web-concurrency": ["0", "65"],
    "--web-timeout": ["0", "nan", "inf"],
    "--web-retries": ["-1", "11"],
    "--max-page-bytes": ["1023"],
    "--cache-max-age": NON_NEGATIVE_FINITE,
}
KNOWLEDGE_SCORING = {
    "--evidence-k": COUNT,
    "--weights": Q_KNOW_WEIGHTS,
    "--seed": SEED,
    "--batch-size": COUNT,
}

BAD_VALUES: dict[str, dict[str, list[str]]] = {
    "check": {
        "--segment-tokens": SEGMENT_TOKENS,
        "--window-sentences": NON_NEGATIVE,
        "--min-window-sentences": COUNT,
        "--threshold": ["-0.1", "1.5"],
        "--relevance": ["semantic"],
        "--precision": ["int4", "fp16"],
        "--min-relevance": SHARE,
        "--min-confidence": SHARE,
        "--similarity-threshold": COSINE,
        "--top-k": COUNT,
        "--batch-size": COUNT,
        "--max-reference-chars": COUNT,
        **ENGINE,
        **LLM,
        **WEB,
    },
    "agree": {
        "--segment-tokens": SEGMENT_TOKENS,
        "--window-sentences": NON_NEGATIVE,
        "--min-window-sentences": COUNT,
        "--batch-size": COUNT,
        **LLM,
    },
    "ground score": {
        "--threshold": ["1.5", "-1.5", "nan", "inf", "-inf"],
        "--window": NON_NEGATIVE,
        "--stride": COUNT,
        "--min-window": COUNT,
        "--batch-size": COUNT,
        **ENGINE,
        **LLM,
    },
    "ground generate": {
        "--budget": NON_NEGATIVE,
        "--depth": COUNT,
        "--seed": SEED,
        "--max-tokens": COUNT,
        "--batch-size": COUNT,
        **LLM,
    },
    "ground calibrate": {"--window": NON_NEGATIVE, "--stride": COUNT, "--min-window": COUNT, **LLM},
    "attribute generate": {
        "--remove": NON_NEGATIVE,
        "--retrieval-accuracy": SHARE,
        "--seed": SEED,
        "--sparql-interval": NON_NEGATIVE_FINITE,
        "--temperature": NON_NEGATIVE_FINITE,
        **LLM,
    },
    "attribute score": {**ENGINE, **LLM},
    "attribute make-questions": {"--rounds": COUNT, "--seed": SEED, **LLM},
    "knowledge score": {**KNOWLEDGE_SCORING, "--baselines": COUNT, **ENGINE, **LLM, **WEB},
    "knowledge generate": {**KNOWLEDGE_SCORING, "--shots": COUNT, "--select-from": COUNT, **LLM},
    "knowledge select": {
        **KNOWLEDGE_SCORING,
        "--candidates": ["1", "0", "-1"],
        "--top-p": ["0", "-0.5", "1.5", "nan"],
        "--temperature": NON_NEGATIVE_FINITE,
        "--shots": COUNT,
        **LLM,
    },
    "knowledge agree": {},
    "train-checker": {
        "--layers": ["a", "1,,2", "1.5", ""],
        "--epochs": COUNT,
        "--learning-rate": ["0", "-1e-4", "nan", "inf"],
        "--seed": SEED,
        "--limit": ["2", "0", "-1"],
        "--threads": COUNT,
        "--long-context": SHARE,
        "--context-words": ["9", "0"],
        "--context-epochs": NON_NEGATIVE,
        "--unrelated-context": SHARE,
        "--members": COUNT,
        "--attention-dropout": ["-0.1", "0.95", "nan"],
        "--cues": ["maybe", "yes"],
        "--class-biases": ["maybe"],
        "--precision": ["fp16", "int8"],
        "--weights": ["int4", "fp32"],
        "--focus-words": ["19", "2001"],
        "--max-per-set": COUNT,
        "--window-sentences": NON_NEGATIVE,
        "--min-window-sentences": COUNT,
        "--teacher-weight": ["0", *SHARE],
        "--lora-rank": NON_NEGATIVE,
        "--lora-alpha": COUNT,
        "--encoder-layers": COUNT,
    },
    "report": {"--limit": NON_NEGATIVE, "--only": ["bad", "neutral"]},
    "examples": {},
    "checkers": {},
    "eval-checker": {
        "--limit": COUNT,
        "--threshold": ["nan", "inf", "-inf"],
        "--segment-tokens": SEGMENT_TOKENS,
        "--window-sentences": NON_NEGATIVE,
        "--min-window-sentences": COUNT,
        "--similarity-threshold": COSINE,
        "--precision": ["int4"],
        "--batch-size": COUNT,
        **LLM,
    },
    "export": {},
    "eval-spans": {"--overlap": ["mean"]},
    "package-checker": {},
    "serve": {
        **WEB,
        "--port": ["-1", "65536"],
        "--batch-wait-ms": ["-1", "nan", "inf"],
        "--batch-records": COUNT,
        "--job-batch-size": COUNT,
        "--job-lease-seconds": ["0.5", "3601", "nan", "inf"],
        "--max-body-bytes": COUNT,
        "--max-upload-bytes": COUNT,
        "--max-records": COUNT,
        "--max-field-chars": COUNT,
        **LLM,
    },
}
"""Values each option refuses, per command: below and above its range, and nan / inf for floats."""

STRING_OPTIONS_WITH_A_RULE = {
    ("knowledge score", "--weights"),
    ("knowledge generate", "--weights"),
    ("knowledge select", "--weights"),
    ("train-checker", "--layers"),
}
"""Text options whose value is checked while parsing (comma-separated numbers)."""


def _command(path: str) -> Any:
    command: Any = typer.main.get_command(APP)
    for word in path.split():
        command = command.commands[word]
    return command


def _leaf_paths(command: Any, path: str = "") -> list[str]:
    if hasattr(command, "commands"):
        return [leaf for name, sub in command.commands.items() for leaf in _leaf_paths(sub, f"{path} {name}".strip())]
    return [path]


def _flat(text: str) -> str:
    """The output with rich's box drawing and line wrapping taken out."""
    return " ".join(text.replace("│", " ").split())


def _invoke(arguments: list[str]) -> tuple[int, str, list[str]]:
    """Run the test app in an empty folder: the exit code, the output and the files left in the folder."""
    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
        result = CliRunner().invoke(APP, arguments, env={"COLUMNS": "200", "HF_HUB_OFFLINE": "1"})
        left = sorted(os.listdir(folder))
    return result.exit_code, _flat(result.output), left


def _refused(code: int, output: str, left: list[str], option: str) -> bool:
    """A usage error naming ``option``, with no traceback and nothing written."""
    return code == 2 and f"Invalid value for '{option}'" in output and "Traceback" not in output and left == []


def test_every_command_is_in_the_table():
    assert sorted(_leaf_paths(typer.main.get_command(APP))) == sorted(BAD_VALUES)
    assert sorted(ARGS) == sorted(BAD_VALUES)


@pytest.mark.parametrize("path", sorted(BAD_VALUES))
def test_every_numeric_and_choice_option_is_in_the_table(path):
    """Every int and float option of every command (typer names their types 'int' and 'float')."""
    numeric = set()
    for param in _command(path).params:
        kind = param.bare_type()
        name = param.opts[0] if param.opts else param.name
        if kind in ("int", "float") or (path, name) in STRING_OPTIONS_WITH_A_RULE:
            numeric.add(name)
    tabled = set(BAD_VALUES[path])
    assert numeric or path in {"examples", "export", "eval-spans", "knowledge agree", "package-checker", "checkers"}, (
        f"{path}: no numeric option found"
    )
    assert numeric <= tabled, f"{path}: options without bad values in the table: {sorted(numeric - tabled)}"


CASES = [
    pytest.param(path, option, value, id=f"{path} {option} {value}")
    for path, options in BAD_VALUES.items()
    for option, values in options.items()
    for value in values
]


@pytest.mark.parametrize(("path", "option", "value"), CASES)
def test_a_value_outside_the_range_is_a_usage_error(path, option, value):
    code, output, left = _invoke([*ARGS[path], f"{option}={value}"])
    assert _refused(code, output, left, option), (code, output, left)


@pytest.mark.parametrize(
    ("presence", "threshold"),
    [("bi", "1.5"), ("bi:some/model", "-1.01"), ("nli", "1.5"), ("nli:embedded", "-0.1"), ("llm", "2"),
     ("cross", "nan"), ("cross", "inf"), ("my-plugin", "-inf")],
)
@pytest.mark.parametrize("threshold_first", [True, False])
def test_the_presence_threshold_fits_the_presence_model(presence, threshold, threshold_first):
    options = [f"--threshold={threshold}", f"--presence={presence}"]
    code, output, left = _invoke([*ARGS["ground score"], *(options if threshold_first else options[::-1])])
    assert _refused(code, output, left, "--threshold"), (code, output, left)


def test_range_help_is_shown():
    """typer lists a declared range in --help; the ranges that callbacks check are written in the help text."""
    code, output, _ = _invoke(["check", "--help"])
    assert code == 0 and "[x>=1]" in output and "[-1.0<=x<=1.0]" in output and "8 or more" in output
    code, output, _ = _invoke(["ground", "score", "--help"])
    assert code == 0 and "any with cross" in output
    code, output, _ = _invoke(["knowledge", "score", "--help"])
    assert code == 0 and "four comma-separated numbers of 0 or more" in output


def _check_outcome(arguments: list[str], option: str, in_range: bool) -> None:
    """A value in range parses (the command then stops on the missing input file); any other is refused."""
    code, output, left = _invoke(arguments)
    if in_range:
        assert f"Invalid value for '{option}'" not in output, output
    else:
        assert _refused(code, output, left, option), (code, output, left)


QUICK = settings(max_examples=40, deadline=None)
NUMBERS = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([-1.0, 0.0, 1.0, -0.0, 1e-9, 1 - 1e-9])


@QUICK
@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_check_batch_size(value):
    _check_outcome([*ARGS["check"], "--batch-size", str(value)], "--batch-size", value >= 1)


@QUICK
@given(st.integers(min_value=-(10**6), max_value=10**6))
def test_check_segment_tokens(value):
    _check_outcome([*ARGS["check"], "--segment-tokens", str(value)], "--segment-tokens", value == 0 or value >= 8)


@QUICK
@given(NUMBERS)
def test_check_similarity_threshold(value):
    _check_outcome(
        [*ARGS["check"], "--checker", "similarity", f"--similarity-threshold={value!r}"],
        "--similarity-threshold",
        -1.0 <= value <= 1.0,
    )


@QUICK
@given(NUMBERS, st.sampled_from(["bi", "nli", "llm", "cross", "nli:embedded"]), st.booleans())
def test_ground_threshold(value, presence, threshold_first):
    ranges = {"bi": (-1.0, 1.0), "nli": (0.0, 1.0), "llm": (0.0, 1.0)}
    low, high = ranges.get(presence.split(":")[0], (-math.inf, math.inf))
    options = [f"--threshold={value!r}", f"--presence={presence}"]
    _check_outcome(
        [*ARGS["ground score"], *(options if threshold_first else options[::-1])],
        "--threshold",
        math.isfinite(value) and low <= value <= high,
    )


@QUICK
@given(NUMBERS)
def test_attribute_retrieval_accuracy(value):
    _check_outcome(
        [*ARGS["attribute generate"], f"--retrieval-accuracy={value!r}"], "--retrieval-accuracy", 0.0 <= value <= 1.0
    )


@QUICK
@given(st.lists(NUMBERS, min_size=1, max_size=6))
def test_knowledge_weights(weights):
    text = ",".join(repr(w) for w in weights)
    valid = len(weights) == 4 and all(math.isfinite(w) and w >= 0 for w in weights)
    _check_outcome([*ARGS["knowledge score"], "--checker", "none", f"--weights={text}"], "--weights", valid)


@pytest.mark.parametrize(
    ("arguments", "option"),
    [
        (["check", INPUT, "--batch-size", "-1"], "--batch-size"),
        (["ground", INPUT, "--threshold", "1.5"], "--threshold"),
        (["knowledge", "score", INPUT, "--evidence-k", "-1"], "--evidence-k"),
    ],
)
def test_the_entry_point_exits_2_naming_the_option(tmp_path, arguments, option):
    result = subprocess.run(
        [sys.executable, "-m", "factscope", *arguments],
        capture_output=True,
        check=False,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "COLUMNS": "200"},
        timeout=120,
    )
    output = _flat(result.stdout + result.stderr)
    assert result.returncode == 2, output
    assert f"Invalid value for '{option}'" in output and "Traceback" not in output
    assert list(Path(tmp_path).iterdir()) == []


IGNORED = [
    ("check", ["--relevance", "off", "--min-relevance", "0.3"], "--min-relevance"),
    ("check", ["--top-k", "3"], "--top-k"),
    ("check", ["--retriever", "dense"], "--retriever"),
    ("check", ["--similarity-threshold", "0.5"], "--similarity-threshold"),
    ("check", ["--segment-tokens", "0", "--window-sentences", "2"], "--window-sentences"),
    ("check", ["--window-sentences", "0", "--min-window-sentences", "1"], "--min-window-sentences"),
    ("check", ["--window-sentences", "2", "--min-window-sentences", "3"], "--min-window-sentences"),
    ("check", ["--checker", "similarity", "--mode", "fast"], "--mode"),
    ("check", ["--checker", "llm", "--min-confidence", "0.5"], "--min-confidence"),
    ("check", ["--checker", "llm:minicheck", "--threshold", "0.5"], "--threshold"),
    ("check", ["--checker", "nli:some/model", "--precision", "int8"], "--precision"),
    ("check", ["--device", "cuda", "--precision", "int8"], "--precision"),
    ("attribute score", ["--checker", "similarity", "--mode", "fast"], "--mode"),
    ("knowledge score", ["--checker", "llm", "--mode", "fast"], "--mode"),
    ("agree", ["--segment-tokens", "0", "--window-sentences", "2"], "--window-sentences"),
    ("eval-checker", ["--segment-tokens", "0", "--window-sentences", "2"], "--window-sentences"),
    ("eval-checker", ["--segment-tokens", "0", "--min-window-sentences", "1"], "--min-window-sentences"),
    ("ground score", ["--window", "0", "--stride", "2"], "--stride"),
    ("ground score", ["--window", "2", "--min-window", "3"], "--min-window"),
    ("ground calibrate", ["--window", "0", "--min-window", "1"], "--min-window"),
    ("knowledge generate", ["--shots", "4"], "--shots"),
    ("knowledge generate", ["--select-from", "9"], "--select-from"),
    ("knowledge select", ["--shots", "4"], "--shots"),
]
"""An option given where the run would ignore or misuse it: each is refused, naming it."""

COUNTING = [
    ("check", ["--relevance", "lexical", "--min-relevance", "0.3"]),
    ("check", ["--checker", "similarity", "--similarity-threshold", "0.5"]),
    ("check", ["--segment-tokens", "100", "--window-sentences", "2"]),
    ("check", ["--checker", "cascade:embedded,mpnet", "--device", "cpu", "--precision", "int8"]),
    ("check", ["--checker", "nli:some/model", "--mode", "fast", "--min-confidence", "0.5", "--threshold", "0.5"]),
    ("knowledge score", ["--checker", "embedded", "--mode", "fast"]),
    ("ground score", ["--window", "3", "--min-window", "2", "--stride", "2"]),
    ("knowledge generate", ["--mode", "few", "--shots", "4", "--select-from", "9"]),
]
"""The same options where they count: they parse, and the command stops on its missing input."""


@pytest.mark.parametrize(("path", "options", "option"), IGNORED, ids=[f"{p} {o}" for p, _, o in IGNORED])
def test_an_option_the_run_would_ignore_is_refused(path, options, option):
    code, output, left = _invoke([*ARGS[path], *options])
    assert _refused(code, output, left, option), (code, output, left)
    assert "counts only" in output


@pytest.mark.parametrize(("path", "options"), COUNTING, ids=[f"{p} {' '.join(o)}" for p, o in COUNTING])
def test_the_same_options_where_they_count_are_taken(path, options):
    _code, output, _ = _invoke([*ARGS[path], *options])
    assert "Invalid value" not in output and "counts only" not in output, output


def test_the_ray_engine_options_on_the_local_engine_are_warned_about():
    _code, output, _ = _invoke([*ARGS["check"], "--concurrency", "3"])
    assert "warning --concurrency counts only with --engine ray; this run ignores it" in output
    _code, output, _ = _invoke([*ARGS["check"], "--engine", "ray", "--concurrency", "3"])
    assert "counts only" not in output
