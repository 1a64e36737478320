"""Attribution questions: a question, its minimum knowledge set and (optionally) its own graph."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapValidator,
)

from factscope.core.errors import InputError
from factscope.core.fields import NON_BLANK_STRING, Identifier, NonBlank
from factscope.core.files.error_location import parse_located
from factscope.core.files.input_files import read_text
from factscope.core.files.record_ids import first_of_each_id
from factscope.core.files.tables import read_records
from factscope.core.files.whole_file import usable_records
from factscope.kalma.file_kinds import QUESTION_GRAPHS, QUESTIONS, expect_kind
from factscope.kg.graph import Entity, KnowledgeGraph, Triple, normalize_qid
from factscope.kg.loaders import ENTITY_OBJECT, entity_from_dict, is_biokalma, iter_biokalma


@dataclass
class AttributionQuestion:
    """A question with the minimum knowledge set needed to answer it (KaLMA, section 2.2)."""

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


def _triple_or_entity(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    try:
        return handler(value)
    except ValidationError:
        raise ValueError("expected [qid, relation, value] with three non-empty strings, or an entity object") from None


TRIPLE: dict[str, Any] = {"type": "array", "items": NON_BLANK_STRING, "minItems": 3, "maxItems": 3}
"""The JSON Schema of a ``[qid, relation, value]`` triple."""

TripleOrEntity = Annotated[
    Annotated[list[NonBlank], Field(min_length=3, max_length=3)] | dict[str, Any],
    WrapValidator(_triple_or_entity),
    WithJsonSchema({"anyOf": [TRIPLE, ENTITY_OBJECT]}),
]
"""One piece of knowledge: a ``[qid, relation, value]`` triple or an entity object (all its triples)."""

EntityObjects = Annotated[list[dict[str, Any]], WithJsonSchema({"type": "array", "items": ENTITY_OBJECT})]
"""A graph as written: entity objects ``{qid, name, relation: value, ...}``, read by ``entity_from_dict``."""


class QuestionInput(BaseModel):
    """One attribution question as written: ``{id?, question, minimum, graph?}``."""

    model_config = ConfigDict(strict=True)

    question: NonBlank
    minimum: list[TripleOrEntity] = Field(default_factory=list)
    graph: EntityObjects | None = None
    id: Identifier | None = None


class AnswerInput(BaseModel):
    """One answer to score as written: a ``generate`` output row or ``{id, question?, answer, graph,
    minimum?, removed?}``."""

    model_config = ConfigDict(strict=True)

    id: Identifier
    answer: str
    graph: EntityObjects
    question: str | None = None
    minimum: list[TripleOrEntity] | None = None
    removed: list[TripleOrEntity] | None = None


FALSY: list[Any] = [False, None, 0, "", [], {}]
"""The JSON values Python reads as false: those a record's ``failed`` may hold to be scored."""


class AnswerRequestRecord(AnswerInput):
    """An answer as a request sends it, as the server's schema shows it: one whose generation failed (its
    ``failed`` true, ``read_answer``) has nothing to score."""

    failed: Annotated[Any, WithJsonSchema({"enum": FALSY})] = None


class SeedInput(BaseModel):
    """One question-evolution seed as written: ``{id?, paragraph, qids: [...]}`` or ``{id?, paragraph,
    graph: [entity, ...]}``."""

    model_config = ConfigDict(strict=True)

    paragraph: NonBlank
    graph: EntityObjects | None = None
    qids: list[Identifier] | None = None
    id: Identifier | None = None


def parse_triples(items: list[Any], *, path: Path, line: int | None, field_name: str) -> list[Triple]:
    """Validated ``TripleOrEntity`` items -> triples; an entity object gives all its triples but its name
    (its errors name the file, line and ``field_name.index``)."""
    triples: list[Triple] = []
    for index, item in enumerate(items):
        if isinstance(item, dict):
            entity = entity_from_dict(item, path=path, line=line, field=f"{field_name}.{index}")
            triples.extend(entity.triples(include_name=False))
        else:
            qid, relation, value = item
            triples.append(Triple(normalize_qid(qid), relation.strip(), value.strip()))
    return triples


def entity_graph(entities: EntityObjects, *, path: Path, line: int | None, field_name: str = "graph") -> KnowledgeGraph:
    """The graph of validated entity objects (an entity without a qid raises, naming ``field_name.index``)."""
    return KnowledgeGraph(entity_from_dict(e, path=path, line=line, field=f"{field_name}.{i}")
                          for i, e in enumerate(entities))


def question_from_record(data: dict[str, Any], *, path: Path, line: int | None,
                         default_id: str) -> AttributionQuestion:
    """One question from ``{id?, question, minimum, graph?}``."""
    if data.get("failed"):
        raise InputError("this question's generation failed (see its 'error' and 'raw'); left out", path=path,
                         line=line, field="failed")
    given = parse_located(QuestionInput, data, path=path, line=line)
    minimum = parse_triples(given.minimum, path=path, line=line, field_name="minimum")
    graph = None if given.graph is None else entity_graph(given.graph, path=path, line=line)
    return AttributionQuestion(given.id if given.id is not None else default_id, given.question.strip(), minimum,
                               graph)


def read_questions(path: str | Path) -> Iterator[tuple[int | None, AttributionQuestion | InputError]]:
    """Questions from the BioKaLMA layout (ids are item positions; the entities are the minimum set and
    the gold graph) or from JSON / JSONL records ``{id, question, minimum, graph?}``. Bad records come
    back as InputError items (reported and skipped by the caller); an unreadable file raises."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(read_text(path))
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
    yield from first_of_each_id(path, _question_records(path), lambda question: question.id)


def _question_records(path: Path) -> Iterator[tuple[int, AttributionQuestion | InputError]]:
    """The questions of a JSON / JSONL records file, a bad record as its InputError."""
    for line, record in read_records(path):
        if isinstance(record, InputError):
            yield line, record
            continue
        try:
            yield line, question_from_record(record, path=path, line=line, default_id=str(line))
        except InputError as error:
            yield line, error



QUESTIONS_EXPECTED = ("questions: KaLMA's question-graph dataset, or records {id, question, minimum: [[qid, relation, "
                      "value], ...]}")


def load_questions(path: str | Path) -> tuple[list[AttributionQuestion], list[InputError]]:
    """The usable questions of a file and the problems of the records skipped (see ``read_questions``). A file of
    another kind (answers, seed paragraphs, a graph, gold minimum knowledge) or whose every record fails for one
    reason raises one InputError."""
    expect_kind(path, (QUESTIONS, QUESTION_GRAPHS), "attribute generate", QUESTIONS_EXPECTED)
    return usable_records(path, read_questions(path))
