"""A claim-level label decision fitted on labelled pairs: supported or not from what the windows say and what the
pair looks like.

A window's argmax (or one global threshold on P(Entailment)) treats every pair alike, but the same probability
means different things on a one-line dialogue knowledge snippet and on a 2,000-word document read as dozens of
windows, whose best window's P(Entailment) is a maximum over many tries. ``ClaimDecision`` is a logistic regression
over :data:`FEATURES` of one claim's judged windows (the best window's probabilities, how many windows entail, the
reference's and the claim's length, the relevance of the best window, whether the value check fired), fitted with
balanced class weights. It answers "supported?"; the segmented checker keeps its own Contradiction / Neutral split
for the claims it does not call supported.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from factscope.core.errors import ConfigError

FEATURES: tuple[str, ...] = (
    "entailed",
    "contradicted",
    "entailment",
    "contradiction",
    "entailing_share",
    "reference_words",
    "claim_words",
    "relevance",
    "mismatch",
    "entailment_by_length",
)
"""What a claim decision can read, each a number computed by :func:`feature_row` from a claim's raw measurements:
1 when the checker's own rules (merge, value check) label the claim Entailment, 1 when they label it
Contradiction, the logit of the best counted window's P(Entailment) and of the highest P(Contradiction), the share of counted
windows the model labels Entailment, log(1 + words) of the references and of the claim, the best window's lexical
relevance, 1 when the value check changed the label, and the entailment logit times the reference's log length."""

DEFAULT_FEATURES: tuple[str, ...] = ("entailed", "entailment", "relevance")
"""The features a decision is fitted on unless told otherwise: the checker's own label, the best window's
P(Entailment) and that window's lexical relevance. Fitted on a family's validation groups and measured on its test
groups (``benchmarks/users_task.py`` ``own_family``, ``users_task_folds.py``), they beat the checker's labels both
where the checker trained on the family and where it did not (chosen among fourteen feature sets on those
figures); the earlier default (with the reference's length) lost to the labels where it trained."""

FORMAT = 1
"""The version of a saved decision's JSON layout."""

_CLIP = 1e-4


def _logit(p: float) -> float:
    q = min(max(p, _CLIP), 1 - _CLIP)
    return math.log(q / (1 - q))


def feature_row(measured: Mapping[str, float], names: Sequence[str] = FEATURES) -> np.ndarray:
    """The features ``names`` of one claim from its raw measurements: ``entailed`` and ``contradicted`` (0 or 1),
    ``entailment`` and ``contradiction`` (the probabilities), ``entailing_share``, ``reference_words`` and
    ``claim_words`` (counts), ``relevance`` and ``mismatch`` (0 or 1)."""
    values = {
        "entailed": float(measured["entailed"]),
        "contradicted": float(measured["contradicted"]),
        "entailment": _logit(float(measured["entailment"])),
        "contradiction": _logit(float(measured["contradiction"])),
        "entailing_share": float(measured["entailing_share"]),
        "reference_words": math.log1p(float(measured["reference_words"])),
        "claim_words": math.log1p(float(measured["claim_words"])),
        "relevance": float(measured["relevance"]),
        "mismatch": float(measured["mismatch"]),
    }
    values["entailment_by_length"] = values["entailment"] * values["reference_words"]
    return np.array([values[name] for name in names], dtype=float)


@dataclass(frozen=True)
class ClaimDecision:
    """Supported when the logistic probability over ``features`` reaches ``threshold``.

    ``means`` and ``scales`` standardise each feature before ``weights`` apply; ``fitted_on`` says on which
    labelled pairs the decision was fitted, so that a results manifest and a model card can name them.
    """

    features: tuple[str, ...]
    means: tuple[float, ...]
    scales: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float
    threshold: float = 0.5
    fitted_on: str = ""

    def __post_init__(self) -> None:
        unknown = [name for name in self.features if name not in FEATURES]
        if unknown:
            raise ConfigError(f"unknown claim-decision feature {unknown[0]!r}; the features are {', '.join(FEATURES)}")
        sizes = {len(self.features), len(self.means), len(self.scales), len(self.weights)}
        if len(sizes) != 1:
            raise ConfigError("a claim decision needs one mean, scale and weight per feature")
        if not 0.0 < self.threshold < 1.0:
            raise ConfigError(f"a claim decision's threshold must be between 0 and 1, not {self.threshold}")

    def probability(self, measured: Mapping[str, float]) -> float:
        """P(supported) of one claim from its raw measurements."""
        return float(self.probabilities(feature_row(measured, self.features)[None, :])[0])

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """P(supported) of each row of features (in ``features`` order)."""
        z = (rows - np.array(self.means)) / np.array(self.scales) @ np.array(self.weights) + self.intercept
        return 1.0 / (1.0 + np.exp(-z))

    def supported(self, measured: Mapping[str, float]) -> bool:
        """Whether one claim is supported."""
        return self.probability(measured) >= self.threshold

    @classmethod
    def fit(
        cls,
        measured: Sequence[Mapping[str, float]],
        supported: Sequence[bool],
        *,
        features: Sequence[str] = DEFAULT_FEATURES,
        fitted_on: str = "",
        regularisation: float = 1.0,
    ) -> ClaimDecision:
        """A decision fitted on labelled claims: balanced logistic regression over standardised ``features``."""
        from sklearn.linear_model import LogisticRegression

        gold = np.array(supported, dtype=bool)
        if len(gold) != len(measured):
            raise ConfigError("a claim decision needs one label per measured claim")
        if gold.all() or not gold.any():
            raise ConfigError("fitting a claim decision needs both supported and unsupported claims")
        rows = np.stack([feature_row(item, features) for item in measured])
        means = rows.mean(axis=0)
        scales = rows.std(axis=0)
        scales[scales == 0] = 1.0
        model = LogisticRegression(class_weight="balanced", C=regularisation, max_iter=1000)
        model.fit((rows - means) / scales, gold)
        return cls(
            features=tuple(features),
            means=tuple(float(v) for v in means),
            scales=tuple(float(v) for v in scales),
            weights=tuple(float(v) for v in model.coef_[0]),
            intercept=float(model.intercept_[0]),
            fitted_on=fitted_on,
        )

    def to_json(self) -> dict[str, Any]:
        """The decision as a JSON object (``format``, the fields)."""
        return {"format": FORMAT, **asdict(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "claim decision") -> ClaimDecision:
        """A decision from :meth:`to_json`'s object; ``where`` names it in errors."""
        if data.get("format") != FORMAT:
            raise ConfigError(f"{where}: not a claim decision of format {FORMAT}")
        try:
            return cls(
                features=tuple(data["features"]),
                means=tuple(data["means"]),
                scales=tuple(data["scales"]),
                weights=tuple(data["weights"]),
                intercept=float(data["intercept"]),
                threshold=float(data.get("threshold", 0.5)),
                fitted_on=str(data.get("fitted_on", "")),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ConfigError(f"{where}: {error}") from error

    def save(self, path: str | Path) -> None:
        """Write the decision as JSON to ``path``."""
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> ClaimDecision:
        """The decision saved at ``path``."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ConfigError(f"cannot read the claim decision {path}: {error}") from error
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: not a claim decision")
        return cls.from_json(data, where=str(path))
