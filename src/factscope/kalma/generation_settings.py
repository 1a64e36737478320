"""The settings of writing with an LLM from a knowledge graph, each option declared once: answers
(``AnswerGenerationSettings``, of the ``AnswerWriter`` in ``factscope.kalma.generation``) and questions
(``EvolutionSettings``, of the ``QuestionWriter`` in ``factscope.kalma.question_evolution``). The command line and
``factscope.generate_answers`` / ``make_questions`` build them from these fields. Light to import: the graph is
loaded only when asked for. The files they name are recorded in a results file's manifest by what they put into
the records (the input's fingerprint), not by their paths."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from factscope.core.options.metadata import about
from factscope.core.options.validation import ValidatedOptions
from factscope.core.seeds import SEED_MAX
from factscope.kg.wikidata import WIKIDATA_SPARQL

if TYPE_CHECKING:
    from factscope.core.files.input_notes import InputNotes
    from factscope.kg.graph import KnowledgeGraph

RetrieveMode = Literal["none", "local", "wikidata"]
"""Where each question's graph comes from: none (the gold graph), the local graph, or Wikidata."""


@dataclass(frozen=True)
class GraphSettings(ValidatedOptions):
    """The knowledge graph a generation reads its entities from."""

    graph: Path | None = field(default=None, metadata=about(
        "knowledge graph: .json / .jsonl entities, BioKaLMA layout, or RDF .nt / .ttl / .rdf", recorded_by="records"
    ))

    def load_graph(self, notes: InputNotes | None = None) -> KnowledgeGraph | None:
        """The graph of ``graph`` (None without one), its size told to ``notes``."""
        if self.graph is None:
            return None
        from factscope.kg.loaders import load_graph

        loaded = load_graph(self.graph)
        if notes is not None:
            notes.note(f"graph {self.graph}: {len(loaded)} entities, {len(loaded.triples())} triples")
        return loaded


@dataclass(frozen=True)
class AnswerGenerationSettings(GraphSettings):
    """Where each question's graph comes from, what is taken out of it, and how the LLM samples (KaLMA 4.4 and
    5.3; see ``factscope.kalma.graphs.prepare``)."""

    retrieve: RetrieveMode = field(default="none", metadata=about(
        "where each question's graph comes from: none, its gold graph (the one-hop subgraphs in `graph` of its "
        "minimum-set entities, plus its own graph); local or wikidata, NER, look-up, type filter and exact-match "
        "re-ranking over `graph` or live Wikidata"
    ))
    remove: int = field(default=0, metadata=about(
        "minimum-set triples to remove from each graph (conscious incompetence, KaLMA Table 5: 0-3)", min=0
    ))
    retrieval_accuracy: float = field(default=1.0, metadata=about(
        "share of graphs kept; the rest are swapped for irrelevant ones (KaLMA Figure 5)", min=0.0, max=1.0
    ))
    seed: int = field(default=0, metadata=about("seed of the removal and swap choices", min=0, max=SEED_MAX))
    sparql_endpoint: str = field(default=WIKIDATA_SPARQL, metadata=about(
        "SPARQL endpoint for `retrieve='wikidata'`"
    ))
    sparql_cache: Path = field(default=Path(".factscope/sparql"), metadata=about(
        "on-disk cache of SPARQL replies", changes_results=False
    ))
    sparql_interval: float = field(default=1.0, metadata=about(
        "seconds between SPARQL requests", min=0.0, changes_results=False
    ))
    temperature: float | None = field(default=None, metadata=about(
        "sampling temperature (default: the LLM config's, 0)", min=0.0
    ))
    minimum: Path | None = field(default=None, metadata=about(
        "gold minimum knowledge sets: KaLMA's JSON list of \\[question, \\[\\[qid, relation, value], ...]] (item i "
        "is question i), or JSON / JSONL records {id?, question?, minimum}; they replace the records' own sets",
        recorded_by="records",
    ))


@dataclass(frozen=True)
class EvolutionSettings(GraphSettings):
    """How many rounds a question evolves, and the seed of the knowledge each round injects (KaLMA 2.2)."""

    rounds: int = field(default=6, metadata=about("evolution rounds (the paper uses 6)", min=1))
    seed: int = field(default=0, metadata=about("seed of the knowledge choices", min=0, max=SEED_MAX))
