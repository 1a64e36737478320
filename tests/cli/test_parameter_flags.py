"""Library errors name parameters; the CLI shows the running command's flags in their place."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import pytest
import typer

import repo_paths
from cli_entry import run_factscope
from factscope.cli.parameter_flags import for_command_line, invoked, parameters, with_flags
from factscope.core.errors import ConfigError, InputError
from factscope.training.options import TrainOptions
from nli_pairs import write_pairs


def _toy() -> typer.Typer:
    """A two-level CLI whose options cover each way a flag is written."""
    app = typer.Typer()

    @app.callback()
    def root(allow_failures: Annotated[bool, typer.Option("--allow-failures")] = False) -> None:
        """root"""

    sub = typer.Typer()
    app.add_typer(sub, name="knowledge")

    @sub.command("score")
    def score(
        input: Annotated[Path, typer.Argument()],
        output: Annotated[Path | None, typer.Option("--output", "-o")] = None,
        method: Annotated[str, typer.Option()] = "finetune",
        overwrite: Annotated[bool, typer.Option("--overwrite")] = False,
        cues: Annotated[bool, typer.Option("--cues/--no-cues")] = True,
        label_order_names: Annotated[str | None, typer.Option("--label-order")] = None,
        llm: Annotated[str | None, typer.Option("--llm")] = None,
        llm_base_url: Annotated[str | None, typer.Option("--llm-base-url")] = None,
        llm_model: Annotated[str | None, typer.Option("--llm-model")] = None,
    ) -> None:
        """score"""

    @sub.command("other")
    def other(graph: Annotated[str | None, typer.Option("--graph")] = None) -> None:
        """other"""

    return app


def _shown(message: str, *args: str) -> str:
    return for_command_line(message, typer.main.get_command(_toy()), args)


def test_each_mention_becomes_the_flag_the_command_line_writes():
    args = ("--allow-failures", "knowledge", "score", "in.jsonl", "--method", "repc")
    assert _shown("name another `output`", *args) == "name another --output"
    assert _shown("use `method='finetune'` or `method='repc'`", *args) == "use --method finetune or --method repc"
    assert _shown("rerun with `overwrite=True`", *args) == "rerun with --overwrite"
    assert _shown("`cues=False` or `cues=True`", *args) == "--no-cues or --cues"
    assert _shown("`overwrite=False` is the default", *args) == "`overwrite=False` is the default"
    assert _shown("read `input` again", *args) == "read INPUT again"
    assert _shown("`label_order` names 2 columns", *args) == "--label-order names 2 columns"
    assert _shown("a path with a space: `output='my file'`", *args) == "a path with a space: `output='my file'`"
    assert _shown("`method='a b'`", *args) == "`method='a b'`"
    assert _shown("Pass `allow_failures=True` before the command", *args) == "Pass --allow-failures before the command"


def test_a_ready_object_is_shown_as_the_options_that_build_it():
    assert _shown("needs a chat model: pass `llm`", "knowledge", "score") == (
        "needs a chat model: pass --llm local:embedded (or local:PATH_OR_NAME, a model run in-process), or "
        "--llm-base-url and --llm-model (or set FACTSCOPE_LLM_BASE_URL and FACTSCOPE_LLM_MODEL; OPENAI_API_KEY "
        "alone calls OpenAI's endpoint)"
    )


def test_a_parameter_of_another_command_takes_its_flag_and_an_unknown_one_stays():
    assert _shown("qids need a knowledge graph: pass `graph`", "knowledge", "score") == (
        "qids need a knowledge graph: pass --graph"
    )
    assert _shown("raise `min_interval`", "knowledge", "score") == "raise `min_interval`"
    assert _shown("``window_sentences`` and `factscope check`", "knowledge", "score") == (
        "``window_sentences`` and `factscope check`"
    )


def test_the_running_command_is_found_below_its_groups():
    root = typer.main.get_command(_toy())
    chain = invoked(root, ["--allow-failures", "knowledge", "score", "other", "--method", "x"])
    assert [command.name for command in chain[1:]] == ["knowledge", "score"]
    assert "method" in parameters(chain) and "allow_failures" in parameters(chain)
    assert with_flags("`method`", {}) == "`method`"


# --- the same error through the API (parameter names) and through the CLI (flags) ----------------------------


def _never(description: str, total: int) -> None:
    raise AssertionError("the options are checked before any work")


def test_a_narrowest_window_wider_than_the_window(tmp_path, monkeypatch, capsys):
    from factscope.training.train import train_checker

    data = write_pairs(tmp_path / "pairs.jsonl", n=9)
    options = TrainOptions(data=[data], out=tmp_path / "x", window_sentences=0, min_window_sentences=1)
    with pytest.raises(ConfigError) as api:
        train_checker(options, _never)
    assert "`min_window_sentences` must be between 1 and `window_sentences`" in str(api.value)
    ran = run_factscope(monkeypatch, capsys, "train-checker", "--data", str(data), "--out", str(tmp_path / "x"),
                        "--window-sentences", "0", "--min-window-sentences", "1")
    assert ran.code == 2 and "--min-window-sentences must be between 1 and --window-sentences" in ran.text
    assert "`" not in ran.err


def test_a_teacher_for_a_frozen_encoder_head(tmp_path, monkeypatch, capsys):
    from factscope.training.train import train_checker

    data = write_pairs(tmp_path / "pairs.jsonl", n=9)
    teacher = tmp_path / "teacher"
    teacher.mkdir()
    options = TrainOptions(data=[data], out=tmp_path / "x", method="repc", teacher=teacher)
    with pytest.raises(ConfigError, match="`teacher` needs `method='finetune'`"):
        train_checker(options, _never)
    ran = run_factscope(monkeypatch, capsys, "train-checker", "--data", str(data), "--out", str(tmp_path / "x"),
                        "--method", "repc", "--teacher", str(teacher))
    assert ran.code == 2 and "--teacher needs --method finetune" in ran.text


def test_knowledge_lines_without_their_queries(tmp_path, monkeypatch, capsys):
    import factscope

    lines = repo_paths.DATA / "knowledge" / "nq_knowledge"
    with pytest.raises(InputError) as api:
        factscope.knowledge(lines, checker="none", relevance="none", coherence="none", lm="none")
    assert "reads it with `queries`," in str(api.value)
    ran = run_factscope(monkeypatch, capsys, "knowledge", "score", str(lines), "-o", str(tmp_path / "k.jsonl"),
                        "--checker", "none", "--relevance-model", "none", "--coherence-model", "none", "--lm", "none")
    assert ran.code == 2 and "reads it with --queries," in ran.text


@pytest.mark.skipif(__import__("torch").cuda.is_available(), reason="a GPU is present")
def test_a_gpu_asked_for_where_there_is_none(tmp_path, monkeypatch, capsys):
    from factscope.hf.device import resolve_device

    with pytest.raises(ConfigError, match="use `device='cpu'` or `device='auto'`"):
        resolve_device("cuda")
    data = write_pairs(tmp_path / "pairs.jsonl", n=9)
    ran = run_factscope(monkeypatch, capsys, "train-checker", "--data", str(data), "--out", str(tmp_path / "x"),
                        "--device", "cuda")
    assert ran.code == 2 and "--device cuda: no CUDA GPU is visible to PyTorch; use --device cpu or --device auto" in (
        ran.text
    )


def test_llm_settings_are_shown_as_the_llm_options(tmp_path, monkeypatch, capsys):
    from factscope.llm.config import LLMConfig

    for name in ("FACTSCOPE_LLM_BASE_URL", "FACTSCOPE_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    with pytest.raises(ConfigError, match="no LLM model: pass `model`"):
        LLMConfig.resolve(base_url="http://127.0.0.1:9/v1")
    questions = repo_paths.EXAMPLES / "attribute" / "questions.jsonl"
    ran = run_factscope(monkeypatch, capsys, "attribute", "generate", str(questions), "-o", str(tmp_path / "a.jsonl"),
                        "--llm-base-url", "http://127.0.0.1:9/v1")
    assert ran.code == 2 and "no LLM model: pass --llm-model, set FACTSCOPE_LLM_MODEL" in ran.text


def test_a_note_a_command_prints_names_its_flags(tmp_path, monkeypatch, capsys):
    from factscope.conner.evaluator_setup import make_evaluator, missing_parts
    from factscope.conner.spec import KnowledgeSpec

    notes = missing_parts(make_evaluator(KnowledgeSpec(checker="none", relevance="none", coherence="none", lm=None)))
    assert notes[0].startswith("no `corpus` or web retriever") and notes[1].startswith("no `lm`:")
    records = repo_paths.DATA / "knowledge" / "records.jsonl"
    ran = run_factscope(monkeypatch, capsys, "knowledge", "score", str(records), "-o", str(tmp_path / "k.jsonl"),
                        "--checker", "none", "--relevance-model", "none", "--coherence-model", "none", "--lm", "none")
    assert ran.code == 0, ran.text
    assert "note no --corpus or web retriever" in ran.text and "note no --lm: sentence coherence" in ran.text
    assert "(pass --lm embedded after" in ran.text
