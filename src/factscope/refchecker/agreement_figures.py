"""The agreement figures of factscope's labels with human ones over a set of responses: claim-level (where the
labels are aligned claim by claim) and response-level hallucination rates, per model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from factscope.core.schema import LABELS, ContextSetting, Label
from factscope.metrics import agreement
from factscope.metrics.hallucination import summarize_response
from factscope.refchecker.annotations import hallucinated_share


class AgreementFigures(BaseModel):
    """Claim-level (checker mode) and response-level agreement figures over a set of responses.

    ``confusion[human][checker]`` counts the checked claims; claims whose check failed are counted in
    ``failed_checks`` and left out of the claim figures. ``model_rates`` maps a model to its mean hallucination
    rate by humans and by factscope.
    """

    claims: int = 0
    failed_checks: int = 0
    accuracy: float | None = None
    macro_f1: float | None = None
    per_class_f1: dict[Label, float] = Field(default_factory=dict)
    confusion: dict[Label, dict[Label, int]] = Field(default_factory=dict)
    responses: int = 0
    pearson: tuple[float, float] | None = None
    spearman: tuple[float, float] | None = None
    model_rates: dict[str, tuple[float, float]] = Field(default_factory=dict)
    model_ranking_spearman: float | None = None


@dataclass
class ScoredResponse:
    """One response's labels: the humans' and factscope's (aligned with them in checker mode; None for a
    failed extraction)."""

    model: str
    setting: ContextSetting | None
    human: list[Label]
    ours: list[Label | None] | None


def agreement_figures(scored: Sequence[ScoredResponse], aligned: bool) -> AgreementFigures:
    """The figures of a set of responses; claim-level ones only when human and checker labels are aligned."""
    figures = AgreementFigures(responses=len(scored))
    if aligned:
        labelled = [(h, o) for s in scored for h, o in zip(s.human, s.ours or [])]
        checked = [(h, o) for h, o in labelled if o is not None]
        figures.failed_checks = len(labelled) - len(checked)
        figures.claims = len(checked)
        figures.confusion = {h: {o: sum(1 for pair in checked if pair == (h, o)) for o in LABELS} for h in LABELS}
        if checked:
            gold, predicted = [h for h, _ in checked], [o for _, o in checked]
            figures.accuracy = agreement.accuracy(gold, predicted)
            scores = agreement.per_class_f1(gold, predicted, LABELS)
            figures.per_class_f1 = {label: scores[label] for label in LABELS}
            figures.macro_f1 = agreement.macro_f1(gold, predicted, LABELS)
    human_rates, our_rates, models = [], [], []
    for item in scored:
        human_rate = hallucinated_share(item.human)
        ours_rate = summarize_response(item.ours).hallucination_rate if item.ours is not None else None
        if human_rate is not None and ours_rate is not None:
            human_rates.append(human_rate)
            our_rates.append(ours_rate)
            models.append(item.model)
    figures.pearson = _maybe(agreement.pearson, human_rates, our_rates)
    figures.spearman = _maybe(agreement.spearman, human_rates, our_rates)
    for model in sorted(set(models)):
        idx = [i for i, m in enumerate(models) if m == model]
        figures.model_rates[model] = (
            sum(human_rates[i] for i in idx) / len(idx),
            sum(our_rates[i] for i in idx) / len(idx),
        )
    if len(figures.model_rates) >= 3:
        values = list(figures.model_rates.values())
        result = _maybe(agreement.spearman, [v[0] for v in values], [v[1] for v in values])
        figures.model_ranking_spearman = result[0] if result else None
    return figures


def _maybe(statistic: Any, x: list[float], y: list[float]) -> tuple[float, float] | None:
    """A correlation, or None where it is undefined (fewer than 3 pairs, or a constant side)."""
    if len(x) < 3:
        return None
    try:
        return statistic(x, y)
    except ValueError:
        return None
