"""Predicted hallucinated spans scored against gold spans (`factscope eval-spans`).

Both files are JSONL. A gold file holds one response a line in RAGTruth's response-level shape: ``id`` and
``labels``, a list of ``{"start", "end"}`` character ranges (other fields, such as ``text`` and ``label_type``,
are read past; a response with no labels is not hallucinated). The predictions are either a results file of
`factscope check` (its spans are each record's span view, ``factscope.refchecker.span_view``, with the
``overlap`` rule; the spans whose label is Neutral or Contradiction are hallucinated) or a file of the same shape
as the gold. Responses are paired by ``id``; the scores are those of ``factscope.metrics.span_scores``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from factscope.core.errors import InputError
from factscope.metrics.span_scores import CharRange, SpanScores, span_scores
from factscope.refchecker.span_view import OverlapRule
from factscope.refchecker.task import CheckResult


def _lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        handle = path.open(encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", path=path) from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as error:
                raise InputError(f"not JSON: {error.msg}", path=path, line=number) from None
            if not isinstance(value, dict) or not isinstance(value.get("id"), (str, int)):
                raise InputError("expected an object with an `id`", path=path, line=number, field="id")
            yield number, value


def _ranges(value: dict[str, Any], path: Path, number: int) -> list[CharRange]:
    labels = value.get("labels", [])
    found: list[CharRange] = []
    if not isinstance(labels, list):
        raise InputError("expected a list of {start, end} spans", path=path, line=number, field="labels")
    for label in labels:
        start, end = (label.get("start"), label.get("end")) if isinstance(label, dict) else (None, None)
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end):
            raise InputError(f"a span needs integer `start` <= `end`, got {label!r}", path=path, line=number,
                             field="labels")
        found.append((start, end))
    return found


def read_spans(path: Path, overlap: OverlapRule = "worst") -> dict[str, list[CharRange]]:
    """Each response's hallucinated spans by id, from a RAGTruth-shaped file or a check results file (a line with
    ``claims`` and ``response`` is read as a check result, its spans those of its span view)."""
    spans: dict[str, list[CharRange]] = {}
    for number, value in _lines(path):
        if "claims" in value and "response" in value:
            try:
                result = CheckResult.model_validate(value)
            except ValidationError as error:
                raise InputError(f"not a check result: {error.errors()[0]['msg']}", path=path, line=number) from None
            spans[result.id] = [(s.start, s.end) for s in result.hallucination_labels(overlap).labels]
        else:
            spans[str(value["id"])] = _ranges(value, path, number)
    return spans


@dataclass(frozen=True)
class SpanEvaluation:
    """The scores of predictions against gold spans, and the ids found on one side only (left out)."""

    scores: SpanScores
    missing_predictions: list[str]
    extra_predictions: list[str]

    def summary_rows(self) -> list[tuple[str, object]]:
        """The figures as summary-table rows."""
        return [
            *self.scores.figures().items(),
            ("gold responses without a prediction", len(self.missing_predictions)),
            ("predictions without gold", len(self.extra_predictions)),
        ]


def evaluate_spans(predictions: Path, gold: Path, *, overlap: OverlapRule = "worst") -> SpanEvaluation:
    """Score the hallucinated spans of ``predictions`` against those of ``gold`` over the responses both have; an
    InputError when they share none."""
    predicted, true = read_spans(predictions, overlap), read_spans(gold)
    shared = [key for key in true if key in predicted]
    if not shared:
        raise InputError("no response id is in both the predictions and the gold", path=predictions)
    scores = span_scores((predicted[key], true[key]) for key in shared)
    return SpanEvaluation(
        scores,
        missing_predictions=[key for key in true if key not in predicted],
        extra_predictions=[key for key in predicted if key not in true],
    )
