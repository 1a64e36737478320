"""The KaLMA task: attributed answer generation over a knowledge graph, and its scoring.

``prepare`` builds each question's graph (gold, retrieved, knowledge removed, or swapped for an irrelevant
one), ``generate`` asks an LLM for answers that cite the graph, ``score`` measures citation quality,
text-citation alignment, [NA] quality and (optionally) G-Eval text quality.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from factscope.checkers.base import Checker, CheckTask
from factscope.core.errors import ConfigError, InputError
from factscope.core.io import parse_located, read_json_records
from factscope.core.manifest import Setting
from factscope.core.prompts import load_prompt
from factscope.core.record_ids import RecordIds
from factscope.core.run import (
    Pipeline,
    ProgressCallback,
    RunRows,
    report_progress,
    run_batches,
    run_manifest,
    run_pipeline,
)
from factscope.core.run_result import RunResult
from factscope.core.schema import Label
from factscope.core.whole_file import whole_file_error
from factscope.kalma.data import AnswerInput, AttributionQuestion, entity_graph, parse_triples
from factscope.kalma.file_kinds import ANSWERS, expect_kind
from factscope.kg.citations import ParsedAnswer, parse_answer
from factscope.kg.graph import KnowledgeGraph, Triple
from factscope.kg.paper_citations import paper_citations
from factscope.metrics.attribution import (
    AlignmentTotals,
    AnswerCitationCounts,
    AnswerNACounts,
    CitationTotals,
    EmptyPolicy,
    Matching,
    NATotals,
    match_citations,
    na_counts,
)
from factscope.metrics.geval import ASPECTS, SCORES, AspectTotals, parse_score, weighted_score

# ---------------------------------------------------------------- preparing graphs

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


def prepare(
    questions: Sequence[AttributionQuestion],
    *,
    kg: KnowledgeGraph | None = None,
    retrieve: Callable[[list[str]], list[Any]] | None = None,
    remove: int = 0,
    retrieval_accuracy: float = 1.0,
    seed: int = 0,
) -> tuple[list[GenerationItem], list[str]]:
    """Graphs for generation, and warnings for questions left out.

    ``retrieve`` (a ``KGRetriever.retrieve_many``) replaces the gold graph by the retrieved one.
    ``remove`` > 0 removes that many minimum-set triples (questions with fewer are left out).
    ``retrieval_accuracy`` < 1 swaps that share of graphs, picked by a permutation seeded with ``seed``
    (so 60 swaps the graphs 80 swapped plus more), for the graph of another question that shares no
    entity with it (KaLMA 5.3)."""
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


# ---------------------------------------------------------------- generation

def generation_prompt(question: str, graph: KnowledgeGraph) -> str:
    """The one-shot prompt of KaLMA Table 10: instruction, demonstration with [NA], graph, question."""
    return load_prompt("attribute_generate").replace("{knowledge}", graph.flatten()).replace(
        "{question}", question)


_ANSWER_PREFIX = re.compile(r"^\s*answer\s*:\s*", re.IGNORECASE)


def clean_answer(text: str) -> str:
    """The model's answer without a repeated ``Answer:`` prefix or a following demonstration."""
    answer = _ANSWER_PREFIX.sub("", text)
    return re.split(r"\n\s*Question\s*:", answer, maxsplit=1)[0].strip()


class GeneratedAnswer(BaseModel):
    """One generated answer as written to the answers file; a failed call keeps its error and raw reply."""

    id: str
    question: str
    answer: str | None
    failed: bool = False
    error: str | None = None
    raw: str | None = None
    model: str = ""
    minimum: list[list[str]] = Field(default_factory=list)
    removed: list[list[str]] = Field(default_factory=list)
    graph: list[dict[str, Any]] = Field(default_factory=list)
    replaced_with: str | None = None
    unmatched_mentions: list[str] = Field(default_factory=list)


