"""Every `factscope ...` example of every --help page and of the documentation's shell blocks runs as written, in
process, in a fresh folder holding the shipped example files, against the fake LLM server (with
OPENAI_API_KEY and OPENAI_BASE_URL set, as a reader's shell would name an endpoint). A file an example names
stands for a reader's own and a hub model for a tiny one, as tests/support/example_inputs.py lists; an example
that cannot run here is in EXCEPTIONS with the reason, and an exception that no longer matches an example fails."""

from __future__ import annotations

import glob
import json
import re
import shutil
from pathlib import Path

import pytest

from cli_entry import run_factscope
from command_examples import Example, doc_examples, help_examples, output_paths
from example_inputs import LOCAL_ENDPOINT, MODELS, Workspace, model_path
from example_replies import reply
from repo_paths import EXAMPLES

HELP = help_examples()
DOCS = doc_examples()

EXCEPTIONS = {
    "factscope check shards/ --engine ray --concurrency 4 # on a local Ray":
        "starts a Ray cluster (tests/engines run the ray engine on small shards)",
    "SERPER_API_KEY=... factscope check answers.jsonl --retriever web:serper":
        "searches the web with a Serper key (tests/retrieve run the web retrievers against a fake search service)",
    "factscope serve # http://127.0.0.1:8000, offline models": "serves until stopped (tests/serve start the app)",
    "FACTSCOPE_API_KEY=... factscope serve --host 0.0.0.0 --data-dir /var/lib/factscope":
        "serves until stopped, on every interface (tests/serve start the app)",
    "factscope eval-checker llm_aggrefact_test.parquet --checker embedded --checker "
    "minicheck:lytang/MiniCheck-Flan-T5-Large --checker hhem:vectara/hallucination_evaluation_model --device cuda "
    "-o compare.json": "runs on a CUDA GPU (tests/checkers run these judges, built tiny, on the CPU)",
}
"""Examples that cannot run offline in a test, with the reason (each must match an example)."""

_LOCAL_URL = re.compile(r"^http://(?:localhost|127\.0\.0\.1):\d+/v1$")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Workspace:
    return Workspace(tmp_path_factory.mktemp("example_inputs"))


def _system(words: list[str]) -> str:
    """Which kind of input the command reads: its system's, or labelled pairs for the checker commands."""
    command = words[1] if len(words) > 1 else ""
    if command in ("ground", "attribute", "knowledge"):
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
        for word in command[1:]:
            if not word.startswith("-") and word not in outputs:
                space.make_input(_system(command), word, folder, factscope)
        factscope(folder, *_as_written(command, space, fake_llm.base_url, folder)[1:])
        for output in outputs:
            written = folder / output
            assert written.exists(), f"{example.line}: no {output}"
            if written.is_file():
                assert written.stat().st_size > 0, f"{example.line}: {output} is empty"
            if written.suffix == ".jsonl":
                assert all(json.loads(line) for line in written.read_text(encoding="utf-8").splitlines())


@pytest.fixture
def environment(tmp_path, fake_llm, monkeypatch):
    """A reader's shell: an endpoint named by OPENAI_API_KEY and OPENAI_BASE_URL (the fake server), no cache, no
    config file of its own."""
    for name in ("FACTSCOPE_LLM_BASE_URL", "FACTSCOPE_LLM_MODEL", "FACTSCOPE_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("FACTSCOPE_LLM_CACHE", "off")
    fake_llm.responder = reply
    return tmp_path / "run"


def _cases(examples: list[Example]) -> list:
    return [pytest.param(example, id=f"{example.source}: {example.line[:70]}") for example in examples
            if example.line not in EXCEPTIONS]


@pytest.mark.parametrize("example", _cases(HELP))
def test_a_help_example_runs_as_written(example, environment, workspace, fake_llm, monkeypatch, capsys):
    environment.mkdir()
    _run(example, environment, workspace, fake_llm, monkeypatch, capsys)


@pytest.mark.parametrize("example", _cases(DOCS))
def test_a_documentation_example_runs_as_written(example, environment, workspace, fake_llm, monkeypatch, capsys):
    environment.mkdir()
    _run(example, environment, workspace, fake_llm, monkeypatch, capsys)


def test_every_exception_matches_an_example():
    assert set(EXCEPTIONS) - {example.line for example in HELP + DOCS} == set()


def test_the_examples_are_found():
    assert len(HELP) > 40 and len(DOCS) > 90
    assert {"factscope check --help", "factscope ground --help", "factscope knowledge score --help"} <= {
        example.source for example in HELP
    }
