"""A knowledge-generation run over a file of queries (`knowledge generate`, `knowledge select`): the queries
read, the Q_know evaluator built when candidates or demonstrations are chosen by it, the demonstrations chosen,
and the knowledge (and answers) generated into a resumable results file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from factscope.conner.data import NO_USABLE_RECORDS, KnowledgeTask, usable_knowledge_records
from factscope.conner.demonstrations import DemonstrationSettings, run_demonstrations
from factscope.conner.generation import (
    GenerationSettings,
    KnowledgeGenerationRun,
    KnowledgeGenerator,
    generate_knowledge,
)
from factscope.conner.spec import KnowledgeSpec
from factscope.core.errors import InputError
from factscope.core.input_notes import InputNotes
from factscope.core.run import ProgressCallback

if TYPE_CHECKING:
    from factscope.llm.client import LLMClient


SELECTION_FIELDS = frozenset(
    {"corpus", "evidence_k", "checker", "relevance", "coherence", "lm", "weights", "seed"}
)
"""The fields of ``KnowledgeSpec`` that Q_know selection reads (of candidates or demonstrations)."""


def selection_spec(
    scoring: KnowledgeSpec, settings: GenerationSettings, demonstrations: DemonstrationSettings
) -> KnowledgeSpec | None:
    """The spec of the evaluator whose Q_know chooses among several candidates (``settings.candidates``) or
    demonstrations (``demonstrations.select_from``): ``scoring``, its causal LM the default one when it names
    none; None when nothing is chosen by Q_know."""
    from factscope.conner.evaluator_setup import default_lm

    if settings.candidates <= 1 and not demonstrations.select_from:
        return None
    return replace(scoring, lm=default_lm(scoring.lm))


def run_generation(
    input: Path,
    llm: LLMClient,
    settings: GenerationSettings,
    demonstrations: DemonstrationSettings,
    *,
    scoring: KnowledgeSpec | None = None,
    output: Path | None = None,
    task: KnowledgeTask | None = None,
    batch_size: int = 16,
    progress: ProgressCallback | None = None,
    overwrite: bool = False,
    retry_failed: bool = False,
    notes: InputNotes | None = None,
) -> KnowledgeGenerationRun:
    """Generate knowledge through ``llm`` for the queries of the file ``input`` (``task`` for the records that
    name none) into ``output``, resuming it. With ``scoring``, the spec of the Q_know evaluator
    (``selection_spec``), the demonstrations are the best of ``select_from`` by Q_know and the best of several
    candidates is kept. ``notes`` is told of each bad record (of ``input`` and of the training file) and, before
    generation starts, of the demonstrations Q_know chose."""
    from factscope.conner.evaluator_setup import make_evaluator

    skipped = (lambda problem: notes.skipped([problem])) if notes is not None else None
    records, bad = usable_knowledge_records(input, need_knowledge=False, task=task, skipped=skipped)
    if not records:
        raise InputError(NO_USABLE_RECORDS, path=input)
    evaluator = make_evaluator(scoring, llm=llm) if scoring is not None else None
    examples = run_demonstrations(
        (record.task for record in records), demonstrations.train, mode=settings.mode,
        answer=demonstrations.answer, shots=demonstrations.shots, seed=settings.seed,
        select_from=demonstrations.select_from, evaluator=evaluator, task=task, skipped=skipped,
    )
    if notes is not None:
        for line in examples.choice_lines():
            notes.note(line)
    run = generate_knowledge(
        records, KnowledgeGenerator(llm, settings), demonstrations=examples.examples,
        evaluator=evaluator if settings.candidates > 1 else None, answer=demonstrations.answer, output=output,
        batch_size=batch_size, progress=progress, overwrite=overwrite, retry_failed=retry_failed,
    )
    return run.model_copy(update={"records": len(records), "skipped": bad})
