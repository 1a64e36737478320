"""Input records of the knowledge task (CONNER): a query, the knowledge acquired for it, and optional answers."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from factscope.conner.released_files import file_layout, read_query_table
from factscope.core.errors import ConfigError, InputError
from factscope.core.fields import Identifier, NonBlank
from factscope.core.files.error_location import parse_located
from factscope.core.files.input_files import read_lines
from factscope.core.files.manifest import ItemsDigest
from factscope.core.files.record_ids import first_of_each_id
from factscope.core.files.tables import read_records
from factscope.core.files.whole_file import usable_records

KnowledgeTask = Literal["qa", "dialogue"]


class KnowledgeFields(BaseModel):
    """The fields of a knowledge record, as a file may give them: a query, the knowledge acquired for it (absent
    when it is to be generated), optional answers, the task, evidence passages and metadata."""

    id: Identifier | None = None
    query: NonBlank
    knowledge: str | None = None
    answer: str | None = None
    gold_answer: str | None = None
    topic: str | None = None
    task: KnowledgeTask = "qa"
    evidence: list[str] | None = None
    """The record's own evidence passages: factuality checks its knowledge against them instead of the corpus."""
    metadata: dict[str, Any] = Field(default_factory=dict)


class KnowledgeRecord(KnowledgeFields):
    """One query with its knowledge; ``task`` says whether answers are spans (qa) or open-ended (dialogue)."""

    id: str
    query: str
    knowledge: str = ""


class KnowledgeInput(KnowledgeFields):
    """One record of a knowledge file as written; unknown fields join the metadata."""

    model_config = ConfigDict(strict=True, extra="allow")


class KnowledgeRequestRecord(KnowledgeInput):
    """A knowledge record as a request sends it, as the server's schema shows it: with the knowledge to evaluate
    (``parse_knowledge_record``)."""

    knowledge: NonBlank


def parse_knowledge_record(
    item: dict[str, Any], *, path: str | Path | None = None, line: int | None = None, need_knowledge: bool = True
) -> KnowledgeRecord:
    """Validate one JSON object; an InputError names the file, line and offending field."""
    given = parse_located(KnowledgeInput, item, path=path, line=line)
    if need_knowledge and not (given.knowledge or "").strip():
        raise InputError("missing or empty; the knowledge text to evaluate", path=path, line=line, field="knowledge")
    default_id = f"line-{line}" if line is not None else ""
    return KnowledgeRecord(
        id=given.id if given.id is not None else default_id,
        query=given.query,
        knowledge=given.knowledge or "",
        answer=given.answer,
        gold_answer=given.gold_answer,
        topic=given.topic,
        task=given.task,
        evidence=_passages(given.evidence),
        metadata={**given.metadata, **(given.model_extra or {})},
    )


def _passages(texts: list[str] | None) -> list[str] | None:
    """The non-blank passages of ``texts`` (None when there are none)."""
    kept = [text for text in texts or [] if text.strip()]
    return kept or None


def read_knowledge_records(
    path: str | Path,
    *,
    need_knowledge: bool = True,
    queries: str | Path | None = None,
    task: KnowledgeTask | None = None,
) -> Iterator[tuple[int, KnowledgeRecord | InputError]]:
    """(line, record) for each record of a knowledge file: JSON / JSONL records, a CONNER query table, or, with
    ``queries``, knowledge written one text per line, paired line for line with the records of ``queries`` (see
    ``factscope.conner.released_files``). ``task`` is the task of the records that name none (query tables have
    no task column; default qa). A bad record, or one whose id repeats an earlier one's
    (``factscope.core.files.record_ids``), comes back as an InputError; a file that cannot be paired raises."""
    layout = file_layout(path)
    if layout == "lines":
        if queries is None:
            raise InputError(LINES_NEED_QUERIES, path=path)
        yield from _paired(path, queries, need_knowledge=need_knowledge, task=task)
        return
    if queries is not None:
        raise ConfigError(f"`queries` pairs a file of one knowledge text per line with its queries; {path} holds "
                          "its queries itself")
    items = read_records(path) if layout == "records" else read_query_table(path, need_knowledge=need_knowledge)
    parsed = _parsed(path, items, need_knowledge=need_knowledge, task=task)
    yield from first_of_each_id(path, parsed, lambda record: record.id)


