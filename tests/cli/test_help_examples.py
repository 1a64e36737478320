"""The examples of `factscope check --help` run as written: the offline one on the shipped example file, the one
with an LLM extractor against the fake LLM server with only OPENAI_API_KEY and OPENAI_BASE_URL set (as the openai
SDK reads them), a placeholder file name or model standing for a file or a tiny model made here."""

from __future__ import annotations

import json
import shlex
import shutil

import pytest

from cli_entry import run_factscope
from factscope.cli.check import HELP
from repo_paths import EXAMPLES
from tiny_models import build_nli_classifier

TRIPLETS = json.dumps({"claims": [{"triplet": ["Paris", "capital of", "France"], "sentences": [1]}]})


def _examples(needing: str) -> list[list[str]]:
    """The example command lines of the check command's help (a line ending in a backslash goes on on the next)
    that contain ``needing``, as arguments."""
    joined = HELP.replace("\\\n", " ")
    lines = [line.split("#")[0].strip() for line in joined.splitlines() if line.strip().startswith("factscope check")]
    return [shlex.split(line)[1:] for line in lines if needing in line]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A working folder holding the shipped example file as examples/check.jsonl and as answers.jsonl."""
    (tmp_path / "examples").mkdir()
    shutil.copy(EXAMPLES / "check.jsonl", tmp_path / "examples" / "check.jsonl")
    shutil.copy(EXAMPLES / "check.jsonl", tmp_path / "answers.jsonl")
    monkeypatch.chdir(tmp_path)
    for name in ("FACTSCOPE_LLM_BASE_URL", "FACTSCOPE_LLM_MODEL", "FACTSCOPE_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("FACTSCOPE_LLM_CACHE", "off")
    return tmp_path


def test_the_llm_example_runs_with_only_an_openai_key(folder, fake_llm, monkeypatch, capsys):
    (example,) = _examples("--llm-model")
    model = build_nli_classifier(folder / "nli", {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    fake_llm.responder = lambda request: TRIPLETS
    ran = run_factscope(monkeypatch, capsys, *[word.replace("MODEL", str(model)) for word in example])
    assert ran.code == 0, ran.text
    assert len((folder / "checked.jsonl").read_text(encoding="utf-8").splitlines()) == 6
    assert fake_llm.requests and all(
        request["json"]["model"] == "gpt-4o-mini" and request["headers"]["Authorization"] == "Bearer sk-test"
        for request in fake_llm.requests
    )


def test_the_offline_example_runs_on_the_example_file(folder, monkeypatch, capsys):
    (example,) = _examples("examples/check.jsonl")
    before = set(folder.rglob("*.jsonl"))
    ran = run_factscope(monkeypatch, capsys, *example)
    assert ran.code == 0, ran.text
    (written,) = set(folder.rglob("*.jsonl")) - before
    assert len(written.read_text(encoding="utf-8").splitlines()) == 6
