"""The graph each KaLMA question is answered over: gold, retrieved, with knowledge removed (KaLMA 4.4), or
swapped for an irrelevant one (KaLMA 5.3)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from factscope.core.errors import ConfigError
from factscope.kalma.data import AttributionQuestion
from factscope.kalma.generation_settings import AnswerGenerationSettings
from factscope.kg.graph import KnowledgeGraph, Triple
from factscope.kg.wikidata import WIKIDATA_SPARQL


@dataclass
class GenerationItem:
    """One question with the graph the model will see and the knowledge removed from it."""

    question: AttributionQuestion
    graph: KnowledgeGraph
    removed: list[Triple] = field(default_factory=list)
    replaced_with: str | None = None
    unmatched: list[str] = field(default_factory=list)


def gold_graph(question: AttributionQuestion, kg: KnowledgeGraph | None) -> KnowledgeGraph:
    """The question's gold graph: the one-hop subgraphs of its minimum-set entities in ``kg`` (when given),
    merged with the question's own graph or minimum set, so every minimum-set triple is in it."""
    own = question.graph if question.graph is not None else question.minimum_graph()
    if kg is None:
        return own.merge(KnowledgeGraph.from_triples(question.minimum))
    return kg.subgraph(question.qids()).merge(own).merge(KnowledgeGraph.from_triples(question.minimum))


def removed_knowledge(question: AttributionQuestion, count: int, seed: int) -> list[Triple]:
    """``count`` minimum-set triples to remove (KaLMA 4.4), chosen by a permutation seeded with the
    question id, so removing 2 removes the 1 removed before plus one more."""
    order = list(dict.fromkeys(question.minimum))
    random.Random(f"{seed}:{question.id}").shuffle(order)
    return order[:count]


def question_retrieval(
    source: str,
    kg: KnowledgeGraph | None = None,
    *,
    sparql_endpoint: str = WIKIDATA_SPARQL,
    sparql_cache: str | Path | None = None,
    sparql_interval: float = AnswerGenerationSettings.sparql_interval,
) -> Callable[[list[str]], list[Any]] | None:
    """The retrieval that gives each question its graph (``prepare``'s ``retrieve``), by ``source``: 'none' (the
    gold graph: no retrieval), 'local' (NER, look-up, type filter and re-ranking over ``kg``) or 'wikidata' (the
    same over live Wikidata at ``sparql_endpoint``, its replies cached in ``sparql_cache``, at most one request
    every ``sparql_interval`` seconds)."""
    if source == "none":
        return None
    from factscope.retrieve.kg_retrieval import GraphSource, KGRetriever

    if source == "local":
        if kg is None:
            raise ConfigError("`retrieve='local'` needs `graph`")
        return KGRetriever(GraphSource(kg)).retrieve_many
    if source == "wikidata":
        from factscope.kg.wikidata import WikidataClient

        client = WikidataClient(sparql_endpoint, cache_dir=sparql_cache, min_interval=sparql_interval)
        return KGRetriever(client).retrieve_many
    raise ConfigError(f"`retrieve` must be 'none', 'local' or 'wikidata', got {source!r}")


def prepare(
    questions: Sequence[AttributionQuestion],
    *,
    kg: KnowledgeGraph | None = None,
    retrieve: Callable[[list[str]], list[Any]] | None = None,
    remove: int = AnswerGenerationSettings.remove,
    retrieval_accuracy: float = AnswerGenerationSettings.retrieval_accuracy,
    seed: int = AnswerGenerationSettings.seed,
) -> tuple[list[GenerationItem], list[str]]:
    """Graphs for generation, and warnings for questions left out.

    ``retrieve`` (a ``KGRetriever.retrieve_many``) replaces the gold graph by the retrieved one.
    ``remove`` > 0 removes that many minimum-set triples (questions with fewer are left out).
    ``retrieval_accuracy`` < 1 swaps that share of graphs, picked by a permutation seeded with ``seed``
    (so 60 swaps the graphs 80 swapped plus more), for the graph of another question that shares no
    entity with it (KaLMA 5.3)."""
    if not 0.0 <= retrieval_accuracy <= 1.0:
        raise ConfigError(f"`retrieval_accuracy` must be between 0 and 1 (e.g. 0.8), not {retrieval_accuracy}")
    warnings: list[str] = []
    items: list[GenerationItem] = []
    retrieved = retrieve([q.question for q in questions]) if retrieve is not None else None
    for index, question in enumerate(questions):
        if retrieved is not None:
            graph, unmatched = retrieved[index].graph, list(retrieved[index].unmatched)
            if not len(graph):
                warnings.append(f"question {question.id}: retrieval found no entity; answered with an empty graph")
        else:
            graph, unmatched = gold_graph(question, kg), []
        removed: list[Triple] = []
        if remove:
            if len(set(question.minimum)) < remove:
                warnings.append(f"question {question.id}: only {len(set(question.minimum))} minimum-set "
                                f"triples, cannot remove {remove}; left out")
                continue
            removed = removed_knowledge(question, remove, seed)
            graph = graph.without(removed)
        items.append(GenerationItem(question, graph, removed, unmatched=unmatched))
    if retrieval_accuracy < 1.0:
        warnings.extend(_swap_graphs(items, retrieval_accuracy, seed))
    return items, warnings


def _swap_graphs(items: list[GenerationItem], accuracy: float, seed: int) -> list[str]:
    rng = random.Random(seed)
    order = list(range(len(items)))
    rng.shuffle(order)
    count = round(len(items) * (1.0 - accuracy))
    originals = [item.graph for item in items]
    warnings = []
    for position in order[:count]:
        own = set(originals[position].entities)
        donors = [i for i in order if i != position and not own & set(originals[i].entities)]
        if not donors:
            warnings.append(f"question {items[position].question.id}: no graph without shared entities to swap in")
            continue
        donor = donors[rng.randrange(len(donors))]
        items[position].graph = originals[donor]
        items[position].replaced_with = items[donor].question.id
    return warnings
