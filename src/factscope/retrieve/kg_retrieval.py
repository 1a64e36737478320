"""Question-side knowledge-graph retrieval of KaLMA (KaLMA sections 3.1 and 3.2).

Named entities of the question (spaCy) are looked up by name and alias in an entity source (a local
graph or Wikidata), filtered by type (a PERSON mention must be an instance of human), and same-name
candidates are re-ranked by how many of their neighbour values occur in the question (exact match); the
best candidate's one-hop subgraph joins the question's graph.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from factscope.kg.graph import Entity, KnowledgeGraph, normalize_text

Mention = tuple[str, str]
"""A named-entity mention: (text, NER label such as PERSON)."""

HUMAN_TYPES = frozenset({"human", "q5"})
DEFAULT_TYPE_FILTER: dict[str, frozenset[str]] = {"PERSON": HUMAN_TYPES}
"""NER label -> accepted ``instance of`` values; labels not listed are not filtered."""


class EntitySource(Protocol):
    """Where candidates come from: every entity whose name or alias equals a mention."""

    def lookup(self, name: str) -> list[Entity]: ...


class GraphSource:
    """A local KnowledgeGraph as an entity source."""

    def __init__(self, graph: KnowledgeGraph) -> None:
        self.graph = graph

    def lookup(self, name: str) -> list[Entity]:
        """Entities named or aliased ``name`` (case-insensitive)."""
        return self.graph.find_by_label(name)


def spacy_mentions(texts: Sequence[str]) -> list[list[Mention]]:
    """Named entities of each text with the packaged spaCy English model (batched with ``nlp.pipe``)."""
    from factscope.hf.embedded import load_spacy

    nlp = load_spacy()
    return [[(ent.text, ent.label_) for ent in doc.ents] for doc in nlp.pipe(texts)]


def exact_match_count(entity: Entity, question: str) -> int:
    """How many distinct neighbour values of ``entity`` occur in ``question`` as whole words
    (case-insensitive), the re-ranking score of KaLMA 3.2."""
    text = normalize_text(question)
    values = {normalize_text(v) for v in entity.values()}
    return sum(1 for v in values if v and re.search(rf"(?<!\w){re.escape(v)}(?!\w)", text))


def passes_type_filter(entity: Entity, label: str, type_filter: dict[str, frozenset[str]]) -> bool:
    """Whether the entity's ``instance of`` values fit the mention's NER label."""
    accepted = type_filter.get(label)
    if accepted is None:
        return True
    types = {normalize_text(v) for v in entity.properties.get("instance of", [])}
    return bool(types & accepted)


@dataclass
class RetrievedEntity:
    """The entity chosen for one mention, with its re-ranking score and how many candidates it beat."""

    mention: str
    label: str
    entity: Entity
    matches: int
    candidates: int


@dataclass
class Retrieval:
    """A question's retrieved graph and the decisions behind it."""

    graph: KnowledgeGraph
    chosen: list[RetrievedEntity] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)


class KGRetriever:
    """NER -> look-up by name and alias -> type filter -> exact-match re-ranking -> one-hop subgraphs."""

    def __init__(
        self,
        source: EntitySource,
        *,
        ner: Callable[[Sequence[str]], list[list[Mention]]] = spacy_mentions,
        type_filter: dict[str, frozenset[str]] | None = None,
        labels: frozenset[str] | None = None,
    ) -> None:
        self.source = source
        self.ner = ner
        self.type_filter = DEFAULT_TYPE_FILTER if type_filter is None else type_filter
        self.labels = labels

    def retrieve_many(self, questions: Sequence[str]) -> list[Retrieval]:
        """Retrieve a graph for each question (NER runs as one batch)."""
        return [self._retrieve(q, mentions) for q, mentions in zip(questions, self.ner(questions))]

    def retrieve(self, question: str) -> Retrieval:
        """Retrieve the graph of one question."""
        return self.retrieve_many([question])[0]

    def _retrieve(self, question: str, mentions: list[Mention]) -> Retrieval:
        result = Retrieval(KnowledgeGraph())
        seen: set[str] = set()
        for text, label in mentions:
            if (self.labels is not None and label not in self.labels) or normalize_text(text) in seen:
                continue
            seen.add(normalize_text(text))
            candidates = [e for e in self.source.lookup(text) if passes_type_filter(e, label, self.type_filter)]
            if not candidates:
                result.unmatched.append(text)
                continue
            scored = [(exact_match_count(e, question), index, e) for index, e in enumerate(candidates)]
            matches, _, best = max(scored, key=lambda item: (item[0], -item[1]))
            result.graph.add(best)
            result.chosen.append(RetrievedEntity(text, label, best, matches, len(candidates)))
        return result
