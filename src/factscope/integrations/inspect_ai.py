"""inspect_ai scorers: the claims of a model's output checked against a sample's references (RefChecker), and its
atomic facts looked up in the sample's context (Truly Ground). Needs the extra ``inspect``.

``claims_supported()`` reads the references from the sample's metadata (``references``, a string or a list) or,
without them, from the sample's target; its value is ``{"supported": share, "contradicted": share}`` of the
output's claims (both 0 when the output has no claim to check, which the explanation says). ``grounded_in_context()``
reads the context from the sample's metadata (``context``); its value is the output's grounding precision, and
its metadata has the recall when the sample lists ``gold_facts``. Each scorer builds its models once, on its first
sample, and scores off inspect's event loop (``factscope.acheck`` / ``aground``: one run at a time). The score's
explanation lists the claims or facts with their verdicts, and its metadata holds the verdicts; that of
``claims_supported()`` also holds the output's span view (``spans``: the output split into labelled spans) and its
hallucinated spans in RAGTruth's shape (``hallucinated``; see ``factscope.refchecker.span_view``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import factscope
from factscope.core.errors import ConfigError, InputError

try:
    from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
    from inspect_ai.solver import TaskState
except ImportError as error:
    raise ConfigError("the inspect_ai scorers need inspect-ai: pip install 'factscope[inspect]'") from error

if TYPE_CHECKING:
    from factscope.checkers.base import Checker
    from factscope.claims.base import Extractor
    from factscope.grounding.presence import PresenceModel

__all__ = ["claims_supported", "grounded_in_context"]


@scorer(metrics={"supported": [mean(), stderr()], "contradicted": [mean(), stderr()]})
def claims_supported(
    checker: str = "embedded", extractor: str = "rules", references: str = "references"
) -> Scorer:
    """Scores the share of the output's claims that the sample's references (metadata field ``references``, else
    the target) support, and the share they contradict; ``checker`` and ``extractor`` are factscope specs."""
    parts = _Parts()

    async def score(state: TaskState, target: Target) -> Score:
        passages = _texts(state.metadata.get(references)) or list(target.target)
        if not passages:
            raise InputError(f"sample {state.sample_id}: no references (metadata field {references!r}, or target)")
        ready_checker, ready_extractor = await asyncio.to_thread(parts.for_check, checker, extractor)
        run = await factscope.acheck(
            [{"id": str(state.sample_id), "response": state.output.completion, "references": passages}],
            checker=ready_checker,
            extractor=ready_extractor,
        )
        result = run.results[0]
        claims = result.claims
        labels = [claim.verdict.label.value if claim.verdict.label else "failed" for claim in claims]
        return Score(
            value={
                "supported": labels.count("Entailment") / len(labels) if labels else 0.0,
                "contradicted": labels.count("Contradiction") / len(labels) if labels else 0.0,
            },
            answer=state.output.completion,
            explanation="\n".join(f"{label}: {claim.claim.text}" for label, claim in zip(labels, claims, strict=True))
            or "the output has no claim to check",
            metadata={
                "claims": [claim.model_dump(mode="json") for claim in claims],
                "spans": [span.model_dump(mode="json") for span in result.span_view()],
                "hallucinated": result.hallucination_labels().model_dump(mode="json"),
            },
        )

    return score


@scorer(metrics=[mean(), stderr()])
def grounded_in_context(
    extractor: str = "facts", presence: str | None = None, context: str = "context", gold_facts: str = "gold_facts"
) -> Scorer:
    """Scores the share of the output's atomic facts found in the sample's context (metadata field ``context``);
    ``presence`` is a presence spec (default: ``factscope ground``'s)."""
    parts = _Parts()

    async def score(state: TaskState, target: Target) -> Score:
        contexts = _texts(state.metadata.get(context))
        if not contexts:
            raise InputError(f"sample {state.sample_id}: no context in metadata field {context!r}")
        from factscope.grounding.data import GroundExample
        from factscope.grounding.spec import DEFAULT_PRESENCE

        example = GroundExample(
            id=str(state.sample_id),
            question=state.input_text,
            contexts=contexts,
            gold_facts=_texts(state.metadata.get(gold_facts)),
            response=state.output.completion,
        )
        ready_extractor, ready_presence = await asyncio.to_thread(
            parts.for_ground, extractor, presence or DEFAULT_PRESENCE
        )
        run = await factscope.aground([example], extractor=ready_extractor, presence=ready_presence)
        result = run.results[0]
        facts = result.response_facts
        return Score(
            value=result.precision if result.precision is not None else 0.0,
            answer=state.output.completion,
            explanation="\n".join(f"{'found' if j.present else 'not found'}: {j.fact}" for j in facts)
            or "the output has no fact to check",
            metadata={"recall": result.recall, "facts": [j.model_dump(mode="json") for j in facts]},
        )

    return score


class _Parts:
    """A scorer's models, built on its first sample."""

    def __init__(self) -> None:
        self.built: dict[str, Any] = {}
        self.building = threading.Lock()

    def for_check(self, checker: str, extractor: str) -> tuple[Checker, Extractor]:
        from factscope.checkers.registry import make_checker
        from factscope.claims.registry import make_extractor

        with self.building:
            if not self.built:
                self.built = {"checker": make_checker(checker), "extractor": make_extractor(extractor)}
        return self.built["checker"], self.built["extractor"]

    def for_ground(self, extractor: str, presence: str) -> tuple[Extractor, PresenceModel]:
        from factscope.claims.registry import make_extractor
        from factscope.grounding.presence import make_presence

        with self.building:
            if not self.built:
                self.built = {"extractor": make_extractor(extractor), "presence": make_presence(presence)}
        return self.built["extractor"], self.built["presence"]


def _texts(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else [str(text) for text in value]
