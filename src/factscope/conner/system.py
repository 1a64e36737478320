"""CONNER's knowledge scoring, defined once (``KnowledgeSystem``, its instance ``KNOWLEDGE``): records and
evaluator from a ``KnowledgeSpec``, the scoring pipeline, ``KnowledgeRun``, its summary rows and its report."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from factscope.conner import report
from factscope.conner.command_form import KNOWLEDGE_COMMAND, KnowledgeReading
from factscope.conner.data import (
    KnowledgeRecord,
    KnowledgeRecords,
    KnowledgeRequestRecord,
    KnowledgeTask,
    parse_knowledge_record,
)
from factscope.conner.evaluator_setup import spec_missing_parts, uses_lm
from factscope.conner.generation_run import KnowledgeGenerationSettings
from factscope.conner.scores import KnowledgeScores
from factscope.conner.spec import KnowledgeSpec
from factscope.conner.task import KnowledgeRun, knowledge_pipeline, knowledge_pool, knowledge_run
from factscope.conner.totals import KnowledgeTotals
from factscope.core.errors import ConfigError, InputError
from factscope.core.files.input_notes import InputNotes
from factscope.core.files.manifest import SettingValue, fingerprint_file
from factscope.core.files.whole_file import whole_file_error
from factscope.core.record_form import FormField, RecordForm
from factscope.core.runs.loop import Pipeline, RunRows
from factscope.engines.parts import ReportHooks, RunFacts, RunOutcome
from factscope.engines.served import ServedField
from factscope.engines.system import System

if TYPE_CHECKING:
    from factscope.llm.client import LLMClient


class KnowledgeSystem(System[KnowledgeSpec, KnowledgeRecord, KnowledgeScores, KnowledgeTotals, KnowledgeRun]):
    """CONNER's knowledge-quality metrics. Records that name no task get ``task``; a file of one knowledge text
    per line is joined to its ``queries`` file (a Ray run takes none: its records carry their query)."""

    name = "knowledge"
    manifest = "knowledge score"
    command = "factscope knowledge score"
    llm_users = "with `lm='endpoint'` or an llm `checker` (llm, llm:minicheck)"
    title = "Knowledge quality (CONNER)"
    served = (ServedField("checker"), ServedField("corpus", flag="--corpus"), ServedField("lm", flag="--lm"))
    request_record = KnowledgeRequestRecord
    form = RecordForm(
        "CONNER's six dimensions of generated knowledge: factuality, relevance, coherence, informativeness, "
        "helpfulness and validity; those the server's models cannot compute say why.",
        (
            FormField("query", "Query", required=True),
            FormField("knowledge", "Knowledge", lines=5, required=True),
            FormField("evidence", "Evidence (optional)", "passages", lines=6,
                      help="passages separated by a blank line; factuality checks each knowledge sentence "
                           "against them (else against the server's --corpus)"),
            FormField("answer", "Answer (optional)",
                      help="helpfulness compares it with random other knowledge: run several records as a job"),
            FormField("gold_answer", "Gold answer (optional)"),
        ),
        "knowledge/with_evidence.jsonl",
    )
    report = ReportHooks.of(report)
    command_form = KNOWLEDGE_COMMAND

    def __init__(self, task: KnowledgeTask | None = None, queries: str | Path | None = None) -> None:
        self.task = task
        self.queries = Path(queries) if queries is not None else None

    def reader(self, reading: Sequence[Any], notes: InputNotes) -> KnowledgeSystem:
        """The knowledge system joining the ``KnowledgeReading``'s queries, giving the generation settings' task to
        the records that name none."""
        files, settings = cast(tuple[KnowledgeReading, KnowledgeGenerationSettings], tuple(reading))
        return KnowledgeSystem(settings.task, files.queries)

    def command_spec(self, spec: KnowledgeSpec, *, endpoint: bool) -> KnowledgeSpec:
        """``spec`` with its causal LM chosen where it names the default (``default_lm``)."""
        from factscope.conner.evaluator_setup import default_lm

        return replace(spec, lm=default_lm(spec.lm))

    def spec_notes(self, spec: KnowledgeSpec) -> list[str]:
        """What a run of ``spec`` will not compute for want of a part (``spec_missing_parts``)."""
        return spec_missing_parts(spec)

    def parse(self, item: dict[str, Any], /, *, path: Path, line: int) -> KnowledgeRecord:
        """One knowledge record of a JSON / JSONL file or request, ``task`` given to the records that name none."""
        return parse_knowledge_record({"task": self.task, **item} if self.task else item, path=path, line=line)

    def read(self, path: Path) -> KnowledgeRecords:
        return KnowledgeRecords(path, queries=self.queries, task=self.task)

    def refuse_ray(self) -> None:
        if self.queries is not None:
            raise ConfigError("`queries` is not taken with `engine='ray'`: give JSON / JSONL records with their query")

    def needs_llm(self, spec: KnowledgeSpec) -> bool:
        """Whether the evaluator's parts named by ``spec`` call an LLM endpoint (an 'endpoint' LM or an LLM
        checker)."""
        from factscope.checkers.registry import CHECKERS

        if spec.evaluator is not None:
            return False
        checker_calls_llm = (
            isinstance(spec.checker, str) and spec.checker != "none" and CHECKERS.needs_llm(spec.checker)
        )
        return spec.lm == "endpoint" or checker_calls_llm

    def ready(self, spec: KnowledgeSpec, llm: LLMClient | None) -> KnowledgeSpec:
        """``spec`` with its evaluator built (``llm`` for the LLM parts)."""
        from factscope.conner.evaluator_setup import make_evaluator

        return replace(spec, evaluator=make_evaluator(spec, llm=llm))

    def build(
        self, spec: KnowledgeSpec, llm: LLMClient | None
    ) -> Pipeline[KnowledgeRecord, KnowledgeScores, KnowledgeTotals]:
        """The scoring pipeline of ``spec``'s evaluator, drawing helpfulness baselines from its ``pool``."""
        from factscope.conner.evaluator_setup import make_evaluator

        evaluator = make_evaluator(spec, llm=llm)  # first: a missing corpus is a located InputError
        settings: dict[str, SettingValue] = {"corpus": fingerprint_file(spec.corpus).sha256} if spec.corpus else {}
        return knowledge_pipeline(evaluator, pool=spec.pool if spec.pool is not None else [], settings=settings)

    def prepare(self, spec: KnowledgeSpec, records: Iterable[KnowledgeRecord]) -> KnowledgeSpec:
        """``spec`` with the helpfulness pool of ``records`` (``knowledge_pool``) when it scores with a causal
        LM."""
        if spec.pool is not None or not uses_lm(spec):
            return spec
        return replace(spec, pool=tuple(knowledge_pool(records)))

    def mergeable(self, spec: KnowledgeSpec) -> bool:
        """Whether a record's scores depend on it alone: not with a causal LM, whose helpfulness baselines are
        drawn from the knowledge of all the records run together (and depend on each record's id)."""
        return not uses_lm(spec)

    def result(self, produced: RunRows[KnowledgeScores], totals: KnowledgeTotals, facts: RunFacts) -> KnowledgeRun:
        """The typed result of a knowledge-scoring run."""
        return knowledge_run(produced, totals)

    def check_usable(
        self, count: int, problems: Sequence[InputError], path: str | Path, notes: InputNotes | None
    ) -> None:
        """A file whose every record fails for one reason is one error (``factscope.core.files.whole_file``); else as
        every system's input."""
        whole = whole_file_error(path, problems, count)
        if whole is not None:
            raise whole
        super().check_usable(count, problems, path, notes)

    def summary_title(self, run: KnowledgeRun, output: Path) -> str:
        """CONNER's scores and where they went."""
        return f"CONNER knowledge scores -> {output}"

    def summary_rows(self, run: KnowledgeRun, outcome: RunOutcome) -> list[tuple[str, object]]:
        """The figures of a knowledge-scoring run's summary table: counts, then each metric's mean."""
        rows: list[tuple[str, object]] = [
            ("records scored (new / resumed)", f"{run.new_records} / {run.resumed_records}"),
            ("records skipped (bad input)", outcome.skipped),
        ]
        for metric, figure in run.summary.means.items():
            rows.append((f"{metric} (mean of {figure.records})", figure.mean))
        return rows

    def notes(self, run: KnowledgeRun) -> list[str]:
        """Each metric the run did not compute, and why."""
        return [f"{metric} not computed: {reason}" for metric, reason in run.summary.not_computed.items()]

    def failures(self, run: KnowledgeRun) -> tuple[int, str]:
        """The records whose scoring failed."""
        return run.failed, "records (a checker or causal-LM call, or their worker process)"


KNOWLEDGE = KnowledgeSystem()
"""CONNER's knowledge-quality metrics."""