class AnswerGenerationRun(RunResult[GeneratedAnswer]):
    """Every answer in the answers file (read lazily; left out of ``model_dump``), and the counts of this run
    (``failed``: the file's rows marked failed)."""


def generate(items: Sequence[GenerationItem], llm: Any, *, output: str | Path | None = None, batch_size: int = 16,
             progress: ProgressCallback | None = None, overwrite: bool = False, retry_failed: bool = False,
             **params: Any) -> AnswerGenerationRun:
    """Generate an attributed answer per item with ``llm`` (an LLMClient), writing each record as it
    arrives; items whose id is already in ``output`` are skipped, except, with ``retry_failed``, those whose
    row is marked failed: they are generated again and replaced in place. ``params`` go to each chat call."""

    def batch_answers(batch: Sequence[GenerationItem]) -> list[GeneratedAnswer]:
        conversations = [[{"role": "user", "content": generation_prompt(i.question.question, i.graph)}]
                         for i in batch]
        replies = llm.chat_many(conversations, **params)
        return [answer_record(item, reply, getattr(llm, "name", "")) for item, reply in zip(batch, replies)]

    produced = run_batches(items, batch_answers, key=lambda item: item.question.id, row_type=GeneratedAnswer,
                           output=output, batch_size=batch_size, progress=progress, stage_name="generating answers",
                           manifest=run_manifest("attribute generate", items, {"llm": llm}, dict(params)),
                           overwrite=overwrite, failed=lambda row: row.failed, retry_failed=retry_failed)
    return AnswerGenerationRun(
        results=produced.results,
        failed=sum(1 for row in produced.results if row.failed),
        **produced.counts(),
    )


def answer_record(item: GenerationItem, reply: Any, model: str) -> GeneratedAnswer:
    """The record of one generated answer; a failed call keeps its error and raw reply."""
    return GeneratedAnswer(
        id=item.question.id,
        question=item.question.question,
        answer=None if reply.failed or reply.text is None else clean_answer(reply.text),
        failed=bool(reply.failed),
        error=reply.error,
        raw=reply.text if not reply.failed else getattr(reply, "raw", None),
        model=model,
        minimum=[t.to_list() for t in item.question.minimum],
        removed=[t.to_list() for t in item.removed],
        graph=item.graph.to_list(),
        replaced_with=item.replaced_with,
        unmatched_mentions=item.unmatched,
    )


# ---------------------------------------------------------------- scoring

@dataclass
class AnswerRecord:
    """An answer to score: its text, the graph it was given, the minimum set and the removed knowledge."""

    id: str
    question: str
    answer: str
    graph: KnowledgeGraph
    minimum: list[Triple]
    removed: list[Triple] = field(default_factory=list)


def read_answer(data: dict[str, Any], *, path: Path, line: int | None) -> AnswerRecord | None:
    """An AnswerRecord from a generate output row or a user's ``{id, question, answer, graph, minimum,
    removed?}``; None for a row whose generation failed (it is counted, not scored)."""
    if data.get("failed"):
        return None
    given = parse_located(AnswerInput, data, path=path, line=line)
    return AnswerRecord(
        given.id, given.question or "", given.answer, entity_graph(given.graph, path=path, line=line),
        parse_triples(given.minimum or [], path=path, line=line, field_name="minimum"),
        parse_triples(given.removed or [], path=path, line=line, field_name="removed"),
    )


DEFAULT_HYPOTHESIS = "{relation}: {value}"
"""The NLI hypothesis of a citation or triple, as KaLMA A.3 writes it; ``{name}`` and ``{qid}`` are also
available, e.g. ``"{name} {relation} {value}"`` for NLI models that need a full sentence."""


def hypothesis(template: str, qid: str | None, relation: str, value: str, graph: KnowledgeGraph) -> str:
    """Fill the hypothesis template; ``{name}`` is the entity's name in ``graph``, else its qid."""
    entity = graph.get(qid) if qid else None
    name = entity.name if entity is not None and entity.name else (qid or "")
    return template.format(qid=qid or "", name=name, relation=relation, value=value).strip()


