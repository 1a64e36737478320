"""Evolutionary question generation of BioKaLMA (KaLMA section 2.2, Tables 8, 9 and 15).

Round 1 labels a seed paragraph with knowledge from the graph and writes a question it answers (the
"answer-to-question" paradigm); each later round injects one more triple into the answer and rewrites
the question. The knowledge cited correctly in round 1 plus every injected triple form the question's
minimum knowledge set. The ``QuestionWriter`` runs it over a file of seeds (`factscope attribute make-questions`,
``factscope.make_questions``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from factscope.core.errors import InputError
from factscope.core.files.error_location import parse_located
from factscope.core.files.input_notes import InputNotes, report_usable
from factscope.core.files.record_ids import first_of_each_id
from factscope.core.files.tables import read_records
from factscope.core.files.whole_file import usable_records
from factscope.core.prompts import load_prompt
from factscope.core.runs.result import RunResult
from factscope.engines.writer import Loaded, Produced, Writer, WriterSteps
from factscope.kalma.data import SeedInput, entity_graph
from factscope.kalma.file_kinds import SEEDS, expect_kind
from factscope.kalma.generation_settings import EvolutionSettings
from factscope.kg.citations import parse_answer
from factscope.kg.graph import NAME, Entity, KnowledgeGraph, Triple, normalize_text

DEFAULT_EXCLUDED = frozenset({"name", "instance of", "topic's main category", "described by source"})
"""Relations never injected: identity and bookkeeping properties, not knowledge a question asks about."""

_GENERATED = re.compile(r"^\s*(?:generated\s+answer\s*:)?\s*(?P<answer>.*?)\s*generated\s+question\s*:\s*"
                        r"(?P<question>[^\n]+)", re.IGNORECASE | re.DOTALL)


@dataclass
class EvolutionSeed:
    """A seed paragraph and the graph of the people it mentions."""

    id: str
    paragraph: str
    graph: KnowledgeGraph


@dataclass
class EvolutionState:
    """Where one question's evolution stands."""

    seed: EvolutionSeed
    answer: str = ""
    question: str = ""
    minimum: list[Triple] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    failed: bool = False
    error: str | None = None
    raw: str | None = None


def read_seeds(path: str | Path, kg: KnowledgeGraph | None) -> Iterator[tuple[int, EvolutionSeed | InputError]]:
    """Seeds from JSON / JSONL ``{id, paragraph, qids: [...]}`` (entities taken from ``kg``) or
    ``{id, paragraph, graph: [entity, ...]}``; bad records, and records whose id repeats an earlier one's
    (``factscope.core.files.record_ids``), come back as InputError items."""
    path = Path(path)
    yield from first_of_each_id(path, _seed_records(path, kg), lambda seed: seed.id)


def _seed_records(path: Path, kg: KnowledgeGraph | None) -> Iterator[tuple[int, EvolutionSeed | InputError]]:
    """The seeds of a records file, a bad record as its InputError."""
    for line, data in read_records(path):
        if isinstance(data, InputError):
            yield line, data
            continue
        try:
            yield line, _seed(data, kg, path, line)
        except InputError as error:
            yield line, error


SEEDS_EXPECTED = "seed paragraphs: records {id, paragraph, qids: [...]} or {id, paragraph, graph: [entity, ...]}"


def load_seeds(path: str | Path, kg: KnowledgeGraph | None) -> tuple[list[EvolutionSeed], list[InputError]]:
    """The usable seeds of a file and the problems of the records skipped (see ``read_seeds``). A file of another
    kind (questions, answers, KaLMA's question-graph dataset, ...) or whose every record fails for one reason
    raises one InputError."""
    expect_kind(path, (SEEDS,), "attribute make-questions", SEEDS_EXPECTED)
    return usable_records(path, read_seeds(path, kg))


def _seed(data: dict[str, Any], kg: KnowledgeGraph | None, path: Path, line: int) -> EvolutionSeed:
    given = parse_located(SeedInput, data, path=path, line=line)
    if given.graph is not None:
        graph = entity_graph(given.graph, path=path, line=line)
    elif given.qids is not None:
        if kg is None:
            raise InputError("qids need a knowledge graph: pass `graph`", path=path, line=line, field="qids")
        missing = [q for q in given.qids if q not in kg]
        if missing:
            raise InputError(f"not in the graph: {', '.join(missing)}", path=path, line=line, field="qids")
        graph = kg.subgraph(given.qids)
    else:
        raise InputError("give 'qids' (with `graph`) or 'graph'", path=path, line=line, field="graph")
    return EvolutionSeed(given.id if given.id is not None else str(line), given.paragraph.strip(), graph)


