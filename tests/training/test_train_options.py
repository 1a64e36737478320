"""`factscope train-checker`'s options are TrainOptions' fields: each flag, type, default, range and help comes from
the field, so the command line and the API cannot drift apart."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from command_line import command_line
from factscope.cli import train_checker
from factscope.cli.option_groups import range_shown
from factscope.training.options import TrainOptions


def _command() -> Any:
    return typer.main.get_command(command_line(train_checker)).commands["train-checker"]


def _options() -> dict[str, Any]:
    return {parameter.name: parameter for parameter in _command().params}


def test_every_field_is_an_option_with_its_flag_default_and_help():
    options = _options()
    assert set(options) == {item.name for item in dataclasses.fields(TrainOptions)}
    for item in dataclasses.fields(TrainOptions):
        option = options[item.name]
        assert option.opts == ["--" + item.name.replace("_", "-")], item.name
        if item.default is dataclasses.MISSING:
            assert option.required, item.name
        else:
            assert not option.required and option.default == item.default, item.name
        declared = item.metadata["help"]
        shown = option.help.removesuffix(range_shown(item.metadata))
        assert shown.startswith(declared.split("`")[0]) and shown.endswith(declared.split("`")[-1])
        assert "`" not in option.help, (item.name, option.help)


def test_a_parameter_named_in_a_help_text_is_shown_as_its_flag():
    options = _options()
    assert "in the last --context-epochs" in options["long_context"].help
    assert "with --teacher: the share" in options["teacher_weight"].help
    assert "1 with --window-sentences 2:" in options["min_window_sentences"].help


def test_the_command_line_builds_the_same_options_as_the_api(tmp_path, monkeypatch):
    built: list[TrainOptions] = []

    def run(options: TrainOptions, progress: object) -> None:
        built.append(options)
        raise SystemExit(0)

    monkeypatch.setattr("factscope.training.train.train_checker", run)
    data, out = tmp_path / "pairs.jsonl", tmp_path / "out"
    result = CliRunner().invoke(command_line(train_checker), ["train-checker", "--data", str(data), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert built == [TrainOptions(data=[data], out=out)]
    built.clear()
    CliRunner().invoke(command_line(train_checker), [
        "train-checker", "--data", str(data), "--data", str(data), "--out", str(out), "--method", "repc",
        "--learning-rate", "0.5", "--resume", "--teacher-weight", "1", "--min-window-sentences", "1",
    ])
    assert built == [TrainOptions(data=[data, data], out=out, method="repc", learning_rate=0.5, resume=True,
                                  teacher_weight=1.0, min_window_sentences=1)]


@pytest.mark.parametrize(("option", "value"), [
    ("--learning-rate", "0"), ("--learning-rate", "nan"), ("--teacher-weight", "0"), ("--teacher-weight", "1.01"),
    ("--long-context", "inf"), ("--seed", "-1"), ("--layers", "1,x"), ("--method", "lora"), ("--limit", "2"),
    ("--cues", "maybe"), ("--weights", "int4"), ("--device", "tpu"),
])
def test_a_value_outside_the_fields_range_is_a_usage_error(tmp_path, option, value):
    result = CliRunner().invoke(command_line(train_checker), [
        "train-checker", "--data", str(tmp_path / "pairs.jsonl"), "--out", str(tmp_path / "out"), option, value,
    ])
    assert result.exit_code == 2 and f"Invalid value for '{option}'" in " ".join(result.output.split())
    assert not Path(tmp_path / "out").exists()
