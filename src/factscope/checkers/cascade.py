"""A cascade of two checkers: the first decides the claims it is sure of, the second the rest.

Each claim is checked by the first checker. When the first verdict's deciding P(Entailment) falls inside the
uncertainty band [low, high], the claim goes to the second checker, whose verdict replaces it. Every verdict
records which checker decided it (``decided_by``) and whether it was escalated. Verdicts without probabilities
(decided by a rule before any model, or failed) stay with the first checker.

The band of the shipped checker is fitted on the users'-task benchmark (``benchmarks/users_task.py fit --second
mpnet --write-band``; its figures are measured with the band fitted on the other families) and kept in
``models/cascade_bands.json`` under the first checker's name; for any other first checker the band is given in the
spec.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from factscope.checkers.base import Checker, CheckTask
from factscope.core.errors import ConfigError
from factscope.core.files.manifest import describe
from factscope.core.schema import Label, Verdict

BANDS_FILE = Path(__file__).resolve().parent.parent / "models" / "cascade_bands.json"
"""The fitted bands, by first checker spec."""


class CascadeChecker:
    """Checks with ``first``; claims whose deciding P(Entailment) lies in ``band`` are checked again by ``second``."""

    def __init__(self, first: Checker, second: Checker, band: tuple[float, float]) -> None:
        low, high = band
        if not 0.0 <= low < high <= 1.0:
            raise ConfigError(f"a cascade's band needs 0 <= low < high <= 1, not [{low}, {high}]")
        self.first = first
        self.second = second
        self.band = (float(low), float(high))
        self.name = f"cascade:{first.name},{second.name}"

    def uncertain(self, verdict: Verdict) -> bool:
        """Whether ``verdict`` of the first checker goes to the second: its P(Entailment) is inside the band."""
        if verdict.failed or verdict.probs is None:
            return False
        return self.band[0] <= verdict.probs[0] <= self.band[1]

    def check(self, tasks: Sequence[CheckTask]) -> list[Verdict]:
        """One verdict per task: the first checker's, or the second's where the first was unsure."""
        verdicts = [
            verdict.model_copy(update={"decided_by": self.first.name, "escalated": False})
            for verdict in self.first.check(tasks)
        ]
        unsure = [i for i, verdict in enumerate(verdicts) if self.uncertain(verdict)]
        if unsure:
            second = self.second.check([tasks[i] for i in unsure])
            for i, verdict in zip(unsure, second):
                first_p = verdicts[i].prob(Label.ENTAILMENT) or 0.0
                note = (
                    f"escalated ({self.first.name} P(Entailment) {first_p:.2f} in "
                    f"[{self.band[0]:.2f}, {self.band[1]:.2f}])"
                )
                reason = f"{note}; {verdict.reason}" if verdict.reason else note
                verdicts[i] = verdict.model_copy(
                    update={"decided_by": self.second.name, "escalated": True, "reason": reason}
                )
        return verdicts

    def result_settings(self) -> dict[str, Any]:
        """Both checkers' settings and the band: any of them changes the verdicts."""
        return {
            "name": self.name,
            "first": describe(self.first),
            "second": describe(self.second),
            "band": list(self.band),
        }


def fitted_band(first: str) -> tuple[float, float] | None:
    """The band fitted for the first checker ``first`` (a spec name), or None when none was fitted."""
    bands = json.loads(BANDS_FILE.read_text(encoding="utf-8")) if BANDS_FILE.is_file() else {}
    found = bands.get(first)
    return (found["low"], found["high"]) if found else None


def parse_cascade(argument: str) -> tuple[str, str, tuple[float, float] | None]:
    """``FIRST,SECOND`` or ``FIRST,SECOND,LOW,HIGH`` as (first spec, second spec, band or None)."""
    parts = [part.strip() for part in argument.split(",")]
    band = None
    if len(parts) == 4:
        try:
            band = (float(parts[2]), float(parts[3]))
        except ValueError:
            raise ConfigError(f"cascade:{argument}: LOW and HIGH must be numbers between 0 and 1") from None
        parts = parts[:2]
    if len(parts) != 2 or not all(parts):
        raise ConfigError(
            f"cascade:{argument}: give two checkers, cascade:FIRST,SECOND (e.g. cascade:embedded,mpnet), "
            "optionally with a band: cascade:FIRST,SECOND,LOW,HIGH"
        )
    return parts[0], parts[1], band
