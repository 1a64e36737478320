"""Calibrating a presence model at the library level (grounding.calibration): reading labels, leaving out the
pairs the model cannot judge, the best threshold by hand, and the clear errors."""

import inspect
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pytest

from factscope.core.errors import InputError
from factscope.core.runs.loop import ProgressEvent
from factscope.grounding.calibration import CalibrationSettings, calibrate_presence, read_labels
from factscope.grounding.data import PresenceLabelInput


@dataclass
class ScoresByFact:
    """A presence model whose score of a fact is given by a table (NaN: cannot judge)."""

    scores: dict[str, float]
    name: str = "table"
    threshold: float = 0.5

    def score(self, facts: Sequence[str], sources: Sequence[Sequence[str]]) -> np.ndarray:
        return np.array([self.scores[fact] for fact in facts])


def _label(fact: str, present: bool) -> PresenceLabelInput:
    return PresenceLabelInput.model_validate({"fact": fact, "text": "some text", "present": present})


def test_read_labels_keeps_the_good_records_and_tells_the_bad_ones(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text(
        json.dumps({"fact": "a", "text": "t", "present": True})
        + "\n{broken\n"
        + json.dumps({"fact": "b", "contexts": ["t", "u"], "present": 0})
        + "\n",
        encoding="utf-8",
    )
    told = []
    read = read_labels(path, skipped=told.append)
    assert [(label.fact, label.present) for label in read.labels] == [("a", True), ("b", False)]
    assert len(read.problems) == 1 and told == read.problems and read.problems[0].line == 2


def test_read_labels_refuses_a_file_with_no_usable_label(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps({"fact": "a"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="no usable labelled pairs"):
        read_labels(path)


def test_calibration_picks_the_midpoint_that_separates_the_labels_and_leaves_out_unjudged_pairs():
    model = ScoresByFact({"p1": 0.9, "p2": 0.7, "a1": 0.3, "a2": 0.6, "x": math.nan})
    labels = [_label("p1", True), _label("p2", True), _label("a1", False), _label("a2", False), _label("x", True)]
    events: list[ProgressEvent] = []
    result = calibrate_presence(model, labels, "accuracy", progress=events.append)
    # scores 0.3, 0.6 absent and 0.7, 0.9 present: the midpoint 0.65 separates them; at 0.5, 0.6 is wrong
    assert result.threshold == pytest.approx(0.65)
    assert result.value == 1.0
    assert result.at_default == pytest.approx(3 / 4)
    assert (result.judged, result.unjudged, result.present) == (4, 1, 2)
    assert result.candidates == 5 and result.model == "table" and result.default_threshold == 0.5
    assert events[-1].finished and events[-1].done == 5


def test_calibration_errors_name_the_file():
    unjudged = ScoresByFact({"x": math.nan})
    with pytest.raises(InputError, match="could judge none") as error:
        calibrate_presence(unjudged, [_label("x", True)], path="labels.jsonl")
    assert "labels.jsonl" in str(error.value)
    constant = ScoresByFact({"a": 0.1, "b": 0.2})
    with pytest.raises(InputError):
        calibrate_presence(constant, [_label("a", True), _label("b", True)], "pearson")


def test_a_calibration_gives_its_summary_rows_and_json_figures():
    model = ScoresByFact({"p1": 0.9, "p2": 0.7, "a1": 0.3, "a2": 0.6, "x": math.nan})
    labels = [_label("p1", True), _label("p2", True), _label("a1", False), _label("a2", False), _label("x", True)]
    result = calibrate_presence(model, labels, "accuracy")
    assert result.summary_rows() == [
        ("labelled pairs (judged / unjudged)", "4 / 1"),
        ("human: present", 2),
        ("best threshold (accuracy)", 0.65),
        ("accuracy at best threshold", 1.0),
        ("accuracy at default threshold 0.5", 0.75),
        ("thresholds tried", 5),
    ]
    assert result.json_figures() == {"threshold": pytest.approx(0.65), "accuracy": 1.0, "model": "table"}


def test_the_statistic_default_is_the_settings_default():
    assert CalibrationSettings().statistic == "pearson"
    assert inspect.signature(calibrate_presence).parameters["statistic"].default == "pearson"