def parse_generated(text: str | None) -> tuple[str, str] | None:
    """(answer, question) from a ``Generated Answer: ... Generated Question: ...`` reply, else None."""
    match = _GENERATED.search(text or "")
    if match is None or not match.group("answer").strip() or not match.group("question").strip():
        return None
    return match.group("answer").strip(), match.group("question").strip()


def cited_knowledge(answer: str, graph: KnowledgeGraph) -> list[Triple]:
    """Triples of ``graph`` that the answer cites correctly, names excluded, in order of first citation."""
    keys = {t.key(): t for t in graph.triples(include_name=False)}
    found = [keys[triple.key()] for c in parse_answer(answer).citations
             if (triple := c.triple()) is not None and triple.key() in keys]
    return list(dict.fromkeys(found))


def pick_knowledge(graph: KnowledgeGraph, used: Sequence[Triple], rng: random.Random,
                   excluded: frozenset[str] = DEFAULT_EXCLUDED) -> Triple | None:
    """One triple to inject: not yet used, relation not excluded, preferring relations the question does
    not cover yet; chosen at random (seeded) among those."""
    used_keys = {t.key() for t in used}
    used_relations = {normalize_text(t.relation) for t in used}
    candidates = [t for t in graph.triples(include_name=False)
                  if t.key() not in used_keys and normalize_text(t.relation) not in excluded]
    fresh = [t for t in candidates if normalize_text(t.relation) not in used_relations]
    pool = fresh or candidates
    return pool[rng.randrange(len(pool))] if pool else None


def knowledge_line(triple: Triple, graph: KnowledgeGraph) -> str:
    """``{qid: Q1, name: X, relation: value}``, the injected-knowledge form of KaLMA Table 9."""
    entity = graph.get(triple.qid) or Entity(triple.qid)
    name = f", {NAME}: {entity.name}" if entity.name else ""
    return f"{{qid: {triple.qid}{name}, {triple.relation}: {triple.value}}}"


def first_prompt(seed: EvolutionSeed) -> str:
    """Round 1 (KaLMA Table 8): label the paragraph with graph knowledge, write a question."""
    return (load_prompt("attribute_evolve_first").replace("{paragraph}", seed.paragraph)
            .replace("{knowledge}", seed.graph.flatten(qid_first=True, separator="\n")))


def next_prompt(state: EvolutionState, triple: Triple) -> str:
    """Rounds 2+ (KaLMA Table 9): extend the answer with one triple, rewrite the question."""
    return (load_prompt("attribute_evolve_next").replace("{answer}", state.answer)
            .replace("{question}", state.question).replace("{knowledge}", knowledge_line(triple, state.seed.graph)))


class EvolvedQuestion(BaseModel):
    """One evolved question: a question-file row for ``attribute generate`` plus the evolution trace."""

    id: str
    question: str
    answer: str
    minimum: list[list[str]] = Field(default_factory=list)
    graph: list[dict[str, Any]] = Field(default_factory=list)
    rounds: list[dict[str, Any]] = Field(default_factory=list)
    failed: bool = False
    error: str | None = None
    raw: str | None = None


class EvolutionRun(RunResult[EvolvedQuestion]):
    """Every question in the output file (read lazily; left out of ``model_dump``), and the counts of this run
    (``failed``: the file's rows marked failed; ``seeds`` and ``skipped``: the usable and skipped records of the
    seeds file, when one was read)."""

    what_failed: ClassVar[str] = "question evolutions"
    failures_kept: ClassVar[bool] = True
    seeds: int = 0
    skipped: int = 0

    def summary_rows(self) -> list[tuple[str, object]]:
        """The counts of an evolution from a seeds file, as its summary table shows them."""
        return [
            ("seed paragraphs", self.seeds),
            ("skipped input records", self.skipped),
            ("questions written", self.new_records),
            ("already in output (resumed)", self.resumed_records),
            ("failed (kept raw, marked)", self.failed),
        ]


