"""Read knowledge graphs from the BioKaLMA layout, JSON / JSONL entity files and RDF (N-Triples, Turtle)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from factscope.core.errors import ConfigError, InputError
from factscope.core.fields import SPACES
from factscope.kg.graph import NAME, Entity, KnowledgeGraph, normalize_qid

QID_KEYS = ("qid", "id")
QID_VALUE: dict[str, Any] = {"not": {"type": "string", "pattern": f"^{SPACES}*$"}}
"""The JSON Schema of an entity's qid: any value but a blank string (a value that is not a string is read as its
text)."""
ENTITY_OBJECT: dict[str, Any] = {
    "type": "object",
    "if": {"required": [QID_KEYS[0]]},
    "then": {"properties": {QID_KEYS[0]: QID_VALUE}},
    "else": {"required": [QID_KEYS[1]], "properties": {QID_KEYS[1]: QID_VALUE}},
}
"""The JSON Schema of the objects ``entity_from_dict`` reads: its qid under the first of ``QID_KEYS`` it has."""
ALIAS_KEYS = ("aliases", "alias")
RDF_FORMATS = {".nt": "nt", ".ttl": "turtle", ".n3": "n3", ".rdf": "xml", ".owl": "xml", ".xml": "xml"}


def _values(value: Any) -> list[str]:
    """A property value as a list of strings (one value or several; nulls dropped)."""
    items = value if isinstance(value, list) else [value]
    return [str(item).strip() for item in items if item is not None and str(item).strip()]


def entity_from_dict(data: Any, *, path: str | Path | None = None, line: int | None = None,
                     field: str | None = None) -> Entity:
    """One entity from ``{qid, name, prop: value, ...}`` (BioKaLMA) or ``{qid, name, aliases, properties}``."""
    if not isinstance(data, dict):
        raise InputError(f"an entity must be a JSON object, got {type(data).__name__}",
                         path=path, line=line, field=field)
    qid_key = next((k for k in QID_KEYS if k in data), None)
    if qid_key is None or not str(data[qid_key]).strip():
        raise InputError("entity has no 'qid'", path=path, line=line, field=field)
    entity = Entity(normalize_qid(str(data[qid_key])))
    names = _values(data.get(NAME))
    entity.name = names[0] if names else ""
    entity.aliases = [a for key in ALIAS_KEYS for a in _values(data.get(key))]
    properties = data.get("properties")
    items: Iterable[tuple[Any, Any]]
    if isinstance(properties, dict):
        items = properties.items()
    else:
        skip = {qid_key, NAME, *ALIAS_KEYS}
        items = ((k, v) for k, v in data.items() if k not in skip)
    for relation, value in items:
        for item in _values(value):
            entity.add(str(relation).strip(), item)
    for extra in names[1:]:
        entity.add(NAME, extra)
    return entity


def iter_biokalma(data: Any, path: str | Path) -> Iterator[tuple[int, tuple[str, list[Entity]] | InputError]]:
    """Items of the BioKaLMA layout (a JSON list of ``[question, [entity, ...]]``), each as
    (index, (question, entities)) or (index, InputError) so one bad item can be reported and skipped."""
    if not isinstance(data, list):
        raise InputError("expected a JSON list of [question, [entity, ...]] items", path=path)
    for index, item in enumerate(data):
        where = f"[{index}]"
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
                and isinstance(item[1], list)):
            yield index, InputError("expected [question, [entity, ...]]", path=path, field=where)
            continue
        try:
            entities = [entity_from_dict(e, path=path, field=f"{where}[1][{j}]") for j, e in enumerate(item[1])]
        except InputError as error:
            yield index, error
            continue
        yield index, (item[0], entities)


def read_biokalma(path: str | Path) -> list[tuple[str, list[Entity]]]:
    """The BioKaLMA layout read whole; the first bad item raises an InputError naming it."""
    out = []
    for _index, item in iter_biokalma(_read_json(Path(path)), path):
        if isinstance(item, InputError):
            raise item
        out.append(item)
    return out


def is_biokalma(data: Any) -> bool:
    """Whether parsed JSON is in the BioKaLMA layout (a list whose first item is a list)."""
    return isinstance(data, list) and bool(data) and isinstance(data[0], list)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except json.JSONDecodeError as error:
        raise InputError(f"not valid JSON: {error.msg}", path=path, line=error.lineno) from None


def _read_entity_lines(path: Path) -> list[Entity]:
    entities = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError(f"not valid JSON: {error.msg}", path=path, line=number) from None
        entities.append(entity_from_dict(data, path=path, line=number))
    return entities


def load_graph(path: str | Path) -> KnowledgeGraph:
    """Load a knowledge graph by file type: ``.jsonl`` (one entity per line), ``.json`` (a list of
    entities, or the BioKaLMA layout whose entities are merged by qid), RDF (``.nt``, ``.ttl``, ``.rdf``)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in RDF_FORMATS:
        return load_rdf(path, RDF_FORMATS[suffix])
    if suffix == ".jsonl":
        return KnowledgeGraph(_read_entity_lines(path))
    if suffix == ".json":
        data = _read_json(path)
        if is_biokalma(data):
            return KnowledgeGraph(e for _, entities in read_biokalma(path) for e in entities)
        if not isinstance(data, list):
            raise InputError("expected a JSON list of entities", path=path)
        return KnowledgeGraph(entity_from_dict(e, path=path, field=f"[{i}]") for i, e in enumerate(data))
    raise InputError("unknown graph file type; use .json, .jsonl, .nt, .ttl or .rdf", path=path)


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
LABEL_PREDICATES = ("http://www.w3.org/2000/01/rdf-schema#label", "http://schema.org/name",
                    "http://www.w3.org/2004/02/skos/core#prefLabel", "http://xmlns.com/foaf/0.1/name")
