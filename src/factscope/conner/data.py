"""Input records of the knowledge task (CONNER): a query, the knowledge acquired for it, and optional answers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from factscope.core.errors import InputError
from factscope.core.io import read_json_records

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


def parse_knowledge_record(
    item: dict[str, Any], *, path: str | Path | None = None, line: int | None = None, need_knowledge: bool = True
) -> KnowledgeRecord:
    """Validate one JSON object; an InputError names the file, line and offending field."""
    row = dict(item)
    row.setdefault("id", f"line-{line}" if line is not None else "")
    if not isinstance(row["id"], (str, int)) or isinstance(row["id"], bool):
        raise InputError("must be a string or an integer", path=path, line=line, field="id")
    row["id"] = str(row["id"])
    for name in ("query", "knowledge", "answer", "gold_answer", "topic"):
        value = row.get(name)
        if value is not None and not isinstance(value, str):
            raise InputError(f"must be a string, got {type(value).__name__}", path=path, line=line, field=name)
    if not (row.get("query") or "").strip():
        raise InputError("missing or empty; every record needs the user query", path=path, line=line, field="query")
    if need_knowledge and not (row.get("knowledge") or "").strip():
        raise InputError("missing or empty; the knowledge text to evaluate", path=path, line=line, field="knowledge")
    if row.get("task", "qa") not in ("qa", "dialogue"):
        raise InputError(f"must be 'qa' or 'dialogue', got {row.get('task')!r}", path=path, line=line, field="task")
    known = set(KnowledgeRecord.model_fields) - {"metadata"}
    row["metadata"] = {**row.get("metadata", {}), **{k: v for k, v in row.items() if k not in known | {"metadata"}}}
    try:
        return KnowledgeRecord.model_validate({k: v for k, v in row.items() if k in known | {"metadata"}})
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        raise InputError(first["msg"], path=path, line=line, field=field) from None


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
