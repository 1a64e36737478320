"""An Extractor that serves atomic facts supplied by the user for the responses they belong to.

The grounding task asks its extractor for the facts of each (question, response); this one answers with the
facts read from a file (``factscope.grounding.atomic_facts``) where the question's id had an entry, and hands
the other responses to a fallback extractor, so the run loop, results and summary stay those of any run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from factscope.claims.base import Extractor, check_questions
from factscope.core.errors import InputError
from factscope.core.manifest import Setting, describe
from factscope.core.schema import Claim, Extraction
from factscope.grounding.data import GroundExample


class SuppliedFactExtractor:
    """Supplied facts for known (question, response) pairs; the ``fallback`` extractor for every other text."""

    def __init__(self, facts: Mapping[tuple[str | None, str], Sequence[str]], fallback: Extractor) -> None:
        self.facts = {key: list(values) for key, values in facts.items()}
        self.fallback = fallback
        self.name = f"supplied facts, else {fallback.name}"

    @classmethod
    def for_examples(
        cls, examples: Sequence[GroundExample], facts: Mapping[str, Sequence[str]], fallback: Extractor
    ) -> SuppliedFactExtractor:
        """The extractor serving ``facts`` (by question id) for the responses of ``examples``.

        Two examples with the same question and response but different supplied facts cannot be told apart
        by an extractor, so they raise InputError naming both.
        """
        table: dict[tuple[str | None, str], list[str]] = {}
        owner: dict[tuple[str | None, str], str] = {}
        for example in examples:
            if example.id not in facts:
                continue
            key = (example.question, example.response or "")
            given = list(facts[example.id])
            if key in table and table[key] != given:
                raise InputError(
                    f"questions {owner[key]!r} and {example.id!r} have the same question and response but "
                    "different supplied atomic facts; give them the same facts or tell the responses apart"
                )
            table[key], owner[key] = given, example.id
        return cls(table, fallback)

    def serves(self, question: str | None, text: str) -> bool:
        """True when the facts of this (question, response) are supplied, not extracted."""
        return (question, text) in self.facts

    def extract(
        self, texts: Sequence[str], questions: Sequence[str | None] | None = None
    ) -> list[Extraction]:
        """Supplied facts where known, the fallback's extraction (one batch) for the rest, in order."""
        asked = check_questions(texts, questions)
        rest = [i for i, (question, text) in enumerate(zip(asked, texts)) if not self.serves(question, text)]
        extracted = self.fallback.extract([texts[i] for i in rest], [asked[i] for i in rest]) if rest else []
        results = dict(zip(rest, extracted))
        return [
            results[i]
            if i in results
            else Extraction(
                claims=[Claim(text=fact, kind="fact") for fact in self.facts[(asked[i], texts[i])]]
            )
            for i in range(len(texts))
        ]

    def result_settings(self) -> dict[str, Setting]:
        """What the manifest records of this extractor: the fallback (the facts file is recorded by its caller)."""
        return {"fallback": describe(self.fallback)}
