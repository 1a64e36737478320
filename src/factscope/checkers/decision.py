"""The one rule that turns a model's probabilities for one (segment, claim) pair into a factscope label."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from factscope.core.schema import LABELS, Label

TWO_WAY_THRESHOLD = 0.5
"""The default threshold of 2-way judges (MiniCheck, HHEM-2.1-open) and of AlignScore: the authors' 0.5."""


@dataclass(frozen=True)
class LabelDecision:
    """Decides a label from probabilities in ``LABELS`` order (Entailment, Neutral, Contradiction).

    Without ``threshold`` the label is the argmax (3-way NLI models). With one, the label is Entailment when
    P(Entailment) >= ``threshold``, else Contradiction when P(Contradiction) > P(Neutral), else Neutral: a 2-way
    model, whose "not supported" mass is all Neutral, so never says Contradiction.
    """

    threshold: float | None = None

    def __post_init__(self) -> None:
        if self.threshold is not None and not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold must be between 0 and 1, not {self.threshold}")

    def __call__(self, probs: np.ndarray) -> Label:
        """The label of one row of probabilities."""
        if self.threshold is None:
            return LABELS[int(np.argmax(probs))]
        if float(probs[0]) >= self.threshold:
            return Label.ENTAILMENT
        return Label.CONTRADICTION if float(probs[2]) > float(probs[1]) else Label.NEUTRAL

    def margin(self, probs: np.ndarray, label: Label) -> float:
        """How much probability the row lacks to be decided ``label``: 0 when it is (or ties), else the largest
        gap this rule would have to close.

        Argmax: the highest other probability less P(label). With a threshold, Entailment: threshold less
        P(Entailment); Contradiction: the larger of P(Entailment) less the threshold and P(Neutral) less
        P(Contradiction); Neutral: the larger of P(Entailment) less the threshold and P(Contradiction) less
        P(Neutral).
        """
        p = [float(value) for value in probs]
        own = LABELS.index(label)
        if self.threshold is None:
            gap = max(value for index, value in enumerate(p) if index != own) - p[own]
        elif label is Label.ENTAILMENT:
            gap = self.threshold - p[0]
        else:
            other = 1 if label is Label.CONTRADICTION else 2
            gap = max(p[0] - self.threshold, p[other] - p[own])
        return max(0.0, gap)

