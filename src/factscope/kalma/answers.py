"""The answers to score: read from an answers file (the output of ``attribute generate`` or the user's own
records), streamed or in memory, with bad records skipped and failed generations counted."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from factscope.core.errors import InputError
from factscope.core.files.error_location import parse_located
from factscope.core.files.manifest import ItemsDigest
from factscope.core.files.record_ids import RecordIds
from factscope.core.files.tables import read_records
from factscope.core.files.whole_file import whole_file_error
from factscope.kalma.data import AnswerInput, entity_graph, parse_triples
from factscope.kalma.file_kinds import ANSWERS, expect_kind
from factscope.kg.graph import KnowledgeGraph, Triple


@dataclass
class AnswerRecord:
    """An answer to score: its text, the graph it was given, the minimum set and the removed knowledge."""

    id: str
    question: str
    answer: str
    graph: KnowledgeGraph
    minimum: list[Triple]
    removed: list[Triple] = field(default_factory=list)


def read_answer(data: dict[str, Any], *, path: Path, line: int | None) -> AnswerRecord | None:
    """An AnswerRecord from a generate output row or a user's ``{id, question, answer, graph, minimum,
    removed?}``; None for a row whose generation failed (it is counted, not scored)."""
    if data.get("failed"):
        return None
    given = parse_located(AnswerInput, data, path=path, line=line)
    return AnswerRecord(
        given.id, given.question or "", given.answer, entity_graph(given.graph, path=path, line=line),
        parse_triples(given.minimum or [], path=path, line=line, field_name="minimum"),
        parse_triples(given.removed or [], path=path, line=line, field_name="removed"),
    )


@dataclass
class LoadedAnswers:
    """The answers of a file that can be scored, the bad records skipped, and the failed generations counted."""

    records: list[AnswerRecord] = field(default_factory=list)
    problems: list[InputError] = field(default_factory=list)
    failed_generations: int = 0

    def __iter__(self) -> Iterator[AnswerRecord]:
        return iter(self.records)


ANSWERS_EXPECTED = "attributed answers: the output of `attribute generate`, or records {id, answer, graph, minimum}"


class AnswerRecords:
    """The answers of an answers file (JSON / JSONL, Parquet or CSV: ``factscope.core.files.tables``) that can be scored, read afresh (a line at a time for JSONL) each time they
    are iterated: a run can fingerprint them and then score them without holding them in memory.

    The file's kind is checked when the reader is made (see ``load_answers``). Bad records are skipped with their
    file, line and field, and so is an answer whose id repeats an earlier one's (``factscope.core.files.record_ids``);
    rows whose generation failed are counted, not scored. After a full pass, ``problems`` holds the skipped
    records' errors, ``failed_generations`` the failed rows, ``count`` the answers and ``digest`` their digest
    (``factscope.core.files.manifest.DigestedItems``: a run's manifest does not read the file again); a pass over a file
    whose every record fails for one reason raises that reason.
    """

    def __init__(self, path: str | Path) -> None:
        expect_kind(path, (ANSWERS,), "attribute score", ANSWERS_EXPECTED)
        self.path = Path(path)
        self.problems: list[InputError] = []
        self.failed_generations = 0
        self.count = 0
        self.digest: ItemsDigest | None = None

    def __iter__(self) -> Iterator[AnswerRecord]:
        problems: list[InputError] = []
        failed = count = 0
        self.digest = None
        digest = ItemsDigest()
        ids = RecordIds(self.path)
        for line, data in read_records(self.path):
            try:
                if isinstance(data, InputError):
                    raise data
                record = read_answer(data, path=self.path, line=line)
                repeated = ids.repeat(record.id, line) if record is not None else None
                if repeated is not None:
                    raise repeated
            except InputError as error:
                problems.append(error)
                continue
            if record is None:
                failed += 1
            else:
                count += 1
                digest.add(record)
                yield record
        self.problems, self.failed_generations, self.count = problems, failed, count
        self.digest = digest
        whole = whole_file_error(self.path, problems, count + failed)
        if whole is not None:
            raise whole


def load_answers(path: str | Path) -> LoadedAnswers:
    """Read an answers file (the output of ``generate``, or the user's own) into memory: the answers of
    ``AnswerRecords``, the bad records skipped and the failed generations counted. A file of another kind
    (questions, KaLMA's question-graph dataset, ...) or whose every record fails for one reason raises."""
    answers = AnswerRecords(path)
    records = list(answers)
    return LoadedAnswers(records=records, problems=answers.problems, failed_generations=answers.failed_generations)
