"""Input records of the knowledge task (CONNER): a query, the knowledge acquired for it, and optional answers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from factscope.core.errors import InputError
from factscope.core.fields import Identifier, NonBlank
from factscope.core.io import parse_located, read_json_records

KnowledgeTask = Literal["qa", "dialogue"]


class KnowledgeRecord(BaseModel):
    """One query with its knowledge; ``task`` says whether answers are spans (qa) or open-ended (dialogue)."""

    id: str
    query: str
    knowledge: str = ""
    answer: str | None = None
    gold_answer: str | None = None
    topic: str | None = None
    task: KnowledgeTask = "qa"
    metadata: dict[str, Any] = Field(default_factory=dict)


class KnowledgeInput(BaseModel):
    """One record of a knowledge file as written; unknown fields join the metadata."""

    model_config = ConfigDict(strict=True, extra="allow")

    id: Identifier | None = None
    query: NonBlank
    knowledge: str | None = None
    answer: str | None = None
    gold_answer: str | None = None
    topic: str | None = None
    task: KnowledgeTask = "qa"
    metadata: dict[str, Any] = Field(default_factory=dict)


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
        metadata={**given.metadata, **(given.model_extra or {})},
    )


def read_knowledge_records(
    path: str | Path, *, need_knowledge: bool = True
) -> Iterator[tuple[int, KnowledgeRecord | InputError]]:
    """(line, record) for each record of a JSON / JSONL file; a bad record comes back as an InputError."""
    for line, item in read_json_records(path):
        if isinstance(item, InputError):
            yield line, item
            continue
        try:
            yield line, parse_knowledge_record(item, path=path, line=line, need_knowledge=need_knowledge)
        except InputError as error:
            yield line, error
