"""Calibrating a presence model: the threshold that agrees best with human presence labels.

``read_labels`` reads a labels file (bad records kept as located errors); ``calibrate_presence`` scores every
labelled pair with the model, leaves out the pairs it could not judge, picks the best threshold by the statistic
(``factscope.metrics.grounding.calibrate_threshold``) and says how the model's own threshold does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from factscope.core.errors import InputError
from factscope.core.options.metadata import about
from factscope.core.options.validation import ValidatedOptions
from factscope.core.runs.loop import ProgressCallback, stage
from factscope.grounding.data import PresenceLabelInput, read_presence_labels
from factscope.grounding.presence import PresenceModel
from factscope.metrics.grounding import AgreementStatistic, agreement, calibrate_threshold


@dataclass
class PresenceLabels:
    """The usable labels of a file and the records that were not (located errors)."""

    labels: list[PresenceLabelInput] = field(default_factory=list)
    problems: list[InputError] = field(default_factory=list)


@dataclass(frozen=True)
class CalibrationSettings(ValidatedOptions):
    """How ``calibrate_presence`` chooses a threshold: the ``statistic`` of agreement with the human labels that
    it maximises."""

    statistic: AgreementStatistic = field(default="pearson", metadata=about(
        "what the threshold should maximise: pearson (the correlation with the human labels, as the paper chose "
        "its thresholds), accuracy, macro-f1 or kappa"
    ))


@dataclass(frozen=True)
class PresenceCalibration:
    """The best threshold of a presence model by ``statistic``, and how its own threshold does."""

    model: str
    statistic: AgreementStatistic
    judged: int
    """Labelled pairs the model scored (the others, scored NaN, are left out)."""
    unjudged: int
    present: int
    """Judged pairs that the human labels present."""
    threshold: float
    value: float
    """The statistic at ``threshold``."""
    default_threshold: float
    at_default: float | None
    """The statistic at the model's own threshold (None where it is undefined)."""
    candidates: int
    """Thresholds tried."""

    def summary_rows(self) -> list[tuple[str, object]]:
        """The calibration's figures as a summary table's rows."""
        statistic = self.statistic
        return [
            ("labelled pairs (judged / unjudged)", f"{self.judged} / {self.unjudged}"),
            ("human: present", self.present),
            (f"best threshold ({statistic})", round(self.threshold, 4)),
            (f"{statistic} at best threshold", self.value),
            (f"{statistic} at default threshold {self.default_threshold:g}", self.at_default),
            ("thresholds tried", self.candidates),
        ]

    def json_figures(self) -> dict[str, object]:
        """The chosen threshold, the statistic there and the model, as JSON values."""
        return {"threshold": self.threshold, self.statistic: self.value, "model": self.model}


def read_labels(path: Path, *, skipped: Callable[[InputError], None] | None = None) -> PresenceLabels:
    """The labels of a JSON / JSONL file of {fact, text | contexts, present}, each bad record also told to
    ``skipped`` as it is read; an InputError when none is usable."""
    read = PresenceLabels()
    for _line, item in read_presence_labels(path):
        if isinstance(item, InputError):
            read.problems.append(item)
            if skipped is not None:
                skipped(item)
        else:
            read.labels.append(item)
    if not read.labels:
        raise InputError("no usable labelled pairs", path=path)
    return read


def calibrate_presence(
    model: PresenceModel,
    labels: Sequence[PresenceLabelInput],
    statistic: AgreementStatistic = CalibrationSettings.statistic,
    *,
    progress: ProgressCallback | None = None,
    path: Path | None = None,
) -> PresenceCalibration:
    """Score ``labels`` with ``model`` and choose the threshold that maximises ``statistic`` on the pairs it
    judged; an InputError (naming ``path``) when it judged none or no threshold gives a defined statistic."""
    with stage(progress, "scoring labelled pairs", len(labels)) as bar:
        scores = model.score([label.fact for label in labels], [label.text for label in labels]).tolist()
        bar.advance(len(labels))
    judged = [(score, label.present) for score, label in zip(scores, labels) if not math.isnan(score)]
    if not judged:
        raise InputError("the presence model could judge none of the labelled pairs", path=path)
    human = [present for _, present in judged]
    try:
        best = calibrate_threshold([score for score, _ in judged], human, statistic)
    except ValueError as error:
        raise InputError(str(error), path=path) from error
    return PresenceCalibration(
        model=model.name,
        statistic=statistic,
        judged=len(judged),
        unjudged=len(scores) - len(judged),
        present=sum(human),
        threshold=best.threshold,
        value=best.value,
        default_threshold=model.threshold,
        at_default=agreement(statistic, human, [score >= model.threshold for score, _ in judged]),
        candidates=best.candidates,
    )