def check_template(template: str) -> None:
    """Raise ConfigError when the hypothesis template uses fields other than qid, name, relation, value."""
    try:
        template.format(qid="Q1", name="n", relation="r", value="v")
    except (KeyError, IndexError, ValueError) as error:
        raise ConfigError(f"bad --hypothesis template {template!r} ({error}); use the fields "
                          "{qid}, {name}, {relation} and {value}") from None


def alignment_pairs(parsed: ParsedAnswer, graph: KnowledgeGraph,
                    template: str = DEFAULT_HYPOTHESIS) -> list[tuple[str, str]]:
    """(sentence, hypothesis) for every citation that names a relation and a value."""
    return [(parsed.sentences[c.sentence], hypothesis(template, c.qid, c.relation, c.value, graph))
            for c in parsed.citations if c.relation and c.value and c.sentence < len(parsed.sentences)]


def na_pairs(parsed: ParsedAnswer, removed: Sequence[Triple], graph: KnowledgeGraph,
             template: str = DEFAULT_HYPOTHESIS) -> list[tuple[str, str]]:
    """(sentence marked [NA], hypothesis of a removed triple) for every such combination."""
    return [(parsed.sentences[i], hypothesis(template, t.qid, t.relation, t.value, graph))
            for i in parsed.na_sentences if i < len(parsed.sentences) for t in removed]


def entailment_decisions(checker: Checker, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], bool | None]:
    """Whether each premise entails its hypothesis (None: the check failed); identical pairs are checked
    once. Premise = the sentence, hypothesis = the citation (KaLMA A.3)."""
    unique = list(dict.fromkeys(pairs))
    verdicts = checker.check([CheckTask(claim=h, references=(p,)) for p, h in unique]) if unique else []
    return {pair: (None if v.failed or v.label is None else v.label == Label.ENTAILMENT)
            for pair, v in zip(unique, verdicts)}


class CitationJudgement(BaseModel):
    """One citation of an answer: what it cites, in which sentence, and how it was judged."""

    qid: str | None
    relation: str | None
    value: str | None
    sentence: int
    correct: bool
    precise: bool
    entailed: bool | None


class CitationIssue(BaseModel):
    """A citation that could not be read as a triple, kept with its raw text."""

    raw: str
    sentence: int
    reason: str


class AttributionScore(BaseModel):
    """The per-answer result row: citations with their judgements, counts, alignment, [NA] counts, G-Eval."""

    id: str
    removed: int = 0
    sentences: list[str] = Field(default_factory=list)
    citations: list[CitationJudgement] = Field(default_factory=list)
    na_sentences: list[int] = Field(default_factory=list)
    issues: list[CitationIssue] = Field(default_factory=list)
    counts: AnswerCitationCounts
    alignment: list[bool | None] = Field(default_factory=list)
    na: AnswerNACounts | None = None
    geval: dict[str, dict[str, Any]] | None = None


