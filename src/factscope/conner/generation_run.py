"""A knowledge-generation run over a file of queries (`knowledge generate`, `knowledge select`,
``factscope.generate_knowledge`` / ``select_knowledge``): the queries read, the Q_know evaluator built when
candidates or demonstrations are chosen by it, the demonstrations chosen, and the knowledge (and answers)
generated into a resumable results file by the ``KnowledgeWriter``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from factscope.conner.data import NO_USABLE_RECORDS, KnowledgeRecord, KnowledgeTask, usable_knowledge_records
from factscope.conner.demonstrations import DemonstrationSettings, run_demonstrations
from factscope.conner.generation import (
    GeneratedKnowledge,
    GenerationSettings,
    KnowledgeGenerator,
    keep_best_candidates,
)
from factscope.conner.spec import KnowledgeSpec
from factscope.core.errors import InputError
from factscope.core.files.input_notes import InputNotes
from factscope.core.files.manifest import fingerprint_items
from factscope.core.options.metadata import about
from factscope.core.options.validation import ValidatedOptions
from factscope.core.runs.result import RunResult
from factscope.engines.writer import Loaded, Produced, Writer, WriterSteps

if TYPE_CHECKING:
    from factscope.llm.client import LLMClient


SELECTION_FIELDS = frozenset(
    {"corpus", "retriever", "evidence_k", "checker", "relevance", "coherence", "lm", "weights", "seed"}
)
"""The fields of ``KnowledgeSpec`` that Q_know selection reads (of candidates or demonstrations)."""


@dataclass(frozen=True)
class KnowledgeGenerationSettings(ValidatedOptions):
    """What a knowledge-generation run takes: how knowledge is sampled (``generation``), its few-shot
    demonstrations (whose rules read ``generation.mode``), the task of the records that name none, and the
    queries of a batch."""

    generation: GenerationSettings = field(default_factory=GenerationSettings, metadata=about(
        "how knowledge candidates are prompted and sampled"
    ))
    demonstrations: DemonstrationSettings = field(default_factory=DemonstrationSettings, metadata=about(
        "the few-shot demonstrations and whether answers are generated"
    ))
    task: KnowledgeTask | None = field(default=None, metadata=about(
        "task of the records that name none (query tables have no task column): qa (span answers, the default) or "
        "dialogue (open-ended, as Wizard of Wikipedia)", recorded_by="records"
    ))
    batch_size: int = field(default=16, metadata=about("queries per batch", min=1, changes_results=False))


class KnowledgeGenerationRun(RunResult[GeneratedKnowledge]):
    """Every generated record in the output file (read lazily; left out of ``model_dump``), and the counts of this
    run (``failed``: the file's rows marked failed; ``records`` and ``skipped``: the usable and skipped records of
    the queries file)."""

    what_failed: ClassVar[str] = "knowledge generations"
    failures_kept: ClassVar[bool] = True
    records: int = 0
    skipped: int = 0

    def summary_rows(self) -> list[tuple[str, object]]:
        """The figures of the run's summary table (label, value)."""
        return [
            ("records", self.records),
            ("skipped (bad input)", self.skipped),
            ("generated (new / resumed)", f"{self.new_records} / {self.resumed_records}"),
            ("failed", self.failed),
        ]


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


class KnowledgeWriter(Writer[KnowledgeGenerationSettings, KnowledgeRecord, KnowledgeGenerationRun]):
    """Knowledge (and, with ``demonstrations.answer``, answers) through the LLM for the queries of a file or the
    records given. With ``scoring``, the spec of the Q_know evaluator (``selection_spec``), the demonstrations
    are the best of ``select_from`` by Q_know and the best of several candidates is kept. A failed generation is
    written, marked failed; with ``retry_failed`` such rows are generated again and replaced in place."""

    name = "knowledge generate"
    stage_name = "generating knowledge"

    def __init__(self, scoring: KnowledgeSpec | None = None) -> None:
        self.scoring = scoring

    def load(
        self, settings: KnowledgeGenerationSettings, inputs: str | Path | Iterable[KnowledgeRecord],
        notes: InputNotes | None,
    ) -> Loaded[KnowledgeRecord]:
        """The queries of a file (``settings.task`` for those that name none; ``notes`` told of each bad record;
        a file with none usable is an InputError), or the records given."""
        if not isinstance(inputs, (str, Path)):
            given = list(inputs)
            return Loaded(given, len(given))
        skipped = (lambda problem: notes.skipped([problem])) if notes is not None else None
        records, bad = usable_knowledge_records(inputs, need_knowledge=False, task=settings.task, skipped=skipped)
        if not records:
            raise InputError(NO_USABLE_RECORDS, path=inputs)
        return Loaded(records, len(records), bad)

    def steps(
        self, settings: KnowledgeGenerationSettings, llm: LLMClient, loaded: Loaded[KnowledgeRecord],
        notes: InputNotes | None,
    ) -> WriterSteps[KnowledgeRecord]:
        """The evaluator (with ``scoring``) and the demonstrations (``notes`` told of each bad training record
        and of those Q_know chose), and a row per record: its candidates, the kept one and its answer."""
        from factscope.conner.evaluator_setup import make_evaluator

        generation, demonstrations = settings.generation, settings.demonstrations
        evaluator = make_evaluator(self.scoring, llm=llm) if self.scoring is not None else None
        skipped = (lambda problem: notes.skipped([problem])) if notes is not None else None
        examples = run_demonstrations(
            (record.task for record in loaded.items), demonstrations.train, mode=generation.mode,
            answer=demonstrations.answer, shots=demonstrations.shots, seed=generation.seed,
            select_from=demonstrations.select_from, evaluator=evaluator, task=settings.task, skipped=skipped,
        )
        if notes is not None:
            for line in examples.choice_lines():
                notes.note(line)
        generator = KnowledgeGenerator(llm, generation)
        selector = evaluator if generation.candidates > 1 else None

        def batch_knowledge(batch: Sequence[KnowledgeRecord]) -> list[GeneratedKnowledge]:
            generated = generator.generate(batch, examples.examples)
            if selector is not None:
                keep_best_candidates(batch, generated, selector)
            if demonstrations.answer:
                generator.answer(batch, generated, examples.examples)
            return generated

        return WriterSteps(
            batch_knowledge, key=lambda record: record.id, row_type=GeneratedKnowledge,
            components={"generator": generator, "evaluator": selector},
            settings={"demonstration_examples": fingerprint_items(examples.examples).sha256},
            failed=lambda row: row.failed,
        )

    def run_notes(self) -> list[str]:
        """What the Q_know evaluator of ``scoring`` will not compute for want of a part
        (``spec_missing_parts``)."""
        from factscope.conner.evaluator_setup import spec_missing_parts

        return spec_missing_parts(self.scoring) if self.scoring is not None else []

    def batch_of(self, settings: KnowledgeGenerationSettings) -> int:
        """The settings' ``batch_size``."""
        return settings.batch_size

    def result(
        self, settings: KnowledgeGenerationSettings, loaded: Loaded[KnowledgeRecord], produced: Produced
    ) -> KnowledgeGenerationRun:
        """The output file's rows, its rows marked failed, and the queries read and skipped."""
        return KnowledgeGenerationRun(results=produced.rows.results, failed=produced.failed_rows,
                                      records=loaded.usable, skipped=loaded.skipped, **produced.rows.counts())
