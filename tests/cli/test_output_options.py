"""The results-file options, declared once in ``OutputOptions``: --summary only where a command writes summary
figures, and the summary written as indented JSON only when it is given."""

from __future__ import annotations

import json

import typer

from command_line import command_line
from factscope.cli.output_options import OutputOptions

SUMMARY_COMMANDS = [("check",), ("ground", "score"), ("attribute", "score"), ("knowledge", "score")]
NO_SUMMARY_COMMANDS = [("knowledge", "generate"), ("knowledge", "select"),
                       ("ground", "generate"), ("attribute", "generate"), ("attribute", "make-questions"), ("agree",)]


def _flags(path: tuple[str, ...]) -> set[str]:
    command = typer.main.get_command(command_line())
    for name in path:
        command = command.commands[name]  # type: ignore[attr-defined]
    return {flag for param in command.params for flag in (*param.opts, *param.secondary_opts)}


def test_only_the_commands_that_write_summary_figures_take_summary():
    for path in SUMMARY_COMMANDS:
        assert {"--summary", "--overwrite", "--retry-failed"} <= _flags(path), path
    for path in NO_SUMMARY_COMMANDS:
        flags = _flags(path)
        assert {"--overwrite", "--retry-failed"} <= flags and "--summary" not in flags, path


def test_the_rerun_switches_have_no_negative_flag():
    flags = _flags(("check",))
    assert "--no-overwrite" not in flags and "--no-retry-failed" not in flags


def test_write_summary_writes_indented_json_only_when_a_file_is_given(tmp_path):
    summary = tmp_path / "summary.json"
    OutputOptions(summary=summary).write_summary({"precision": 0.5, "records": [1, 2]})
    assert summary.read_text(encoding="utf-8") == '{\n  "precision": 0.5,\n  "records": [\n    1,\n    2\n  ]\n}'
    assert json.loads(summary.read_text(encoding="utf-8")) == {"precision": 0.5, "records": [1, 2]}
    OutputOptions().write_summary({"precision": 0.5})
    assert list(tmp_path.iterdir()) == [summary]
