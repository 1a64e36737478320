"""Gold minimum knowledge sets read from their own file (``attribute score / generate --minimum``).

KaLMA scores precision and recall against each question's minimum knowledge set (section 2.2): the knowledge
its evolutionary generation injected. The released question-graph dataset holds only the questions' graphs, so
the gold sets come in a file of their own, in either layout:

- KaLMA's: a JSON list of ``[question, [[qid, relation, value], ...]]`` pairs, item i belonging to question i
  (the BioKaLMA ids are these positions);
- records (JSON list or JSONL) ``{id?, question?, minimum: [[qid, relation, value] | entity, ...]}`` with an id,
  a question, or both.

A record finds its set by id (records that give one), else by its question text (spaces collapsed, case kept),
else, for a record without question text, by position in KaLMA's layout.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, Self

from pydantic import BaseModel, ConfigDict, model_validator

from factscope.core.errors import InputError
from factscope.core.fields import Identifier, NonBlank
from factscope.core.files.error_location import parse_located
from factscope.core.files.input_files import read_json_records, read_text
from factscope.core.files.input_notes import InputNotes
from factscope.core.files.whole_file import whole_file_error
from factscope.kalma.data import TripleOrEntity, parse_triples
from factscope.kg.graph import Triple


class MinimumInput(BaseModel):
    """One gold minimum set as written: ``{id?, question?, minimum: [...]}``, with an id or a question."""

    model_config = ConfigDict(strict=True)

    minimum: list[TripleOrEntity]
    id: Identifier | None = None
    question: NonBlank | None = None

    @model_validator(mode="after")
    def _names_its_question(self) -> Self:
        if self.id is None and self.question is None:
            raise ValueError("give the 'id' or the 'question' this minimum set belongs to")
        return self


def question_key(question: str) -> str:
    """A question as looked up: its words joined by single spaces, case kept."""
    return " ".join(question.split())


@dataclass
class MinimumKnowledge:
    """Gold minimum sets by record id, by question text and by position in KaLMA's layout."""

    by_id: dict[str, list[Triple]] = field(default_factory=dict)
    by_question: dict[str, list[Triple]] = field(default_factory=dict)
    by_position: dict[str, list[Triple]] = field(default_factory=dict)

    def __len__(self) -> int:
        return max(len(self.by_id), len(self.by_question), len(self.by_position))

    def find(self, record_id: str, question: str | None) -> list[Triple] | None:
        """The gold set of a record: by id, else by question text, else (no question text) by position."""
        if record_id in self.by_id:
            return self.by_id[record_id]
        if question:
            return self.by_question.get(question_key(question))
        return self.by_position.get(record_id)


@dataclass
class LoadedMinimum:
    """The usable gold sets of a file and the entries skipped, each with its place and reason."""

    gold: MinimumKnowledge
    problems: list[InputError]


def _add(gold: MinimumKnowledge, given: MinimumInput, triples: list[Triple], position: int | None) -> None:
    if given.id is not None:
        gold.by_id.setdefault(given.id, triples)
    if given.question is not None:
        gold.by_question.setdefault(question_key(given.question), triples)
    if position is not None:
        gold.by_position[str(position)] = triples


def _kalma_layout(path: Path, document: list[Any], loaded: LoadedMinimum) -> None:
    for index, item in enumerate(document):
        where = f"item {index}"
        if not (isinstance(item, list) and len(item) == 2):
            loaded.problems.append(
                InputError(f"{where}: expected [question, [[qid, relation, value], ...]]", path=path)
            )
            continue
        try:
            given = parse_located(
                MinimumInput, {"question": item[0], "minimum": item[1]}, path=path, line=None, where=where
            )
            triples = parse_triples(given.minimum, path=path, line=None, field_name=f"[{index}].minimum")
        except InputError as error:
            loaded.problems.append(error)
            continue
        _add(loaded.gold, given, triples, index)


def read_minimum(path: str | Path) -> LoadedMinimum:
    """Gold minimum sets from KaLMA's ``[question, [[qid, relation, value], ...]]`` list or from records; bad
    entries are skipped and listed; a file none of whose entries can be used for one reason raises."""
    path = Path(path)
    loaded = LoadedMinimum(MinimumKnowledge(), [])
    text = read_text(path)
    document = None
    if text.lstrip().startswith("["):
        try:
            document = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            document = None
    if isinstance(document, list) and any(isinstance(item, list) for item in document):
        _kalma_layout(path, document, loaded)
    else:
        for line, record in read_json_records(path):
            try:
                if isinstance(record, InputError):
                    raise record
                given = parse_located(MinimumInput, record, path=path, line=line)
                _add(
                    loaded.gold,
                    given,
                    parse_triples(given.minimum, path=path, line=line, field_name="minimum"),
                    None,
                )
            except InputError as error:
                loaded.problems.append(error)
    whole = whole_file_error(path, loaded.problems, len(loaded.gold))
    if whole is not None:
        raise whole
    return loaded


class HasMinimum(Protocol):
    """A question or an answer: an id, its question text and its minimum set."""

    id: str
    question: str
    minimum: list[Triple]


def apply_minimum(items: Sequence[HasMinimum], gold: MinimumKnowledge) -> list[str]:
    """Give each item its gold minimum set, in place; the ids of the items the file has no set for (they keep
    their own)."""
    missing = []
    for item in items:
        found = gold.find(item.id, item.question or None)
        if found is None:
            missing.append(item.id)
        else:
            item.minimum = list(found)
    return missing


def use_minimum(path: str | Path | None, items: Sequence[HasMinimum], notes: InputNotes | None = None) -> None:
    """Give ``items`` (questions or answers) the gold minimum sets of the file ``path`` (``read_minimum``), in
    place; tell ``notes`` of the file's skipped entries, how many items found a set and which kept their own."""
    if path is None:
        return
    loaded = read_minimum(path)
    missing = apply_minimum(items, loaded.gold)
    if notes is None:
        return
    notes.skipped(loaded.problems)
    notes.note(f"minimum knowledge {path}: {len(items) - len(missing)} of {len(items)} records use its sets")
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        notes.warning(f"{len(missing)} records have no set in {path} and keep their own: {shown}")