ALIAS_PREDICATES = ("http://www.w3.org/2004/02/skos/core#altLabel",)
TYPE_PREDICATE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
SKIPPED_PREDICATES = ("http://schema.org/description",)


def local_name(uri: str) -> str:
    """The last segment of a URI: ``http://www.wikidata.org/entity/Q5`` -> ``Q5``."""
    return re.split(r"[/#]", uri.rstrip("/#"))[-1]


def _readable(name: str) -> str:
    """``placeOfBirth`` / ``place_of_birth`` -> ``place of birth``."""
    return _CAMEL.sub(" ", name).replace("_", " ").lower()


def load_rdf(path: str | Path, rdf_format: str | None = None) -> KnowledgeGraph:
    """Read RDF through rdflib. Each URI subject is an entity (qid = its URI's last segment);
    rdfs:label / schema:name / skos:prefLabel give the name, skos:altLabel the aliases, rdf:type reads as
    ``instance of``; URIs used as predicates are not entities; a predicate reads as its label when the file labels it, else its last segment split
    into words; a URI object reads as its label when labelled, else its last segment."""
    try:
        import rdflib
    except ImportError:
        raise ConfigError("reading RDF needs rdflib: pip install 'factscope[kg]'") from None
    path = Path(path)
    rdf_format = rdf_format or RDF_FORMATS.get(path.suffix.lower(), "turtle")
    store = rdflib.Graph()
    try:
        store.parse(str(path), format=rdf_format)
    except FileNotFoundError:
        raise InputError("file not found", path=path) from None
    except Exception as error:  # noqa: BLE001 - rdflib parsers raise their own unrelated error types
        raise InputError(f"not valid RDF ({rdf_format}): {error}", path=path) from None
    labels: dict[str, str] = {}
    aliases: dict[str, list[str]] = {}
    for subject, predicate, obj in store:
        if isinstance(obj, rdflib.Literal) and str(predicate) in LABEL_PREDICATES:
            labels.setdefault(str(subject), str(obj))
        elif isinstance(obj, rdflib.Literal) and str(predicate) in ALIAS_PREDICATES:
            aliases.setdefault(str(subject), []).append(str(obj))
    predicates = {str(p) for p in store.predicates()}
    graph = KnowledgeGraph()
    for subject, predicate, obj in sorted(store, key=lambda t: (str(t[0]), str(t[1]), str(t[2]))):
        if not isinstance(subject, rdflib.URIRef) or str(subject) in predicates:
            continue
        key = str(subject)
        entity = graph.get(local_name(key))
        if entity is None:
            graph.add(Entity(local_name(key), labels.get(key, ""), aliases.get(key, [])))
            entity = graph.get(local_name(key))
        assert entity is not None
        if str(predicate) in LABEL_PREDICATES + ALIAS_PREDICATES + SKIPPED_PREDICATES:
            continue
        relation = "instance of" if str(predicate) == TYPE_PREDICATE else labels.get(
            str(predicate), _readable(local_name(str(predicate))))
        value = labels.get(str(obj), local_name(str(obj)).replace("_", " ")) if isinstance(obj, rdflib.URIRef) else str(obj)
        entity.add(relation, value)
    return graph