def score_row(record: AnswerRecord, decisions: dict[tuple[str, str], bool | None],
              geval: dict[str, dict[str, Any]] | None, template: str = DEFAULT_HYPOTHESIS,
              matching: Matching = "normalized") -> AttributionScore:
    """The result row of one answer, from the checker's entailment decisions and optional G-Eval scores; its
    citations are read and compared as ``matching`` says (``paper``: as KaLMA's released scoring does)."""
    parsed = parse_answer(record.answer)
    cited = paper_citations(parsed) if matching == "paper" else parsed.citations
    matches, counts = match_citations(cited, record.graph.triples(), record.minimum, matching)
    citations = []
    for c, match in zip(cited, matches):
        entailed = None
        if c.relation and c.value and c.sentence < len(parsed.sentences):
            entailed = decisions.get((parsed.sentences[c.sentence],
                                      hypothesis(template, c.qid, c.relation, c.value, record.graph)))
        citations.append(CitationJudgement(
            qid=c.qid, relation=c.relation, value=c.value, sentence=c.sentence, correct=match.correct,
            precise=match.precise, entailed=entailed,
        ))
    na = None
    if record.removed:
        matrix = [[decisions.get((parsed.sentences[i], hypothesis(template, t.qid, t.relation, t.value, record.graph)))
                   for t in record.removed]
                  for i in parsed.na_sentences if i < len(parsed.sentences)]
        na = na_counts(matrix, len(record.removed))
    return AttributionScore(
        id=record.id,
        removed=len(record.removed),
        sentences=parsed.sentences,
        citations=citations,
        na_sentences=parsed.na_sentences,
        issues=[CitationIssue(raw=i.raw, sentence=i.sentence, reason=i.reason) for i in parsed.issues],
        counts=counts,
        alignment=[decisions.get(pair) for pair in alignment_pairs(parsed, record.graph, template)],
        na=na,
        geval=geval,
    )


def geval_prompt(aspect: str, record: AnswerRecord) -> str:
    """The G-Eval prompt of one aspect (KaLMA Tables 11-14) filled with the question and answer; the
    consistency prompt also gets the graph; citations are removed from the answer."""
    answer = " ".join(parse_answer(record.answer).sentences)
    return (load_prompt(f"geval_{aspect}").replace("{question}", record.question)
            .replace("{knowledge}", record.graph.flatten()).replace("{answer}", answer))


def continuation_logprob(prompt: str, reply: Any) -> float | None:
    """Log-probability of what follows ``prompt`` in an echoed completion (sum over its tokens)."""
    if reply.failed or not reply.tokens:
        return None
    offset = 0
    total = 0.0
    found = False
    for token, logprob in zip(reply.tokens, reply.token_logprobs):
        if offset >= len(prompt):
            if logprob is None:
                return None
            total += logprob
            found = True
        offset += len(token)
    return total if found else None


