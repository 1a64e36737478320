"""Every Python example of the documentation (its ```python and ```py blocks) runs as written, in process: the
blocks of a page in order in one namespace, in a fresh folder holding the shipped example files, with the fake LLM
server as the endpoint (OPENAI_API_KEY and OPENAI_BASE_URL set, as a reader's shell would name one). A file a
block names stands for a reader's own and a hub model for a tiny one, as for the command examples
(tests/support/example_inputs.py); a block that cannot run here is in EXCEPTIONS with the reason, one that
another test runs is in RUN_ELSEWHERE, and an entry that no longer matches a block fails."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from cli_entry import run_factscope
from doc_examples import PythonExample, free_names, named_inputs, python_examples, with_literals
from example_inputs import LOCAL_ENDPOINT, MODELS, Workspace, model_path
from repo_paths import EXAMPLES, ROOT

EXAMPLES_FOUND = python_examples()

SYSTEMS = {
    "check": "check",
    "acheck": "check",
    "ground": "ground",
    "generate_responses": "ground",
    "attribute": "attribute",
    "generate_answers": "attribute",
    "make_questions": "attribute",
    "knowledge": "knowledge",
    "generate_knowledge": "knowledge",
    "select_knowledge": "knowledge",
    "KnowledgeSpec": "knowledge",
    "agree": "agree",
}
"""The calls whose string arguments name a given system's inputs (a check's where no call says)."""

RUN_ELSEWHERE = {
    ("guides/tables.md", "per_record = run.to_pandas()  # one row per record"): "core/test_tables_out.py",
    ("guides/notebooks.md", "print(run)"): "reports/test_notebook_display.py",
    ("guides/async.md", "async def main() -> None:"): "core/test_async_api.py",
    ("concepts/spans.md", "from factscope.claims.rule_triplets import RuleTripletExtractor"): (
        "claims/test_span_alignment.py"
    ),
    ("concepts/spans.md", "from factscope.claims.span_alignment import aligned_spans"): (
        "claims/test_span_alignment.py"
    ),
    ("guides/inspect-ai.md", "def rag_answers() -> Task:"): "integrations/test_inspect_scorer.py",
    ("guides/pytest-plugin.md", "def test_the_key_claims_hold(factscope_checker):"): (
        "integrations/test_pytest_plugin.py"
    ),
}
"""Blocks a test of their own runs (and checks more of): (page, the start of one of its lines) -> that test's module."""

RAY = "starts a Ray cluster (tests/engines run the ray engine on small shards)"
SERVE = "needs a running server (tests/serve start the app)"
FRAGMENT = "a fragment of a pipeline the page describes, with names ({}) that the text around it defines"

EXCEPTIONS = {
    (
        "architecture.md",
        "return MyChecker(",
    ): "a sketch of a plugin's factory: MyChecker is the reader's class",
    ("concepts/checkers.md", "for claim in extraction.claims]"): FRAGMENT.format("record, extraction"),
    ("guides/async.md", "task.cancel()"): "a fragment of an async function (top-level await, elided steps)",
    ("guides/ground.md", 'supplied = load_atomic_facts("atomic.json"'): (
        "needs the paper's atomic-facts file (tests/grounding read a small one)"
    ),
    ("guides/local-llm.md", 'llm = InProcessLLMClient.load("local:Qwen/Qwen2.5-1.5B-Instruct")'): (
        "loads a 1.5B-parameter model from the hub cache (tests/hf run local:embedded)"
    ),
    ("guides/scale-out.md", "from factscope.engines.ray import RayOptions"): RAY,
    ("guides/serve.md", 'with open("answers.jsonl", "rb") as answers:'): SERVE,
    ("guides/serve.md", "serve(ServeConfig("): "serves until stopped (tests/serve start the app)",
    ("guides/web-evidence.md", "from factscope.retrieve.web_settings import WebSettings"): (
        "searches Wikipedia over the network (tests/retrieve use a fake search service)"
    ),
}
"""Blocks that cannot run as written here: (page, the start of one of its lines) -> the reason."""

OPENAI_URL = "https://api.openai.com/v1"
"""OpenAI's endpoint, which the fake LLM server stands for as it does for a local one."""


