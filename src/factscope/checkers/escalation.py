"""When fast mode must score a claim exactly: the rule that keeps fast mode's labels exact mode's where pruning
could change them.

Exact mode merges the labels of all the windows a checker counts (those over the relevance floor): any Entailment
wins, else any Contradiction, else Neutral. Fast mode merges the windows it scored. So a fast label can differ
from exact mode's only when it is not Entailment and an unscored counted window would be Entailment, or when it
is Neutral and an unscored counted window would be Contradiction. A claim is escalated, that is, scored against
every counted window and decided from all of them as exact mode decides, when one of these holds:

1. **margin**: its label is not Entailment and a scored window comes within ``margin`` of being decided
   Entailment (``LabelDecision.margin``, at most ``margin`` short), or its label is Neutral and a scored window
   comes within ``margin`` of Contradiction (with ``margin`` 1 every such claim is escalated, and fast mode's
   labels are exact mode's): the model reads the claim's evidence as nearly deciding, and a window not scored (another width
   of the same sentences, a neighbouring window) may tip it;
2. **relevance bound**: an unscored counted window shares more of the claim's content words than every scored
   window (lexical relevance, ``checkers.relevance``): the ranking left out a window that by the cheap measure is
   at least as close to the claim as anything it read;
3. **overruled entailment**: its scored windows merge to Entailment, but the value check or the minimum confidence
   turned the verdict of the strongest of them into another label: exact mode decides on the strongest entailing
   window of all, which may be another one.

An escalated claim's verdict is exact mode's verdict: label, probabilities, deciding window and evidence (only a
reason that names a window under the relevance floor can differ). With ``margin`` 1, every claim whose scored
windows do not merge to Entailment is escalated, so a fast label can differ from exact mode's only for a claim
that fast mode settles as Entailment while exact mode's strongest entailing window, one fast mode did not score,
fails the value check that the strongest scored one passes. Smaller margins escalate fewer claims and let a label
change where an unscored window would have decided it, the scored ones being far from deciding and at least as
relevant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from factscope.checkers.decision import LabelDecision
from factscope.core.schema import Label

Escalation = Literal["margin", "relevance", "overruled"]
"""Why a claim was escalated (see the module docstring)."""


@dataclass(frozen=True)
class ScoredWindow:
    """One scored window of a claim: the model's probabilities and its lexical relevance (None: not filtered)."""

    probs: np.ndarray
    relevance: float | None


def escalation(
    label: Label,
    scored: Sequence[ScoredWindow],
    unscored_relevance: Sequence[float | None],
    decision: LabelDecision,
    margin: float,
    *,
    overruled: bool = False,
) -> Escalation | None:
    """Why a claim whose pruned label (the merge of its scored windows) is ``label`` must be scored exactly, or
    None when its pruned verdict stands.

    ``scored`` are the counted windows fast mode scored for it, ``unscored_relevance`` the lexical relevance of the
    counted windows it did not score; ``overruled``: the verdict's value check or minimum confidence turned the
    Entailment of its strongest scored window into another label.
    """
    if not unscored_relevance:
        return None
    if label is Label.ENTAILMENT:
        return "overruled" if overruled else None
    near = [Label.ENTAILMENT] if label is Label.CONTRADICTION else [Label.ENTAILMENT, Label.CONTRADICTION]
    if any(decision.margin(window.probs, target) <= margin for window in scored for target in near):
        return "margin"
    best_scored = max((window.relevance for window in scored if window.relevance is not None), default=None)
    best_unscored = max((value for value in unscored_relevance if value is not None), default=None)
    if best_unscored is not None and (best_scored is None or best_unscored > best_scored):
        return "relevance"
    return None
