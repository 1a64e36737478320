"""Atomic facts of the responses, supplied in a file instead of extracted (FActScore-style shapes).

Accepted shapes, told apart by content:

- records (JSONL or a JSON list), each with ``id`` (or ``qId``) and either ``atomic_facts`` or FActScore's
  ``annotations``;
- one JSON object keyed by question id whose values are such ``atomic_facts`` lists, or objects with
  ``atomic_facts`` or ``annotations`` (the atomic-facts file Truly Ground's scoring script reads).

``atomic_facts`` is a list whose entries are facts (a string, or an object with ``text``) or
``[sentence, [facts]]`` pairs, as FActScore's atomic-fact generator writes them. ``annotations`` is FActScore's
list of sentences, ``{"text": sentence, "model-atomic-facts": [...], "human-atomic-facts": [...]}``; null
``annotations`` (FActScore's mark of an empty output) is a response with no facts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, PlainValidator, model_validator

from factscope.core.errors import InputError
from factscope.core.fields import Identifier
from factscope.core.files.error_location import json_kind, parse_located
from factscope.core.files.input_files import parse_keyed_document, read_json_records, read_text
from factscope.core.files.record_ids import RecordIds, repeated_keys

ACCEPTED_SHAPES = (
    'records {"id" (or "qId"): ..., "atomic_facts": [...]} or FActScore records with "annotations", as JSONL or '
    'a JSON list; or one JSON object keyed by question id whose values are "atomic_facts" lists or such objects'
)
"""The atomic-facts file shapes, as error messages name them."""

MODEL_FACTS = "model-atomic-facts"
HUMAN_FACTS = "human-atomic-facts"


@dataclass(frozen=True)
class SentenceFacts:
    """The facts of one sentence of a response (``sentence`` is None for facts given without their sentence)."""

    sentence: str | None
    facts: list[str]


def _fact_text(value: Any) -> str:
    if type(value) is str:
        return value
    if type(value) is dict and type(value.get("text")) is str:
        return str(value["text"])
    raise ValueError(f"expected a fact (a string, or an object with 'text'), got {json_kind(value)}")


def _entry(value: Any) -> SentenceFacts:
    if type(value) is list and len(value) == 2 and type(value[0]) is str and type(value[1]) is list:
        try:
            return SentenceFacts(value[0], [_fact_text(fact) for fact in value[1]])
        except ValueError as error:
            raise ValueError(f"in a [sentence, [facts]] pair: {error}") from None
    try:
        return SentenceFacts(None, [_fact_text(value)])
    except ValueError:
        raise ValueError(
            f"expected a fact (a string, or an object with 'text') or a [sentence, [facts]] pair, got "
            f"{json_kind(value)}"
        ) from None


FactText = Annotated[str, PlainValidator(_fact_text)]
"""A fact: a string, or an object with ``text`` (FActScore's ``{"text", "label"}``)."""

FactEntry = Annotated[SentenceFacts, PlainValidator(_entry)]
"""An entry of ``atomic_facts``: one fact, or a ``[sentence, [facts]]`` pair."""


class AnnotatedSentenceInput(BaseModel):
    """One sentence of FActScore's ``annotations``, with its model and human atomic facts."""

    model_config = ConfigDict(strict=True, extra="allow")

    text: str
    model_atomic_facts: list[FactText] | None = Field(None, validation_alias=MODEL_FACTS)
    human_atomic_facts: list[FactText] | None = Field(None, validation_alias=HUMAN_FACTS)


class AtomicFactsInput(BaseModel):
    """One record of an atomic-facts file: the question id and its facts, as ``atomic_facts`` or FActScore's
    ``annotations``; other fields (FActScore's ``input``, ``output``, ``topic``) are allowed and ignored."""

    model_config = ConfigDict(strict=True, extra="allow")

    id: Identifier = Field(validation_alias=AliasChoices("id", "qId"))
    atomic_facts: list[FactEntry] = Field(default_factory=list)
    annotations: list[AnnotatedSentenceInput] | None = None

    @model_validator(mode="after")
    def _facts_given(self) -> AtomicFactsInput:
        given = {"atomic_facts", "annotations"} & self.model_fields_set
        if not given:
            raise ValueError("no facts: give 'atomic_facts' (a list) or FActScore's 'annotations'")
        if len(given) == 2:
            raise ValueError("give 'atomic_facts' or 'annotations', not both")
        return self

    def entries(self, human: bool = False) -> list[SentenceFacts]:
        """The record's facts by sentence; from ``annotations``, the model's facts unless ``human``."""
        if "atomic_facts" in self.model_fields_set:
            return self.atomic_facts
        sentences = self.annotations or []
        key = "human_atomic_facts" if human else "model_atomic_facts"
        if sentences and not any(key in sentence.model_fields_set for sentence in sentences):
            wanted, other = (HUMAN_FACTS, MODEL_FACTS) if human else (MODEL_FACTS, HUMAN_FACTS)
            raise ValueError(
                f"no sentence has '{wanted}'" + (f"; they have '{other}'" if _has(sentences, other) else "")
            )
        return [
            SentenceFacts(sentence.text, list(getattr(sentence, key)))
            for sentence in sentences
            if getattr(sentence, key) is not None
        ]


def _has(sentences: Sequence[AnnotatedSentenceInput], alias: str) -> bool:
    name = alias.replace("-", "_")
    return any(name in sentence.model_fields_set for sentence in sentences)


def paper_fact_rules(entries: Sequence[SentenceFacts]) -> list[str]:
    """The facts of one response after the rules of Truly Ground's scoring script.

    With more than one sentence, a one-word sentence is dropped with its facts; a single sentence with no facts
    is itself the fact; a fact with more words than its sentence is replaced by the sentence; duplicates go
    (the first kept). Facts given without a sentence are taken as they are, duplicates aside.
    """
    facts: list[str] = []
    for entry in entries:
        if entry.sentence is None:
            facts.extend(entry.facts)
            continue
        words = len(entry.sentence.split(" "))
        if len(entries) != 1 and words == 1:
            continue
        if len(entries) == 1 and not entry.facts:
            facts.append(entry.sentence)
            continue
        facts.extend(entry.sentence if words < len(fact.split(" ")) else fact for fact in entry.facts)
    return list(dict.fromkeys(fact for fact in facts if fact.strip()))


def all_facts(entries: Sequence[SentenceFacts]) -> list[str]:
    """Every fact of one response, in order, blank ones dropped."""
    return [fact for entry in entries for fact in entry.facts if fact.strip()]


@dataclass
class AtomicFacts:
    """The facts of each question id read from a file, and the located errors of entries that were not read."""

    facts: dict[str, list[str]]
    errors: list[InputError] = field(default_factory=list)


def load_atomic_facts(path: str | Path, *, human: bool = False, paper_rules: bool = True) -> AtomicFacts:
    """Read an atomic-facts file in any accepted shape.

    ``human`` reads FActScore's ``human-atomic-facts`` instead of ``model-atomic-facts``; ``paper_rules``
    applies :func:`paper_fact_rules` (else every fact is kept as given). A bad entry is reported and skipped;
    a file in no accepted shape raises InputError naming the file and the shapes.
    """
    path = Path(path)
    text = read_text(path)
    found = AtomicFacts(facts={})
    keyed = _keyed_object(text)
    items = _keyed_items(path, keyed[0]) if keyed is not None else _record_items(path)
    if keyed is not None:
        found.errors.extend(repeated_keys(path, keyed[1]))
    objects = 0
    ids = RecordIds(path)
    for where, line, item in items:
        if isinstance(item, InputError):
            found.errors.append(item)
            continue
        objects += 1
        try:
            given = parse_located(AtomicFactsInput, item, path=path, line=line, where=where)
            entries = _entries(given, human, path, line, where)
        except InputError as error:
            found.errors.append(error)
            continue
        repeated = ids.repeat(given.id, line)
        if repeated is not None:
            found.errors.append(repeated)
            continue
        found.facts[given.id] = paper_fact_rules(entries) if paper_rules else all_facts(entries)
    if not objects:
        first = f" (first: {found.errors[0].reason})" if found.errors else ""
        raise InputError(
            f"not an atomic-facts file: no record object{first}. Accepted: {ACCEPTED_SHAPES}", path=path
        )
    return found


def _entries(
    given: AtomicFactsInput, human: bool, path: Path, line: int | None, where: str | None
) -> list[SentenceFacts]:
    try:
        return given.entries(human)
    except ValueError as error:
        prefix = f"{where}: " if where else ""
        raise InputError(f"{prefix}{error}", path=path, line=line, field="annotations") from None


def _keyed_object(text: str) -> tuple[dict[str, Any], list[str]] | None:
    """The file's one JSON object when it is keyed by question id (not a single record), with the keys it repeats
    (each keeps its first entry, see ``parse_keyed_document``), else None."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        document, repeated = parse_keyed_document(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(document, dict) or {"id", "qId", "atomic_facts", "annotations"} & set(document):
        return None
    return document, repeated


Item = tuple[str | None, int | None, Any]


def _keyed_items(path: Path, document: dict[str, Any]) -> list[Item]:
    items: list[Item] = []
    for key, value in document.items():
        where = f"question {key!r}"
        if type(value) is list:
            items.append((where, None, {"id": key, "atomic_facts": value}))
        elif type(value) is dict:
            items.append((where, None, {**value, "id": key}))
        else:
            message = f"{where}: expected a list of facts or an object, got {json_kind(value)}"
            items.append((where, None, InputError(message, path=path)))
    return items


def _record_items(path: Path) -> list[Item]:
    return [(None, line, item) for line, item in read_json_records(path)]
