"""Entity-centred knowledge graphs: an entity's properties read as (qid, relation, value) triples."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

NAME = "name"
"""The relation under which an entity's name is stored and cited (``[Q1, name: Ada Lovelace]``)."""

_QUOTES = "\"'`\u2018\u2019\u201c\u201d"
_SPACES = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """Matching key of a relation or value: NFKC, case-folded, outer quotes and final period removed,
    inner whitespace collapsed. ``' "Rome". '`` and ``rome`` compare equal; ``1596-07-08`` and
    ``July 8, 1596`` do not (dates are matched as written in the graph)."""
    key = unicodedata.normalize("NFKC", text).strip()
    previous = None
    while key != previous:
        previous = key
        key = key.strip().strip(_QUOTES).strip().rstrip(".").strip()
    return _SPACES.sub(" ", key).casefold()


def normalize_qid(text: str) -> str:
    """``q212657`` / `` Q212657 `` -> ``Q212657``."""
    return text.strip().strip(_QUOTES).strip().upper()


@dataclass(frozen=True)
class Triple:
    """One piece of knowledge: centre entity qid, relation, neighbour value (a name, not a qid)."""

    qid: str
    relation: str
    value: str

    def key(self) -> tuple[str, str, str]:
        """The normalised (qid, relation, value) used for matching citations to knowledge."""
        return (normalize_qid(self.qid), normalize_text(self.relation), normalize_text(self.value))

    def render(self) -> str:
        """``relation: value``, the hypothesis form used for NLI (KaLMA A.3)."""
        return f"{self.relation}: {self.value}"

    def to_list(self) -> list[str]:
        """``[qid, relation, value]`` for JSON output."""
        return [self.qid, self.relation, self.value]


@dataclass
class Entity:
    """A graph node with its one-hop neighbourhood: relation -> one or several values."""

    qid: str
    name: str = ""
    aliases: list[str] = field(default_factory=list)
    properties: dict[str, list[str]] = field(default_factory=dict)

    def add(self, relation: str, value: str) -> None:
        """Add one (relation, value) edge, ignoring exact duplicates."""
        values = self.properties.setdefault(relation, [])
        if value not in values:
            values.append(value)

    def triples(self, *, include_name: bool = True) -> list[Triple]:
        """The entity's knowledge as triples; the name is the triple (qid, 'name', name)."""
        out = [Triple(self.qid, NAME, self.name)] if include_name and self.name else []
        for relation, values in self.properties.items():
            out.extend(Triple(self.qid, relation, value) for value in values)
        return out

    def labels(self) -> list[str]:
        """The name followed by the aliases: every string the entity can be looked up by."""
        return [label for label in [self.name, *self.aliases] if label]

    def values(self) -> Iterator[str]:
        """Every neighbour value (for re-ranking by exact match with a question)."""
        for values in self.properties.values():
            yield from values

    def flatten(self, *, qid_first: bool = False) -> str:
        """The prompt form of KaLMA Table 10: ``{name: X, rel: v, rel: v, ..., qid: Q1}``;
        ``qid_first`` gives the Table 8 form ``{qid: Q1, name: X, ...}``."""
        parts = [f"{NAME}: {self.name}"] if self.name else []
        for relation, values in self.properties.items():
            parts.extend(f"{relation}: {value}" for value in values)
        qid = f"qid: {self.qid}"
        return "{" + ", ".join([qid, *parts] if qid_first else [*parts, qid]) + "}"

    def to_dict(self) -> dict[str, object]:
        """JSON form: ``{qid, name, aliases?, properties: {relation: [values]}}``."""
        out: dict[str, object] = {"qid": self.qid, "name": self.name}
        if self.aliases:
            out["aliases"] = list(self.aliases)
        out["properties"] = {relation: list(values) for relation, values in self.properties.items()}
        return out


class KnowledgeGraph:
    """A set of entities keyed by qid, read as triples, searchable by name and alias."""

    def __init__(self, entities: Iterable[Entity] = ()) -> None:
        self.entities: dict[str, Entity] = {}
        for entity in entities:
            self.add(entity)

    def add(self, entity: Entity) -> None:
        """Add an entity, merging its properties into an existing entity with the same qid."""
        qid = normalize_qid(entity.qid)
        existing = self.entities.get(qid)
        if existing is None:
            self.entities[qid] = Entity(qid, entity.name, list(entity.aliases),
                                        {r: list(v) for r, v in entity.properties.items()})
            return
        existing.name = existing.name or entity.name
        for alias in entity.aliases:
            if alias not in existing.aliases:
                existing.aliases.append(alias)
        for relation, values in entity.properties.items():
            for value in values:
                existing.add(relation, value)

    def __len__(self) -> int:
        return len(self.entities)

    def __contains__(self, qid: object) -> bool:
        return isinstance(qid, str) and normalize_qid(qid) in self.entities

    def get(self, qid: str) -> Entity | None:
        """The entity with this qid, or None."""
        return self.entities.get(normalize_qid(qid))

    def triples(self, *, include_name: bool = True) -> list[Triple]:
        """All triples of all entities."""
        return [t for entity in self.entities.values() for t in entity.triples(include_name=include_name)]

    def triple_keys(self) -> set[tuple[str, str, str]]:
        """Normalised keys of every triple, for exact-match citation checking."""
        return {t.key() for t in self.triples()}

    def find_by_label(self, label: str) -> list[Entity]:
        """Entities whose name or an alias equals ``label`` (case- and space-insensitive)."""
        key = normalize_text(label)
        return [e for e in self.entities.values() if any(normalize_text(x) == key for x in e.labels())]

    def subgraph(self, qids: Iterable[str]) -> KnowledgeGraph:
        """The entity-centred subgraph of the given qids (missing qids are skipped)."""
        found = (self.get(qid) for qid in qids)
        return KnowledgeGraph(e for e in found if e is not None)

    def without(self, triples: Iterable[Triple]) -> KnowledgeGraph:
        """A copy with the given triples removed (the conscious-incompetence setting, KaLMA 4.4)."""
        removed = {t.key() for t in triples}
        out = KnowledgeGraph()
        for entity in self.entities.values():
            copy = Entity(entity.qid, entity.name, list(entity.aliases))
            for relation, values in entity.properties.items():
                for value in values:
                    if Triple(entity.qid, relation, value).key() not in removed:
                        copy.add(relation, value)
            if Triple(entity.qid, NAME, entity.name).key() in removed:
                copy.name = ""
            out.add(copy)
        return out

    def merge(self, other: KnowledgeGraph) -> KnowledgeGraph:
        """A new graph holding the entities of both."""
        return KnowledgeGraph([*self.entities.values(), *other.entities.values()])

    def flatten(self, *, qid_first: bool = False, separator: str = "\n\n") -> str:
        """One ``{...}`` block per entity, the prompt form of KaLMA Table 10."""
        return separator.join(entity.flatten(qid_first=qid_first) for entity in self.entities.values())

    def to_list(self) -> list[dict[str, object]]:
        """JSON form: a list of entity dicts."""
        return [entity.to_dict() for entity in self.entities.values()]

    @classmethod
    def from_triples(cls, triples: Iterable[Triple]) -> KnowledgeGraph:
        """Build a graph from triples; ``name`` triples set the entity name."""
        graph = cls()
        for t in triples:
            entity = graph.get(t.qid)
            if entity is None:
                graph.add(Entity(t.qid))
                entity = graph.get(t.qid)
            assert entity is not None
            if normalize_text(t.relation) == NAME and not entity.name:
                entity.name = t.value
            else:
                entity.add(t.relation, t.value)
        return graph