def judge_text_quality(records: Sequence[AnswerRecord], llm: Any, *, aspects: Sequence[str] = ASPECTS,
                       weighted: bool = False) -> list[dict[str, dict[str, Any]]]:
    """G-Eval scores per record and aspect: ``{"score", "raw", "failed", "error", "weighted"}`` (``raw``: the
    reply as it came, also when the call failed or the score could not be read; ``error``: why). With ``weighted``,
    also the probability-weighted score from the completions endpoint's log-probabilities of " 1" ... " 5"
    after the prompt (5 scoring calls per aspect; None where the endpoint gives no log-probabilities)."""
    prompts = [(r, a, geval_prompt(a, r)) for r in records for a in aspects]
    replies = llm.chat_many([[{"role": "user", "content": p}] for _, _, p in prompts], max_tokens=5)
    out: list[dict[str, dict[str, Any]]] = [{} for _ in records]
    for index, ((_, aspect, prompt), reply) in enumerate(zip(prompts, replies)):
        score = None if reply.failed else parse_score(reply.text)
        raw = reply.text if not reply.failed else getattr(reply, "raw", None)
        error = reply.error if reply.failed else (None if score is not None else "no 1-5 score in the reply")
        cell: dict[str, Any] = {"score": score, "raw": raw, "failed": score is None, "error": error,
                                "weighted": None}
        out[index // len(aspects)][aspect] = cell
    if weighted:
        for (index, aspect), value in _weighted_scores(prompts, llm, aspects).items():
            out[index][aspect]["weighted"] = value
    return out


def _weighted_scores(prompts: Sequence[tuple[AnswerRecord, str, str]], llm: Any,
                     aspects: Sequence[str]) -> dict[tuple[int, str], float | None]:
    """Probability-weighted scores, the 5 scoring completions of every prompt run in parallel."""
    calls = [(position, s, f"{prompt} {s}") for position, (_, _, prompt) in enumerate(prompts) for s in SCORES]
    workers = max(1, getattr(getattr(llm, "config", None), "concurrency", 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        replies = list(pool.map(lambda call: llm.complete(call[2]), calls))
    logprobs: dict[int, dict[int, float | None]] = {}
    for (position, s, _), reply in zip(calls, replies):
        logprobs.setdefault(position, {})[s] = continuation_logprob(prompts[position][2], reply)
    return {(position // len(aspects), prompts[position][1]): weighted_score(values)
            for position, values in logprobs.items()}


AttributionFigures = dict[str, float | int | None]
"""Named dataset figures of one group of answers (citation quality, alignment, [NA] quality, G-Eval means)."""


class AttributionRun(RunResult[AttributionScore]):
    """A whole scoring run: the figures per number of removed triples, the counts, and every row in the results
    file (earlier runs' included when resuming, read lazily; left out of ``model_dump``). ``failed``: rows with a
    failed checker or judge call (``score_failed``)."""

    summary: dict[str, AttributionFigures]
    checker: str


def score_failed(row: AttributionScore) -> bool:
    """Whether a score row records a failed call: a citation's alignment check, an [NA] check (an undecided
    sentence or triple) or a G-Eval judgement that failed."""
    return (
        any(value is None for value in row.alignment)
        or (row.na is not None and row.na.undecided > 0)
        or any(cell.get("failed") for cell in (row.geval or {}).values())
    )


@dataclass
class RemovedGroupTotals:
    """The mergeable figures of the answers with one number of removed triples (one column of KaLMA Table 5)."""

    empty_answers: EmptyPolicy = "skip"
    citations: CitationTotals = field(init=False)
    alignment: AlignmentTotals = field(default_factory=AlignmentTotals)
    na: NATotals = field(default_factory=NATotals)
    judged: int = 0
    aspects: dict[str, AspectTotals] = field(default_factory=lambda: {a: AspectTotals(a) for a in ASPECTS})
    citation_issues: int = 0

    def __post_init__(self) -> None:
        self.citations = CitationTotals(self.empty_answers)

    def add(self, row: AttributionScore) -> None:
        """Count one answer's row."""
        self.citations.add(row.counts)
        for entailed in row.alignment:
            self.alignment.add(entailed)
        if row.na is not None:
            self.na.add(row.na)
        if row.geval:
            self.judged += 1
            for aspect, totals in self.aspects.items():
                if aspect in row.geval:
                    totals.add(row.geval[aspect])
        self.citation_issues += len(row.issues)

    def merge(self, other: RemovedGroupTotals) -> None:
        """Count every row ``other`` counted."""
        self.citations.merge(other.citations)
        self.alignment.merge(other.alignment)
        self.na.merge(other.na)
        self.judged += other.judged
        for aspect, totals in other.aspects.items():
            self.aspects.setdefault(aspect, AspectTotals(aspect)).merge(totals)
        self.citation_issues += other.citation_issues

    def figures(self) -> AttributionFigures:
        """Citation quality, alignment, [NA] quality (when an answer had removed knowledge), G-Eval means (when
        an answer was judged) and parse issues."""
        figures: AttributionFigures = self.citations.quality().as_dict()
        figures.update({f"alignment_{k}": v for k, v in self.alignment.alignment().as_dict().items()})
        if self.na.answers:
            figures.update({k if k.startswith("na_") else f"na_{k}": v
                            for k, v in self.na.quality().as_dict().items()})
        if self.judged:
            for aspect in (totals.score() for totals in self.aspects.values()):
                figures[aspect.aspect] = aspect.mean
                figures[f"{aspect.aspect}_weighted"] = aspect.weighted_mean
                figures[f"{aspect.aspect}_failed"] = aspect.failed
        figures["citation_issues"] = self.citation_issues
        return figures


@dataclass
class AttributionTotals:
    """The mergeable figures of a scoring run, fed one result row at a time (see ``factscope.core.results``):
    one ``RemovedGroupTotals`` per number of removed triples, and the rows with a failed call."""

    empty_answers: EmptyPolicy = "skip"
    groups: dict[int, RemovedGroupTotals] = field(default_factory=dict)
    failed: int = 0

    def add(self, row: AttributionScore) -> None:
        """Count one answer's row."""
        self.groups.setdefault(row.removed, RemovedGroupTotals(self.empty_answers)).add(row)
        self.failed += score_failed(row)

    def merge(self, other: AttributionTotals) -> None:
        """Count every row ``other`` counted (under the same ``empty_answers`` policy)."""
        if other.empty_answers != self.empty_answers:
            raise ValueError("cannot merge attribution totals kept under different empty_answers policies")
        for removed, group in other.groups.items():
            self.groups.setdefault(removed, RemovedGroupTotals(self.empty_answers)).merge(group)
        self.failed += other.failed

    def summary(self) -> dict[str, AttributionFigures]:
        """The figures of each group, keyed ``removed=N`` in increasing N."""
        return {f"removed={removed}": self.groups[removed].figures() for removed in sorted(self.groups)}


def attribution_pipeline(checker: Checker, *, judge: Any = None, weighted: bool = False,
                         template: str = DEFAULT_HYPOTHESIS, empty_answers: EmptyPolicy = "skip",
                         matching: Matching = "normalized", settings: Mapping[str, Setting] | None = None
                         ) -> Pipeline[AnswerRecord, AttributionScore, AttributionTotals]:
    """KaLMA's scoring as a pipeline any engine runs: check the citations' entailment, judge text quality (with
    ``judge``) and score each batch of answers; its totals keep ``empty_answers``. See ``score`` for the rest."""
    check_template(template)

    def batch_rows(batch: Sequence[AnswerRecord]) -> list[AttributionScore]:
        pairs = []
        for record in batch:
            parsed = parse_answer(record.answer)
            pairs += alignment_pairs(parsed, record.graph, template)
            pairs += na_pairs(parsed, record.removed, record.graph, template)
        decisions = entailment_decisions(checker, pairs)
        judged = judge_text_quality(batch, judge, weighted=weighted) if judge is not None else None
        return [score_row(record, decisions, judged[index] if judged else None, template, matching)
                for index, record in enumerate(batch)]

    return Pipeline(
        system="attribute score",
        stage_name="scoring answers",
        row_type=AttributionScore,
        key=lambda record: record.id,
        process=batch_rows,
        new_totals=lambda: AttributionTotals(empty_answers),
        components={"checker": checker, "judge": judge},
        settings={"weighted": weighted, "template": template, "matching": matching, **(settings or {})},
        failed=score_failed,
    )


def score(records: Iterable[AnswerRecord], checker: Checker, *, output: str | Path | None = None, judge: Any = None,
          weighted: bool = False, batch_size: int = 32, template: str = DEFAULT_HYPOTHESIS,
          empty_answers: EmptyPolicy = "skip", matching: Matching = "normalized",
          progress: ProgressCallback | None = None, overwrite: bool = False, retry_failed: bool = False
          ) -> AttributionRun:
    """Score answers in batches, writing each row as it is done; ids already in ``output`` are skipped.
    ``records`` is read twice (a list, or a re-iterable reader such as ``AnswerRecords``); with ``output`` the
    summary covers the whole file and ``results`` reads it lazily.
    ``template`` shapes the NLI hypothesis of a citation (see DEFAULT_HYPOTHESIS); ``matching`` says how citations
    are read and compared (``normalized``, factscope's, or ``paper``, KaLMA's released scoring); ``judge`` (an
    LLM client) adds G-Eval text quality. With ``retry_failed``, the file's rows with a failed checker or judge
    call (``score_failed``) are scored again and replaced in place."""
    pipeline = attribution_pipeline(checker, judge=judge, weighted=weighted, template=template,
                                    empty_answers=empty_answers, matching=matching)
    report_progress(progress, checker)
    if isinstance(records, Iterator):
        records = list(records)
    produced, totals = run_pipeline(pipeline, records, output=output, batch_size=batch_size, progress=progress,
                                    overwrite=overwrite, retry_failed=retry_failed)
    return attribution_run(produced, totals, checker=getattr(checker, "name", type(checker).__name__))


def attribution_run(produced: RunRows[AttributionScore], totals: AttributionTotals, *, checker: str
                    ) -> AttributionRun:
    """The typed result of a scoring run from its rows and totals."""
    return AttributionRun(results=produced.results, failed=totals.failed, summary=totals.summary(),
                          **produced.counts(), checker=checker)


def summarize(rows: Iterable[AttributionScore], *, empty_answers: EmptyPolicy = "skip"
              ) -> dict[str, AttributionFigures]:
    """Dataset figures from score rows, grouped by how many triples were removed (KaLMA Table 5):
    citation quality, alignment, [NA] quality, G-Eval means, parse issues (``AttributionTotals``)."""
    totals = AttributionTotals(empty_answers)
    for row in rows:
        totals.add(row)
    return totals.summary()


@dataclass
class LoadedAnswers:
    """The answers of a file that can be scored, the bad records skipped, and the failed generations counted."""

    records: list[AnswerRecord] = field(default_factory=list)
    problems: list[InputError] = field(default_factory=list)
    failed_generations: int = 0


ANSWERS_EXPECTED = "attributed answers: the output of `attribute generate`, or records {id, answer, graph, minimum}"


class AnswerRecords:
    """The answers of an answers file that can be scored, read afresh (a line at a time for JSONL) each time they
    are iterated: a run can fingerprint them and then score them without holding them in memory.

    The file's kind is checked when the reader is made (see ``load_answers``). Bad records are skipped with their
    file, line and field, and so is an answer whose id repeats an earlier one's (``factscope.core.record_ids``);
    rows whose generation failed are counted, not scored. After a full pass, ``problems`` holds the skipped
    records' errors, ``failed_generations`` the failed rows and ``count`` the answers; a pass over a file whose
    every record fails for one reason raises that reason.
    """

    def __init__(self, path: str | Path) -> None:
        expect_kind(path, (ANSWERS,), "attribute score", ANSWERS_EXPECTED)
        self.path = Path(path)
        self.problems: list[InputError] = []
        self.failed_generations = 0
        self.count = 0

    def __iter__(self) -> Iterator[AnswerRecord]:
        problems: list[InputError] = []
        failed = count = 0
        ids = RecordIds(self.path)
        for line, data in read_json_records(self.path):
            try:
                if isinstance(data, InputError):
                    raise data
                record = read_answer(data, path=self.path, line=line)
                repeated = ids.repeat(record.id, line) if record is not None else None
                if repeated is not None:
                    raise repeated
            except InputError as error:
                problems.append(error)
                continue
            if record is None:
                failed += 1
            else:
                count += 1
                yield record
        self.problems, self.failed_generations, self.count = problems, failed, count
        whole = whole_file_error(self.path, problems, count + failed)
        if whole is not None:
            raise whole


def load_answers(path: str | Path) -> LoadedAnswers:
    """Read an answers file (the output of ``generate``, or the user's own) into memory: the answers of
    ``AnswerRecords``, the bad records skipped and the failed generations counted. A file of another kind
    (questions, KaLMA's question-graph dataset, ...) or whose every record fails for one reason raises."""
    answers = AnswerRecords(path)
    records = list(answers)
    return LoadedAnswers(records=records, problems=answers.problems, failed_generations=answers.failed_generations)
