"""Knowledge graphs for attribution: entities, triples, loaders, citations and a Wikidata client."""

from factscope.kg.graph import Entity, KnowledgeGraph, Triple, normalize_text

__all__ = ["Entity", "KnowledgeGraph", "Triple", "normalize_text"]
