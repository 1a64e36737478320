"""An Extractor that serves atomic facts supplied by the user for the responses they belong to.

The grounding task asks its extractor for the facts of each (question, response); this one answers with the
facts read from a file (``factscope.grounding.atomic_facts``) where the question's id had an entry, and hands
the other responses to a fallback extractor, so the run loop, results and summary stay those of any run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from factscope.claims.base import Extractor, check_questions
from factscope.core.errors import InputError
from factscope.core.files.manifest import SettingValue, describe
from factscope.core.options.metadata import about
from factscope.core.options.validation import ValidatedOptions
from factscope.core.schema import Claim, Extraction
from factscope.grounding.data import GroundExample
from factscope.grounding.spec import GroundSpec


class SuppliedFactExtractor:
    """Supplied facts for known (question, response) pairs; the ``fallback`` extractor for every other text."""

    def __init__(self, facts: Mapping[tuple[str | None, str], Sequence[str]], fallback: Extractor) -> None:
        self.facts = {key: list(values) for key, values in facts.items()}
        self.fallback = fallback
        self.name = f"supplied facts, else {fallback.name}"

    @classmethod
    def for_examples(
        cls, examples: Iterable[GroundExample], facts: Mapping[str, Sequence[str]], fallback: Extractor
    ) -> SuppliedFactExtractor:
        """The extractor serving ``facts`` (by question id) for the responses of ``examples``
        (``facts_by_response``)."""
        return cls(facts_by_response(examples, facts), fallback)

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

    def result_settings(self) -> dict[str, SettingValue]:
        """What the manifest records of this extractor: the fallback (the facts file is recorded by its caller)."""
        return {"fallback": describe(self.fallback)}


def facts_by_response(
    examples: Iterable[GroundExample], facts: Mapping[str, Sequence[str]]
) -> dict[tuple[str | None, str], list[str]]:
    """``facts`` (by question id) keyed by the (question, response) of the examples they belong to, as an
    extractor is asked for them. Two examples with the same question and response but different supplied facts
    cannot be told apart by an extractor, so they raise InputError naming both."""
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
    return table


@dataclass
class SuppliedFacts:
    """An atomic-facts file made ready for a run: its facts by (question, response), the manifest settings that
    record the file, how many of the examples get supplied facts, the file's records that could not be read, and
    the ids it has facts for that match no example, with a warning naming the first five of them."""

    facts: dict[tuple[str | None, str], list[str]]
    settings: dict[str, SettingValue]
    supplied: int
    extracted: int
    problems: list[InputError]
    unknown: list[str]
    warnings: list[str] = field(default_factory=list)

    def summary_rows(self) -> list[tuple[str, object]]:
        """The run summary's row counting the examples with supplied and with extracted facts."""
        return [("response facts: supplied / extracted", f"{self.supplied} / {self.extracted}")]


def supply_facts(
    path: str | Path, examples: Sequence[GroundExample], *, human: bool, paper_rules: bool
) -> SuppliedFacts:
    """The atomic facts of ``path`` (``load_atomic_facts``; ``human``: FActScore's human annotations) for the
    responses of ``examples``; the manifest records the file's fingerprint and how it was read, so a results
    file is resumed only with the same facts."""
    from factscope.core.files.manifest import fingerprint_file
    from factscope.grounding.atomic_facts import HUMAN_FACTS, MODEL_FACTS, load_atomic_facts

    loaded = load_atomic_facts(path, human=human, paper_rules=paper_rules)
    served = facts_by_response(examples, loaded.facts)
    supplied = sum((example.question, example.response or "") in served for example in examples)
    fingerprint = fingerprint_file(path)
    settings: dict[str, SettingValue] = {
        "atomic_facts": {
            "sha256": fingerprint.sha256,
            "size": fingerprint.size,
            "annotations": HUMAN_FACTS if human else MODEL_FACTS,
            "paper_fact_rules": paper_rules,
        }
    }
    unknown = sorted(set(loaded.facts) - {example.id for example in examples})
    shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
    return SuppliedFacts(
        facts=served,
        settings=settings,
        supplied=supplied,
        extracted=len(examples) - supplied,
        problems=list(loaded.errors),
        unknown=unknown,
        warnings=[f"{path}: {len(unknown)} id(s) match no scored record: {shown}"] if unknown else [],
    )


@dataclass(frozen=True)
class AtomicFactsFile(ValidatedOptions):
    """The atomic facts of the responses, read from a file (``path``; None: extract them all) instead of
    extracted: ``human`` reads FActScore's human annotations, ``paper_rules`` applies the Truly Ground scoring
    script's rules (see ``load_atomic_facts``)."""

    path: Path | None = field(default=None, metadata=about(
        "atomic facts of the responses, instead of extracting them: JSONL {id, atomic_facts}, FActScore "
        "records with annotations, or a JSON object keyed by question id; ids without an entry use "
        "`extractor`",
        flag="--atomic-facts",
    ))
    human: bool = field(default=False, metadata=about(
        "read FActScore's human-atomic-facts from `path`, not model-atomic-facts",
        flag="--human-facts/--no-human-facts",
    ))
    paper_rules: bool = field(default=True, metadata=about(
        "apply the Truly Ground scoring script's rules to `path`: drop one-word sentences, replace a fact "
        "longer than its sentence by the sentence, drop duplicates",
        flag="--paper-fact-rules/--no-paper-fact-rules",
    ))

    def serve(self, spec: GroundSpec, examples: Iterable[GroundExample]) -> tuple[GroundSpec, SuppliedFacts]:
        """``spec`` serving this file's facts for ``examples`` (its extractor extracting the facts the file
        lacks) and recording the file in its manifest settings, and what the file supplied."""
        if self.path is None:
            raise ValueError("no atomic-facts file to serve: give `path`")
        supplied = supply_facts(self.path, list(examples), human=self.human, paper_rules=self.paper_rules)
        served = replace(spec, supplied_facts=supplied.facts, settings={**spec.settings, **supplied.settings})
        return served, supplied
