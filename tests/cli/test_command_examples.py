"""Every `factscope ...` example of every --help page and of the documentation's shell blocks runs as written, in
process, in a fresh folder holding the shipped example files, against the fake LLM server (with
OPENAI_API_KEY and OPENAI_BASE_URL set, as a reader's shell would name an endpoint). A file an example names
stands for a reader's own and a hub model for a tiny one, as tests/support/example_inputs.py lists; an example
that cannot run here is in EXCEPTIONS with the reason, and an exception that no longer matches an example fails."""

from __future__ import annotations

import contextlib
import glob
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from cli_entry import run_factscope
from command_examples import (
    Example,
    distinct_examples,
    doc_examples,
    help_examples,
    output_paths,
    placeholder_words,
)
from example_inputs import LOCAL_ENDPOINT, MODELS, Workspace, model_path, with_tiny_defaults
from factscope.checkers.registry import CHECKERS
from plugin_path import plugins_from
from repo_paths import EXAMPLES

HELP = help_examples()
DOCS = doc_examples()

RAY = "starts a Ray cluster (tests/engines run the ray engine on small shards)"
SERVE = "serves until stopped (tests/serve start the app)"
WEB = "searches the web with a Serper key (tests/retrieve use a fake search service)"
GPU = "runs on a CUDA GPU"
QWEN = "loads a 1.5B-parameter model from the hub cache (tests/hf run local:embedded)"
WIKIDATA = "queries Wikidata over the network (tests/kalma use a fake SPARQL endpoint)"
LONG = (
    "checks the repository's 814 evaluation pairs with the default checker, minutes on a CPU "
    "(tests/evaluation read both files)"
)

EXCEPTIONS = {
    "factscope check shards/ --engine ray --concurrency 4 # on a local Ray": RAY,
    "factscope check answers.jsonl --engine ray # a local Ray cluster, two actors": RAY,
    "SERPER_API_KEY=... factscope check answers.jsonl --retriever web:serper": WEB,
    "factscope serve # http://127.0.0.1:8000, offline models": SERVE,
    "FACTSCOPE_API_KEY=... factscope serve --host 0.0.0.0 --data-dir /var/lib/factscope": SERVE,
    "factscope eval-checker llm_aggrefact_test.parquet --checker embedded --checker minicheck:lytang/MiniCheck-Flan-T5-Large --checker hhem:vectara/hallucination_evaluation_model --device cuda -o compare.json": GPU,
    "HF_HUB_OFFLINE=1 factscope check examples/check.jsonl --extractor llm --checker llm --llm local:Qwen/Qwen2.5-1.5B-Instruct -o checked.jsonl": QWEN,
    "HF_HUB_OFFLINE=1 factscope serve # http://127.0.0.1:8000, offline models": SERVE,
    "factscope attribute generate questions.jsonl --retrieve wikidata --sparql-interval 1 -o answers.jsonl": WIKIDATA,
    "factscope attribute score answers/ --engine ray -o scored/": RAY,
    "factscope check /shared/shards/ --engine ray --ray-address auto --concurrency 16 -o /shared/checked/": RAY,
    "factscope check answers.jsonl --retriever web:serper": WEB,
    "factscope check shards/ --engine ray --concurrency 8 --num-gpus 0.25 --device cuda # 4 actors per GPU, 2 GPUs": RAY,
    "factscope check shards/ --engine ray --concurrency 8 -o checked/ # a folder of JSONL shards": RAY,
    "factscope check shards/ --engine ray --ray-address ray://head:10001 --concurrency 16 --num-gpus 0.25 --device cuda": RAY,
    "factscope check zero.jsonl --retriever web:serper": WEB,
    "factscope eval-checker llm_aggrefact_test.parquet --checker embedded --checker minicheck:lytang/MiniCheck-RoBERTa-Large --checker minicheck:lytang/MiniCheck-Flan-T5-Large --checker hhem:vectara/hallucination_evaluation_model --checker alignscore:AlignScore-large.ckpt --device cuda -o compare.json": GPU,
    "factscope ground score responses/ --engine ray --by pop # generic JSONL records with responses": RAY,
    "factscope knowledge score records/ --engine ray --corpus wiki.jsonl": RAY,
    "factscope eval-checker benchmarks/data/hard_pairs.jsonl benchmarks/data/counterfactual_pairs.jsonl": LONG,
    "factscope train-checker --data my_claims.jsonl --encoder my_checker_fp32 --epochs 1 --learning-rate 5e-5 --device cuda --out my_claims_checker": GPU,
}
"""Examples that cannot run offline in a test, with the reason (each must match an example)."""

NOT_YET_RUN: dict[str, str] = {}
"""Examples that can run offline but do not yet, with what is missing (each must match an example); to be
emptied."""

_LOCAL_URL = re.compile(r"^http://(?:localhost|127\.0\.0\.1):\d+/v1$")