def _given(name: str, workspace: Workspace, factscope) -> object:
    """What a fragment's name that the text around the block defines stands for here."""
    if name in ("client", "llm"):
        from factscope.llm.client import LLMClient, LLMConfig

        return LLMClient(LLMConfig.resolve(model="gpt-4o-mini"))
    if name == "long_text":
        return (
            " ".join(
                json.loads(line)["text"]
                for line in (EXAMPLES / "knowledge" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
            )
            * 4
        )
    if name == "questions":
        return ["Name the capital of France.", "Name the capital of Germany."]
    if name in ("scorer", "my_scorer"):
        from factscope.checkers.embedded import load_embedded_scorer

        return load_embedded_scorer()
    if name == "row":
        return json.loads(workspace.results("ground", factscope).read_text(encoding="utf-8").splitlines()[0])
    if name == "rows":
        from factscope.refchecker.system import CHECK
        from factscope.reports.dispatch import read_rows

        return read_rows(workspace.results("check", factscope), CHECK).rows
    raise KeyError(name)


GIVEN = ("client", "llm", "long_text", "questions", "scorer", "my_scorer", "row", "rows")
"""Names that fragments use and the text around them defines: what each stands for is made by _given."""

_LOCAL_URL = re.compile(r"^http://(?:localhost|127\.0\.0\.1):\d+/v1$")
_FILE_NAME = re.compile(r"^[\w.-]+(?:/[\w.-]+)*/?$")


def _skipped(example: PythonExample) -> bool:
    return any(
        page == example.page and example.has_line(line) for page, line in {**RUN_ELSEWHERE, **EXCEPTIONS}
    )


PAGES: dict[str, list[PythonExample]] = {}
for _example in EXAMPLES_FOUND:
    if not _skipped(_example):
        PAGES.setdefault(_example.page, []).append(_example)


@pytest.mark.parametrize("page", sorted(PAGES))
def test_the_python_examples_of_a_page_run(
    page, tmp_path, example_workspace, reader_shell, monkeypatch, capsys
):
    workspace, fake_llm = example_workspace, reader_shell
    folder = tmp_path / "run"
    shutil.copytree(EXAMPLES, folder / "examples")

    def factscope(where: Path, *argv: str) -> None:
        monkeypatch.chdir(where)
        ran = run_factscope(monkeypatch, capsys, *argv)
        assert ran.code == 0, f"factscope {' '.join(argv)}: {ran.text}"
        monkeypatch.chdir(folder)

    def as_written(text: str) -> str:
        if _LOCAL_URL.match(text) or text in (LOCAL_ENDPOINT, OPENAI_URL):
            return fake_llm.base_url
        name = text.split(":", 1)[-1]
        return text[: len(text) - len(name)] + str(model_path(workspace, name)) if name in MODELS else text

    monkeypatch.chdir(folder)
    namespace: dict[str, object] = {"__name__": "example"}
    for example in PAGES[page]:
        for text, system in named_inputs(example.code, SYSTEMS):
            if _FILE_NAME.match(text):
                workspace.make_input(system or "check", text, folder, factscope)
        for name in free_names(example.code) & set(GIVEN) - set(namespace):
            namespace[name] = _given(name, workspace, factscope)
        code = compile(
            with_literals(example.code, as_written, kept=("model",)),
            f"{page}, block {example.index + 1}",
            "exec",
        )
        exec(code, namespace)  # noqa: S102 (the documentation's own code, which the test runs)


def test_every_listed_block_matches_a_block():
    for page, line in {**RUN_ELSEWHERE, **EXCEPTIONS}:
        assert any(example.page == page and example.has_line(line) for example in EXAMPLES_FOUND), (
            page,
            line,
        )
    for (page, _), module in RUN_ELSEWHERE.items():
        assert page in (ROOT / "tests" / module).read_text(encoding="utf-8"), (page, module)


def test_the_python_examples_are_found():
    assert len(EXAMPLES_FOUND) > 50
    assert {"getting-started.md", "guides/check.md", "README.md"} <= {
        example.page for example in EXAMPLES_FOUND
    }
