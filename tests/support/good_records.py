"""Every input reader and a good record of its format, for the tests that feed readers bad or repeated records."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from factscope.conner.data import read_knowledge_records
from factscope.core.errors import InputError
from factscope.grounding.data import (
    GroundDataset,
    GroundExample,
    attach_responses,
    load_generic_dataset,
    read_presence_labels,
)
from factscope.kalma.answers import load_answers
from factscope.kalma.data import read_questions
from factscope.kalma.question_evolution import read_seeds
from factscope.refchecker.annotations import load_human_annotations
from factscope.refchecker.data import load_check_records

Kept = list[str]
Reader = Callable[[Path], tuple[Kept, list[InputError]]]


def _check(path: Path) -> tuple[Kept, list[InputError]]:
    records, problems = load_check_records(path)
    return [r.id for r in records], problems


def _annotations(path: Path) -> tuple[Kept, list[InputError]]:
    responses, problems = load_human_annotations(path)
    return [r.id for r in responses], problems


def _generic(path: Path) -> tuple[Kept, list[InputError]]:
    dataset = load_generic_dataset(path)
    return [e.id for e in dataset.examples], dataset.errors


def _responses(path: Path) -> tuple[Kept, list[InputError]]:
    dataset = GroundDataset(examples=[GroundExample(i, "Q?", ["c"], ["f"]) for i in ("g1", "bad", "g2")])
    attach_responses(dataset, path)
    return [e.id for e in dataset.examples if e.response is not None], dataset.errors


def _labels(path: Path) -> tuple[Kept, list[InputError]]:
    items = [item for _, item in read_presence_labels(path)]
    return [i.fact for i in items if not isinstance(i, InputError)], [i for i in items if isinstance(i, InputError)]


def _split(items: list[Any]) -> tuple[Kept, list[InputError]]:
    return [i.id for i in items if not isinstance(i, InputError)], [i for i in items if isinstance(i, InputError)]


def _questions(path: Path) -> tuple[Kept, list[InputError]]:
    return _split([item for _, item in read_questions(path)])


def _answers(path: Path) -> tuple[Kept, list[InputError]]:
    loaded = load_answers(path)
    return [r.id for r in loaded.records], loaded.problems


def _seeds(path: Path) -> tuple[Kept, list[InputError]]:
    return _split([item for _, item in read_seeds(path, None)])


def _knowledge(path: Path) -> tuple[Kept, list[InputError]]:
    return _split([item for _, item in read_knowledge_records(path)])


GRAPH = [{"qid": "Q1", "name": "Ada"}]
GOOD: dict[str, tuple[Reader, dict[str, Any]]] = {
    "check": (_check, {"response": "r", "references": ["x"]}),
    "annotations": (_annotations, {"response": "r", "gpt4_response_kg": []}),
    "generic": (_generic, {"question": "Q?", "contexts": ["c"], "gold_facts": ["f"]}),
    "responses": (_responses, {"response": "r"}),
    "labels": (_labels, {"text": "t", "present": True}),
    "questions": (_questions, {"question": "Q?", "minimum": [["Q1", "r", "v"]]}),
    "answers": (_answers, {"answer": "A", "graph": GRAPH}),
    "seeds": (_seeds, {"paragraph": "P.", "graph": GRAPH}),
    "knowledge": (_knowledge, {"query": "q", "knowledge": "k"}),
}
"""Each reader and a good record of its format (the harness adds the id; labels have none, so the fact)."""


def good_record(reader: str, name: str, changes: dict[str, Any] | None = None) -> dict[str, Any]:
    """A good record of ``reader``'s format named ``name`` (its id, or its fact for labels), with ``changes``
    applied (a None value drops the field)."""
    key = "fact" if reader == "labels" else "id"
    record = {key: name, **GOOD[reader][1], **(changes or {})}
    return {k: v for k, v in record.items() if v is not None}