class QuestionWriter(Writer[EvolutionSettings, EvolutionSeed, EvolutionRun]):
    """A question evolved from each seed paragraph of a file (``load_seeds``, its entities from the graph of the
    settings) or each ``EvolutionSeed`` given, for ``settings.rounds`` rounds (one batched LLM call per round and
    batch of seeds). A reply that cannot be read ends that seed's evolution: its row is marked failed, with the
    raw reply and the rounds done so far; with ``retry_failed`` such rows are evolved again and replaced in place."""

    name = "attribute make-questions"
    stage_name = "evolving questions"

    def load(
        self, settings: EvolutionSettings, inputs: str | Path | Iterable[EvolutionSeed], notes: InputNotes | None
    ) -> Loaded[EvolutionSeed]:
        """The seeds of a file (``notes`` told of the graph and the records skipped; a file with no usable seed
        is an InputError), or the seeds given."""
        if not isinstance(inputs, (str, Path)):
            seeds = list(inputs)
            return Loaded(seeds, len(seeds))
        loaded, problems = load_seeds(inputs, settings.load_graph(notes))
        report_usable(len(loaded), problems, "seed paragraphs", inputs, notes)
        return Loaded(loaded, len(loaded), len(problems))

    def steps(
        self, settings: EvolutionSettings, llm: Any, loaded: Loaded[EvolutionSeed], notes: InputNotes | None
    ) -> WriterSteps[EvolutionSeed]:
        """A question row per seed, after ``settings.rounds`` rounds."""

        def batch_questions(batch: Sequence[EvolutionSeed]) -> list[EvolvedQuestion]:
            states = [EvolutionState(s) for s in batch]
            for number in range(1, settings.rounds + 1):
                _evolve_round(states, number, llm, settings.seed, DEFAULT_EXCLUDED)
            return [question_record(state) for state in states]

        return WriterSteps(batch_questions, key=lambda item: item.id, row_type=EvolvedQuestion,
                           components={"llm": llm}, failed=lambda row: row.failed)

    def result(self, settings: EvolutionSettings, loaded: Loaded[EvolutionSeed], produced: Produced) -> EvolutionRun:
        """The questions file's rows, its rows marked failed, and the seeds read and skipped."""
        return EvolutionRun(results=produced.rows.results, failed=produced.failed_rows, seeds=loaded.usable,
                            skipped=loaded.skipped, **produced.rows.counts())


def _evolve_round(states: Sequence[EvolutionState], number: int, llm: Any, seed: int, excluded: frozenset[str]) -> None:
    """Round ``number`` for the seeds still evolving: pick the knowledge to inject, ask, read the replies."""
    active = [s for s in states if not s.failed]
    injected: list[Triple | None] = []
    prompts = []
    for state in active:
        if number == 1:
            injected.append(None)
            prompts.append(first_prompt(state.seed))
            continue
        rng = random.Random(f"{seed}:{state.seed.id}:{number}")
        triple = pick_knowledge(state.seed.graph, state.minimum, rng, excluded)
        injected.append(triple)
        prompts.append(next_prompt(state, triple) if triple is not None else "")
    asked = [(s, t, p) for s, t, p in zip(active, injected, prompts) if p]
    for state, triple, _ in zip(active, injected, prompts):
        if number > 1 and triple is None:
            state.rounds.append({"round": number, "skipped": "no knowledge left to inject"})
    replies = llm.chat_many([[{"role": "user", "content": p}] for _, _, p in asked])
    for (state, triple, _), reply in zip(asked, replies):
        _advance(state, number, triple, reply)


def _advance(state: EvolutionState, number: int, triple: Triple | None, reply: Any) -> None:
    parsed = None if reply.failed else parse_generated(reply.text)
    if parsed is None:
        state.failed = True
        state.error = reply.error if reply.failed else f"round {number}: no 'Generated Question:' in the reply"
        state.raw = reply.text
        return
    state.answer, state.question = parsed
    if number == 1:
        state.minimum = cited_knowledge(state.answer, state.seed.graph)
    elif triple is not None:
        state.minimum.append(triple)
    cited = triple is not None and triple in cited_knowledge(state.answer, state.seed.graph)
    state.rounds.append({"round": number, "knowledge": triple.to_list() if triple else None,
                         "cited": cited if triple else None, "answer": state.answer, "question": state.question})


def question_record(state: EvolutionState) -> EvolvedQuestion:
    """The output record of one seed's evolution."""
    return EvolvedQuestion(
        id=state.seed.id,
        question=state.question,
        answer=state.answer,
        minimum=[t.to_list() for t in state.minimum],
        graph=state.seed.graph.to_list(),
        rounds=state.rounds,
        failed=state.failed,
        error=state.error,
        raw=state.raw,
    )
