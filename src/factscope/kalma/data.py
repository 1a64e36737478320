"""Attribution questions: a question, its minimum knowledge set and (optionally) its own graph."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from factscope.core.errors import InputError
from factscope.kg.graph import Entity, KnowledgeGraph, Triple, normalize_qid
from factscope.kg.loaders import entity_from_dict, is_biokalma, iter_biokalma


@dataclass
class AttributionQuestion:
    """A question with the minimum knowledge set needed to answer it (seed 002 section 2.2)."""

    id: str
    question: str
    minimum: list[Triple] = field(default_factory=list)
    graph: KnowledgeGraph | None = None

    def qids(self) -> list[str]:
        """The centre entities of the minimum set, in first-seen order."""
        return list(dict.fromkeys(t.qid for t in self.minimum))

    def minimum_graph(self) -> KnowledgeGraph:
        """The minimum set as a graph (names of its entities included)."""
        return self.graph.subgraph(self.qids()) if self.graph is not None else KnowledgeGraph.from_triples(
            self.minimum)


def minimum_from_entities(entities: list[Entity]) -> list[Triple]:
    """The minimum set of BioKaLMA entities: all their triples except the ``name`` identity triple."""
    return [t for e in entities for t in e.triples(include_name=False)]


def parse_triples(value: Any, *, path: Path, line: int | None, field_name: str) -> list[Triple]:
    """``[[qid, relation, value], ...]`` or a list of entities -> triples (errors name the field)."""
    if not isinstance(value, list):
        raise InputError("expected a list of [qid, relation, value] or of entities", path=path, line=line,
                         field=field_name)
    triples: list[Triple] = []
    for index, item in enumerate(value):
        where = f"{field_name}[{index}]"
        if isinstance(item, dict):
            triples.extend(entity_from_dict(item, path=path, line=line, field=where).triples(include_name=False))
        elif isinstance(item, list) and len(item) == 3 and all(isinstance(x, str) and x.strip() for x in item):
            triples.append(Triple(normalize_qid(item[0]), item[1].strip(), item[2].strip()))
        else:
            raise InputError("expected [qid, relation, value] with three non-empty strings", path=path,
                             line=line, field=where)
    return triples


def question_from_record(data: dict[str, Any], *, path: Path, line: int | None,
                         default_id: str) -> AttributionQuestion:
    """One question from ``{id?, question, minimum, graph?}``."""
    if data.get("failed"):
        raise InputError("this question's generation failed (see its 'error' and 'raw'); left out", path=path,
                         line=line, field="failed")
    question = data.get("question")
    if not isinstance(question, str) or not question.strip():
        raise InputError("missing or empty", path=path, line=line, field="question")
    minimum = parse_triples(data.get("minimum", []), path=path, line=line, field_name="minimum")
    graph = None
    if data.get("graph") is not None:
        raw = data["graph"]
        if not isinstance(raw, list):
            raise InputError("expected a list of entities", path=path, line=line, field="graph")
        graph = KnowledgeGraph(entity_from_dict(e, path=path, line=line, field=f"graph[{i}]")
                               for i, e in enumerate(raw))
    return AttributionQuestion(str(data.get("id", default_id)), question.strip(), minimum, graph)


def read_questions(path: str | Path) -> Iterator[tuple[int | None, AttributionQuestion | InputError]]:
    """Questions from the BioKaLMA layout (ids are item positions; the entities are the minimum set and
    the gold graph) or from JSON / JSONL records ``{id, question, minimum, graph?}``. Bad records come
    back as InputError items (reported and skipped by the caller); an unreadable file raises."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError("file not found", path=path) from None
        except json.JSONDecodeError as error:
            raise InputError(f"not valid JSON: {error.msg}", path=path, line=error.lineno) from None
        if is_biokalma(data):
            for index, item in iter_biokalma(data, path):
                if isinstance(item, InputError):
                    yield None, item
                    continue
                question, entities = item
                yield None, AttributionQuestion(str(index), question.strip(), minimum_from_entities(entities),
                                                KnowledgeGraph(entities))
            return
    from factscope.core.io import read_json_records

    for line, record in read_json_records(path):
        if isinstance(record, InputError):
            yield line, record
            continue
        try:
            yield line, question_from_record(record, path=path, line=line, default_id=str(line))
        except InputError as error:
            yield line, error