def usable_knowledge_records(
    path: str | Path,
    *,
    need_knowledge: bool = True,
    task: KnowledgeTask | None = None,
    skipped: Callable[[InputError], None] | None = None,
) -> tuple[list[KnowledgeRecord], int]:
    """The usable records of a knowledge file, held in memory (options as ``read_knowledge_records``), and how
    many were skipped, each passed to ``skipped``; a file whose every record fails for one reason is one error
    (``factscope.core.files.whole_file``)."""
    read = read_knowledge_records(path, need_knowledge=need_knowledge, task=task)
    records, problems = usable_records(path, read)
    for problem in problems:
        if skipped is not None:
            skipped(problem)
    return [record for record in records if isinstance(record, KnowledgeRecord)], len(problems)


NO_USABLE_RECORDS = "no usable records; see the messages above"


class KnowledgeRecords:
    """The records of a knowledge file, read afresh each time they are iterated (JSONL, query tables and knowledge
    lines with their ``queries`` a line at a time), so a run can fingerprint them and then score them without
    holding them in memory; options as ``read_knowledge_records``. Bad records are skipped; after a full pass
    ``problems`` holds their errors and ``digest`` the digest of the good ones
    (``factscope.core.files.manifest.DigestedItems``), so a run's manifest does not read the file again."""

    def __init__(
        self,
        path: str | Path,
        *,
        need_knowledge: bool = True,
        queries: str | Path | None = None,
        task: KnowledgeTask | None = None,
    ) -> None:
        self.path = Path(path)
        self.need_knowledge = need_knowledge
        self.queries = queries
        self.task = task
        self.problems: list[InputError] = []
        self.digest: ItemsDigest | None = None

    def __iter__(self) -> Iterator[KnowledgeRecord]:
        problems: list[InputError] = []
        self.digest = None
        digest = ItemsDigest()
        for _, item in read_knowledge_records(
            self.path, need_knowledge=self.need_knowledge, queries=self.queries, task=self.task
        ):
            if isinstance(item, InputError):
                problems.append(item)
            else:
                digest.add(item)
                yield item
        self.problems = problems
        self.digest = digest


def _parsed(
    path: str | Path,
    items: Iterable[tuple[int, dict[str, Any] | InputError]],
    *,
    need_knowledge: bool,
    task: KnowledgeTask | None,
) -> Iterator[tuple[int, KnowledgeRecord | InputError]]:
    """Raw records as knowledge records, a bad one as its InputError."""
    for line, item in items:
        if isinstance(item, InputError):
            yield line, item
            continue
        if task is not None:
            item = {"task": task, **item}
        try:
            yield line, parse_knowledge_record(item, path=path, line=line, need_knowledge=need_knowledge)
        except InputError as error:
            yield line, error


LINES_NEED_QUERIES = (
    "one knowledge text per line (CONNER's generated-knowledge files) holds no queries: `knowledge score` reads it "
    "with `queries`, the query table or records it was generated for (line i answers query i); "
    "`knowledge generate` and `knowledge select` take the queries themselves"
)


def _paired(
    path: str | Path, queries: str | Path, *, need_knowledge: bool, task: KnowledgeTask | None
) -> Iterator[tuple[int, KnowledgeRecord | InputError]]:
    """The records of ``queries``, each with the knowledge on the same line (counting rows, not blank lines) of
    the one-knowledge-per-line ``path``; a query that cannot be read is reported as it is, with its own place.

    The two files are read in step, a line and a query at a time, after a first pass that counts both (they must be
    as many), so neither is held in memory. A blank line of ``path`` is a query whose knowledge is missing: it
    counts, so the pairing stays line for line."""
    if file_layout(queries) == "lines":
        raise InputError("holds no queries: give `queries` a CONNER query table or JSON / JSONL records", path=queries)
    lines = sum(1 for _ in read_lines(path))
    asked = sum(1 for _ in read_knowledge_records(queries, need_knowledge=False, task=task))
    if lines != asked:
        raise InputError(
            f"{lines} knowledge lines, but {queries} has {asked} queries; line i of the knowledge answers query i, "
            "so they must be as many",
            path=path,
        )
    pairs = zip(read_lines(path), read_knowledge_records(queries, need_knowledge=False, task=task), strict=True)
    for (line, text), (_, query) in pairs:
        if isinstance(query, InputError):
            yield line, query
        elif need_knowledge and not text.strip():
            yield line, InputError(f"empty; expected the knowledge for query {query.id}", path=path, line=line)
        else:
            yield line, query.model_copy(update={"knowledge": text.strip()})
