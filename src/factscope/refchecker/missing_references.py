"""Records without references: nothing can verify their claims, so every one would be Neutral and a run's figures
would measure the missing references, not the responses. A check run that retrieves no passages stops on them
(``MissingReferences``) unless told to go on, and then warns (``MissingReferencesWarning``)."""

from __future__ import annotations

from collections.abc import Sequence

from factscope.core.errors import FactscopeWarning, InputError

SHOWN_KEYS = 5
"""How many ids of records without references a message names."""


def missing_references_problem(keys: Sequence[str]) -> str:
    """What is wrong with the records ``keys``, in one sentence that names the first few."""
    shown = ", ".join(keys[:SHOWN_KEYS]) + (f" and {len(keys) - SHOWN_KEYS} more" if len(keys) > SHOWN_KEYS else "")
    return (
        f"{len(keys)} record(s) have no references ({shown}): nothing can verify their claims, so every one of "
        "them would be Neutral and the figures would measure the missing references, not the responses."
    )


RETRIEVE = (
    "retrieve passages for them (`corpus`, or a web retriever: `retriever='web:serper'`, `retriever='web:brave'` or "
    "`retriever='wikipedia'`)"
)
"""What a check run can do for records without references besides being given them."""


class MissingReferences(InputError):
    """Records without references stopped a run; ``keys`` are their ids and ``remedy`` what else the caller can
    do about them, besides giving them references or going on anyway."""

    def __init__(self, keys: Sequence[str], remedy: str = RETRIEVE) -> None:
        self.keys = list(keys)
        super().__init__(
            f"{missing_references_problem(self.keys)} Give them references, {remedy}, or pass "
            "`allow_missing_references=True` to go on anyway"
        )


class MissingReferencesWarning(FactscopeWarning):
    """Records without references were run, as ``allow_missing_references`` asked; ``keys`` are their ids."""

    def __init__(self, keys: Sequence[str]) -> None:
        self.keys = list(keys)
        super().__init__(f"{missing_references_problem(self.keys)} Going on (`allow_missing_references=True`).")
