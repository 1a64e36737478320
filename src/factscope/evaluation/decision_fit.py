"""A claim decision fitted on a user's own labelled pairs: which P(Entailment) and which pairs count as supported
for their data, answered with their data (``factscope eval-checker --fit-decision``)."""

from __future__ import annotations

from collections.abc import Sequence

from factscope.checkers.base import Checker, CheckTask
from factscope.checkers.claim_decision import ClaimDecision
from factscope.checkers.segmented import SegmentedChecker, claim_measurements
from factscope.core.errors import ConfigError
from factscope.core.runs.loop import ProgressCallback, stage
from factscope.evaluation.pairs import LabelledPair


def fit_claim_decision(
    checker: Checker,
    pairs: Sequence[LabelledPair],
    *,
    fitted_on: str,
    batch_size: int = 32,
    progress: ProgressCallback | None = None,
) -> ClaimDecision:
    """The claim decision fitted on ``pairs`` (each hypothesis against its premise) for a model checker; its own
    claim decision, if any, is left out of the measurements. A checker that is not a model checker raises
    ConfigError."""
    if not isinstance(checker, SegmentedChecker):
        raise ConfigError(
            f"a claim decision is fitted for a model checker (embedded, nli:, path: and the published judges), "
            f"not {checker.name}"
        )
    measured = []
    with stage(progress, "fitting the claim decision", len(pairs)) as shown:
        for start in range(0, len(pairs), batch_size):
            batch = pairs[start : start + batch_size]
            tasks = [CheckTask(claim=pair.hypothesis, references=(pair.premise,)) for pair in batch]
            for task, judged in zip(tasks, checker.judgements(tasks)):
                verdict = checker.decide_without_claim_decision(task, judged)
                measured.append(claim_measurements(task, judged, verdict))
            shown.advance(len(batch))
    return ClaimDecision.fit(measured, [pair.entailed for pair in pairs], fitted_on=fitted_on)
