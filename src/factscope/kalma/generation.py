"""Attributed answer generation: an LLM answers each question citing the graph it is given (KaLMA Table 10),
and each answer is written to the answers file as it arrives (the ``AnswerWriter``: `factscope attribute
generate`, ``factscope.generate_answers``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from factscope.core.files.input_notes import InputNotes, report_usable
from factscope.core.prompts import load_prompt
from factscope.core.runs.result import RunResult
from factscope.engines.writer import Loaded, Produced, Writer, WriterSteps
from factscope.kalma.data import load_questions
from factscope.kalma.generation_settings import AnswerGenerationSettings
from factscope.kalma.graphs import GenerationItem, prepare, question_retrieval
from factscope.kalma.minimum import use_minimum
from factscope.kg.graph import KnowledgeGraph


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
    (``failed``: the file's rows marked failed; ``questions`` and ``skipped``: the usable and skipped records of
    the questions file, when one was read)."""

    what_failed: ClassVar[str] = "answer generations"
    failures_kept: ClassVar[bool] = True
    questions: int = 0
    skipped: int = 0

    def summary_rows(self) -> list[tuple[str, object]]:
        """The counts of a generation from a questions file, as its summary table shows them."""
        return [
            ("questions", self.questions),
            ("skipped input records", self.skipped),
            ("answers written", self.new_records),
            ("already in output (resumed)", self.resumed_records),
            ("generation failures (in the file)", self.failed),
        ]


class AnswerWriter(Writer[AnswerGenerationSettings, GenerationItem, AnswerGenerationRun]):
    """An attributed answer per question of a file (``load_questions``), over the graph the settings give each
    (its gold minimum sets replaced by those of ``settings.minimum`` when given; see ``prepare``), or per
    ``GenerationItem`` given. A failed call is written, marked failed with its error and raw reply; with
    ``retry_failed`` such rows are generated again and replaced in place."""

    name = "attribute generate"
    stage_name = "generating answers"

    def load(
        self, settings: AnswerGenerationSettings, inputs: str | Path | Iterable[GenerationItem],
        notes: InputNotes | None,
    ) -> Loaded[GenerationItem]:
        """The items of a questions file (``notes`` told of the graph, the records skipped, the gold sets used
        and the questions left out; a file with no usable question is an InputError), or the items given."""
        if not isinstance(inputs, (str, Path)):
            items = list(inputs)
            return Loaded(items, len(items))
        kg = settings.load_graph(notes)
        loaded, problems = load_questions(inputs)
        report_usable(len(loaded), problems, "questions", inputs, notes)
        use_minimum(settings.minimum, loaded, notes)
        retrieval = question_retrieval(settings.retrieve, kg, sparql_endpoint=settings.sparql_endpoint,
                                       sparql_cache=settings.sparql_cache, sparql_interval=settings.sparql_interval)
        items, warnings = prepare(loaded, kg=kg, retrieve=retrieval, remove=settings.remove,
                                  retrieval_accuracy=settings.retrieval_accuracy, seed=settings.seed)
        if notes is not None:
            for warning in warnings:
                notes.warning(warning)
        return Loaded(items, len(loaded), len(problems))

    def steps(
        self, settings: AnswerGenerationSettings, llm: Any, loaded: Loaded[GenerationItem],
        notes: InputNotes | None,
    ) -> WriterSteps[GenerationItem]:
        """An answer row per item, from one chat call each (at the settings' temperature, when given)."""
        params: dict[str, Any] = {"temperature": settings.temperature} if settings.temperature is not None else {}

        def batch_answers(batch: Sequence[GenerationItem]) -> list[GeneratedAnswer]:
            conversations = [[{"role": "user", "content": generation_prompt(i.question.question, i.graph)}]
                             for i in batch]
            replies = llm.chat_many(conversations, **params)
            return [answer_record(item, reply, getattr(llm, "name", "")) for item, reply in zip(batch, replies)]

        return WriterSteps(batch_answers, key=lambda item: item.question.id, row_type=GeneratedAnswer,
                           components={"llm": llm}, failed=lambda row: row.failed)

    def result(
        self, settings: AnswerGenerationSettings, loaded: Loaded[GenerationItem], produced: Produced
    ) -> AnswerGenerationRun:
        """The answers file's rows, its rows marked failed, and the questions read and skipped."""
        return AnswerGenerationRun(results=produced.rows.results, failed=produced.failed_rows,
                                   questions=loaded.usable, skipped=loaded.skipped, **produced.rows.counts())


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
