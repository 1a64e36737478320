"""Attributed answer generation: an LLM answers each question citing the graph it is given (KaLMA Table 10),
and each answer is written to the answers file as it arrives."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from factscope.core.input_notes import InputNotes, report_usable
from factscope.core.prompts import load_prompt
from factscope.core.run import (
    ProgressCallback,
    run_batches,
    run_manifest,
)
from factscope.core.run_result import RunResult
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
    the questions file, when ``generate_answers`` read one)."""

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


def generate_answers(
    questions: str | Path,
    llm: Any,
    settings: AnswerGenerationSettings | None = None,
    *,
    output: str | Path | None = None,
    progress: ProgressCallback | None = None,
    overwrite: bool = False,
    retry_failed: bool = False,
    notes: InputNotes | None = None,
) -> AnswerGenerationRun:
    """Answer the questions of a file (``load_questions``) with ``llm`` over the graph ``settings`` give each
    (its gold minimum sets replaced by those of ``settings.minimum`` when given; see ``prepare``), writing each
    answer to ``output`` as ``generate`` does. ``notes`` is told of the graph, the records skipped, the gold sets
    used and the questions left out; a file with no usable question is an InputError."""
    settings = settings or AnswerGenerationSettings()
    kg = settings.load_graph(notes)
    loaded, problems = load_questions(questions)
    report_usable(len(loaded), problems, "questions", questions, notes)
    use_minimum(settings.minimum, loaded, notes)
    retrieval = question_retrieval(settings.retrieve, kg, sparql_endpoint=settings.sparql_endpoint,
                                   sparql_cache=settings.sparql_cache, sparql_interval=settings.sparql_interval)
    items, warnings = prepare(loaded, kg=kg, retrieve=retrieval, remove=settings.remove,
                              retrieval_accuracy=settings.retrieval_accuracy, seed=settings.seed)
    if notes is not None:
        for warning in warnings:
            notes.warning(warning)
    params: dict[str, Any] = {"temperature": settings.temperature} if settings.temperature is not None else {}
    run = generate(items, llm, output=output, progress=progress, overwrite=overwrite, retry_failed=retry_failed,
                   **params)
    return run.model_copy(update={"questions": len(loaded), "skipped": len(problems)})


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
