"""What kind of KaLMA file a path holds, so that a file given to the wrong command is one clear error.

The attribute commands read different files: questions (``generate``), answers (``score``), seed paragraphs
(``make-questions``), knowledge graphs (``--graph``) and gold minimum knowledge (``--minimum``). KaLMA's own
releases add two JSON layouts, lists of ``[question, [...]]`` pairs: the question-graph dataset (entity objects)
and the gold minimum knowledge (``[qid, relation, value]`` triples). ``file_kind`` recognises each from its
records; ``expect_kind`` stops a command given a file of another kind, naming the command that takes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from factscope.core.errors import InputError
from factscope.core.files.input_files import read_json_records, read_lines
from factscope.core.files.json_entries import document_kind, json_entries
from factscope.core.files.tables import is_table_file, read_records
from factscope.kg.loaders import RDF_FORMATS


@dataclass(frozen=True)
class FileKind:
    """A kind of input file: what it is, in the user's words, and where to give it (a command or an option)."""

    description: str
    give_to: str


QUESTION_GRAPHS = FileKind(
    "KaLMA's released question-graph dataset (a JSON list of [question, [entity, ...]] pairs)",
    "`factscope attribute generate` (as its QUESTIONS) or to `graph`",
)
MINIMUM_KNOWLEDGE = FileKind(
    "a gold minimum-knowledge file ([question, [[qid, relation, value], ...]] pairs, or records with 'minimum' "
    "and no 'question')",
    "`minimum` of `factscope attribute score` or `factscope attribute generate`",
)
QUESTIONS = FileKind(
    "attribution questions (records with 'question' and no 'answer')", "`factscope attribute generate`"
)
ANSWERS = FileKind("attributed answers (records with 'answer')", "`factscope attribute score`")
SEEDS = FileKind("seed paragraphs (records with 'paragraph')", "`factscope attribute make-questions`")
GRAPH = FileKind(
    "a knowledge graph (entity records with 'qid', or RDF)",
    "`graph` of `factscope attribute generate` or `factscope attribute make-questions`",
)


def _pair_kind(item: Any) -> FileKind | None:
    """The kind of one ``[question, [...]]`` item by its first inner element; None when it tells nothing."""
    if not (
        isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], list)
    ):
        return None
    if not item[1]:
        return None
    if isinstance(item[1][0], dict):
        return QUESTION_GRAPHS
    if isinstance(item[1][0], list):
        return MINIMUM_KNOWLEDGE
    return None


def record_kind(record: dict[str, Any]) -> FileKind | None:
    """The kind of file one JSON record belongs in, by its fields; None when the fields say nothing."""
    if "answer" in record:
        return ANSWERS
    if "paragraph" in record:
        return SEEDS
    if "question" in record:
        return QUESTIONS
    if "minimum" in record:
        return MINIMUM_KNOWLEDGE
    if "qid" in record:
        return GRAPH
    return None


def _one_kind(kinds: list[FileKind | None]) -> FileKind | None:
    known = {kind for kind in kinds if kind is not None}
    return known.pop() if len(known) == 1 else None


def file_kind(path: str | Path) -> FileKind | None:
    """The one kind every recognisable record of the file has (RDF files by their extension); None for a file
    that is empty, unreadable as JSON, mixed, or of no known kind."""
    path = Path(path)
    if path.suffix.lower() in RDF_FORMATS:
        return GRAPH
    if is_table_file(path):
        return _one_kind([record_kind(item) for _, item in read_records(path) if isinstance(item, dict)])
    document = document_kind(path)
    if document == "list":
        try:
            items = [entry.value for entry in json_entries(path) if not isinstance(entry.value, InputError)]
        except InputError:
            return None
        if any(isinstance(item, list) for item in items):
            return _one_kind([_pair_kind(item) for item in items])
        return _one_kind([record_kind(item) for item in items if isinstance(item, dict)])
    if document is None and not any(line.strip() for _, line in read_lines(path)):
        return None
    return _one_kind([record_kind(item) for _, item in read_json_records(path) if isinstance(item, dict)])


def expect_kind(path: str | Path, accepted: tuple[FileKind, ...], command: str, expected: str) -> None:
    """Raise an InputError naming the file's kind and the command that takes it, when ``path`` is recognisably a
    file of another kind than ``accepted``; ``expected`` says in words what ``command`` reads."""
    kind = file_kind(path)
    if kind is None or kind in accepted:
        return
    raise InputError(
        f"this looks like {kind.description}: give it to {kind.give_to}. `factscope {command}` expects {expected}",
        path=path,
    )