def _system(words: list[str]) -> str:
    """Which kind of input the command reads: its system's, RefChecker's annotations for agree, or labelled pairs
    for the checker commands."""
    command = words[1] if len(words) > 1 else ""
    if command in ("ground", "attribute", "knowledge", "agree"):
        return command
    return "pairs" if command in ("train-checker", "eval-checker") else "check"


def _as_written(words: list[str], space: Workspace, base_url: str, folder: Path) -> list[str]:
    """The command's words with each hub model name as its tiny model, a local endpoint as the fake server and a
    glob expanded in ``folder`` (as the shell would); a model name after --llm-model is the endpoint's and kept."""
    written = []
    for index, word in enumerate(words):
        if index and words[index - 1] == "--llm-model":
            written.append(word)
            continue
        if _LOCAL_URL.match(word) or word == LOCAL_ENDPOINT:
            word = base_url
        name = word.split(":", 1)[-1]
        if name in MODELS:
            word = word[: len(word) - len(name)] + str(model_path(space, name))
        if "*" in word:
            written.extend(sorted(glob.glob(word, root_dir=folder)) or [word])
            continue
        written.append(word)
    return written


def _run(example: Example, folder: Path, space: Workspace, fake_llm, monkeypatch, capsys) -> None:
    def factscope(where: Path, *argv: str) -> None:
        monkeypatch.chdir(where)
        ran = run_factscope(monkeypatch, capsys, *argv)
        assert ran.code == 0, f"factscope {' '.join(argv)}: {ran.text}"
        monkeypatch.chdir(folder)

    if not any(command[:2] == ["factscope", "examples"] for command in example.commands()):
        shutil.copytree(EXAMPLES, folder / "examples")
    monkeypatch.chdir(folder)
    for name, value in example.environment:
        monkeypatch.setenv(name, _LOCAL_URL.sub(fake_llm.base_url, value))
    for command in example.commands():
        while command and "=" in command[0]:
            name, value = command.pop(0).split("=", 1)
            monkeypatch.setenv(name, value)
        assert command[0] == "factscope", example.line
        outputs = output_paths(command)
        for word in placeholder_words(command[1:]):
            if word not in outputs:
                space.make_input(_system(command), word, folder, factscope)
        with contextlib.ExitStack() as installed:
            for name in _packaged_checkers(command):
                site = space.installed_checker(name, factscope)
                module = "factscope_checker_" + name.replace("-", "_")
                installed.enter_context(plugins_from(site, CHECKERS, module, monkeypatch))
            factscope(
                folder, *_as_written(with_tiny_defaults(command, space), space, fake_llm.base_url, folder)[1:]
            )
        for output in outputs:
            written = folder / output
            assert written.exists(), f"{example.line}: no {output}"
            if written.is_file():
                assert written.stat().st_size > 0, f"{example.line}: {output} is empty"
            if written.suffix == ".jsonl":
                assert all(json.loads(line) for line in written.read_text(encoding="utf-8").splitlines())
    _check_requests(example, fake_llm.requests)


def _packaged_checkers(words: list[str]) -> list[str]:
    """The checker names after --checker that no installed checker has: a wheel of `factscope package-checker`
    that the example's reader installed (installed here from the session's checker)."""
    named = [words[index + 1] for index, word in enumerate(words[:-1]) if word == "--checker"]
    return [name for name in named if ":" not in name and name not in CHECKERS.names()]


def _check_requests(example: Example, requests: list[dict]) -> None:
    """Each LLM request carries the key in effect (FACTSCOPE_LLM_API_KEY, else the OpenAI SDK's OPENAI_API_KEY)
    and, where the example names models with --llm-model, one of them (and there is a request)."""
    key = os.environ.get("FACTSCOPE_LLM_API_KEY") or os.environ["OPENAI_API_KEY"]
    models = {
        words[index + 1]
        for words in example.commands()
        for index, word in enumerate(words[:-1])
        if word == "--llm-model"
    }
    assert requests or not models, f"{example.line}: no LLM request"
    for request in requests:
        assert request["headers"]["Authorization"] == f"Bearer {key}", example.line
        assert not models or request["json"]["model"] in models, example.line


CASES = distinct_examples(HELP + DOCS, set(EXCEPTIONS) | set(NOT_YET_RUN))
"""Each example command run once, though a --help page and a guide, or two guides, show it."""


@pytest.mark.parametrize(
    "example", [pytest.param(case, id=f"{case.source}: {case.line[:70]}") for case in CASES]
)
def test_an_example_runs_as_written(example, reader_shell, example_workspace, tmp_path, monkeypatch, capsys):
    folder = tmp_path / "run"
    folder.mkdir()
    _run(example, folder, example_workspace, reader_shell, monkeypatch, capsys)


def test_every_exception_matches_an_example():
    assert (set(EXCEPTIONS) | set(NOT_YET_RUN)) - {example.line for example in HELP + DOCS} == set()


def test_the_examples_are_found():
    assert len(HELP) > 40 and len(DOCS) > 90
    assert {"factscope check --help", "factscope ground score --help", "factscope knowledge score --help"} <= {
        example.source for example in HELP
    }
