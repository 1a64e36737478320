"""KaLMA's attribution scoring, defined once (``AttributeSystem``, its instance ``ATTRIBUTE``): answers (with gold
minimum sets from a file of their own) and checker from an ``AttributeSpec``, the scoring pipeline,
``AttributionRun``, its summary rows, the tables a terminal shows, and its report."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from factscope.checkers.base import Checker
from factscope.core.errors import ConfigError, InputError
from factscope.core.files.input_notes import InputNotes
from factscope.core.record_form import FormField, RecordForm
from factscope.core.runs.loop import Pipeline, RunRows
from factscope.engines.parts import ReportHooks, RunFacts, RunOutcome
from factscope.engines.served import ServedField
from factscope.engines.system import System
from factscope.kalma import report
from factscope.kalma.answers import AnswerRecord, AnswerRecords, LoadedAnswers, load_answers, read_answer
from factscope.kalma.command_form import ATTRIBUTE_COMMAND
from factscope.kalma.data import AnswerRequestRecord
from factscope.kalma.generation_settings import AnswerGenerationSettings
from factscope.kalma.minimum import use_minimum
from factscope.kalma.score_tables import group_tables, score_title, single_group_rows
from factscope.kalma.scores import AttributionScore
from factscope.kalma.spec import AttributeSpec
from factscope.kalma.task import AttributionRun, attribution_pipeline, attribution_run
from factscope.kalma.totals import AttributionTotals

if TYPE_CHECKING:
    from rich.table import Table

    from factscope.llm.client import LLMClient


def _checker(spec: AttributeSpec, llm: LLMClient | None) -> Checker:
    from factscope.checkers.registry import make_checker

    if not isinstance(spec.checker, str):
        return spec.checker
    return make_checker(spec.checker, options=spec.checker_settings, llm=llm)


class AttributeSystem(System[AttributeSpec, AnswerRecord, AttributionScore, AttributionTotals, AttributionRun]):
    """Knowledge-graph citation quality (KaLMA). How it reads a file of answers: streamed (three passes: its kind,
    its count and the run), or with ``in_memory`` read into memory in one pass after its kind is told. ``minimum``:
    a file of gold minimum sets that replace the answers' own (``use_minimum``; the answers are then read into
    memory, and a Ray run, which reads each record alone, is refused); ``input_notes`` is told which answers found
    a set."""

    name = "attribute"
    manifest = "attribute score"
    command = "factscope attribute score"
    llm_users = "with G-Eval (`geval`) or an llm `checker` (llm, llm:minicheck)"
    title = "Attribution to a knowledge graph (KaLMA)"
    served = (ServedField("checker"),)
    request_record = AnswerRequestRecord
    form = RecordForm(
        "Citations such as [Q7186, spouse: Pierre Curie] are checked against the graph (correct), the minimum "
        "knowledge set (precise) and their sentence (aligned); [NA] marks knowledge the graph lacks.",
        (
            FormField("id", "Answer id", required=True),
            FormField("question", "Question"),
            FormField("answer", "Answer with citations", lines=5, required=True),
            FormField("graph", "Graph (JSON list of entities)", "json", lines=6, required=True,
                      help='e.g. [{"qid": "Q7186", "name": "Marie Curie", "properties": {"spouse": ["Pierre Curie"]}}]'),
            FormField("minimum", "Minimum knowledge (JSON list of [qid, relation, value])", "json", lines=3),
            FormField("removed", "Removed knowledge (JSON, optional)", "json", lines=2),
        ),
        "attribute/answers.jsonl",
    )
    report = ReportHooks.of(report)
    records = "answers"
    command_form = ATTRIBUTE_COMMAND

    def __init__(
        self, minimum: Path | None = None, input_notes: InputNotes | None = None, *, in_memory: bool = False
    ) -> None:
        self.minimum = minimum
        self.input_notes = input_notes
        self.in_memory = in_memory

    def reader(self, reading: Sequence[Any], notes: InputNotes) -> AttributeSystem:
        """The attribution system reading the answers into memory, given the gold sets of the settings'
        ``minimum``."""
        (gold,) = reading
        return AttributeSystem(cast(AnswerGenerationSettings, gold).minimum, notes, in_memory=True)

    def command_spec(self, spec: AttributeSpec, *, endpoint: bool) -> AttributeSpec:
        """``spec`` judging with G-Eval when it weighs by it."""
        return replace(spec, geval=spec.geval or spec.weighted)

    def parse(self, item: dict[str, Any], /, *, path: Path, line: int) -> AnswerRecord | None:
        """One answer of a file or request (``read_answer``); a failed generation is passed over (None)."""
        return read_answer(item, path=path, line=line)

    def read(self, path: Path) -> AnswerRecords | LoadedAnswers:
        """The answers of a file: streamed, or read into memory and given the gold sets of ``minimum``."""
        if self.minimum is None and not self.in_memory:
            return AnswerRecords(path)
        answers = load_answers(path)
        use_minimum(self.minimum, answers.records, self.input_notes)
        return answers

    def items(self, inputs: Any) -> Iterable[AnswerRecord]:
        """The answers of ``inputs`` (``System.items``); answers given as a table or as records get the gold sets
        of ``minimum`` too, as a file's do when it is read."""
        items = super().items(inputs)
        if self.minimum is None or isinstance(inputs, (str, Path)) or hasattr(items, "problems"):
            return items
        answers = list(items)
        use_minimum(self.minimum, answers, self.input_notes)
        return answers

    def refuse_ray(self) -> None:
        """A file of gold minimum sets is read in this process only."""
        if self.minimum is not None:
            raise ConfigError("`minimum` is not taken with `engine='ray'`: give each answer its 'minimum' field "
                              "instead")

    def needs_llm(self, spec: AttributeSpec) -> bool:
        """Whether G-Eval or the checker named by ``spec`` calls an LLM endpoint."""
        from factscope.checkers.registry import CHECKERS

        return spec.geval or (isinstance(spec.checker, str) and CHECKERS.needs_llm(spec.checker))

    def ready(self, spec: AttributeSpec, llm: LLMClient | None) -> AttributeSpec:
        """``spec`` with its checker built (``llm`` for an LLM checker)."""
        return replace(spec, checker=_checker(spec, llm))

    def build(
        self, spec: AttributeSpec, llm: LLMClient | None
    ) -> Pipeline[AnswerRecord, AttributionScore, AttributionTotals]:
        """The scoring pipeline with the checker of ``spec`` built (``llm`` for an LLM checker and the G-Eval
        judge)."""
        return attribution_pipeline(
            _checker(spec, llm),
            judge=llm if spec.geval else None,
            weighted=spec.weighted,
            template=spec.template,
            empty_answers=spec.empty_answers,
            matching=spec.matching,
        )

    def result(
        self, produced: RunRows[AttributionScore], totals: AttributionTotals, facts: RunFacts
    ) -> AttributionRun:
        """The typed result of a scoring run."""
        return attribution_run(produced, totals, checker=facts.names.get("checker", ""))

    def page_figures(self, run: AttributionRun) -> list[tuple[str, float | bool | None]]:
        """Correctness and micro precision, recall and F1 of the run's first group of answers."""
        figures: dict[str, Any] = next(iter(run.summary.values()), {})
        return [(name, figures.get(name)) for name in ("correctness", "micro_precision", "micro_recall", "micro_f1")]

    def summary_rows(self, run: AttributionRun, outcome: RunOutcome) -> list[tuple[str, object]]:
        """The counts that head a scoring run's summary table, then the figures of its one group of answers where
        it has only one."""
        return [
            ("answers scored now / resumed", f"{run.new_records} / {run.resumed_records}"),
            ("failed generations (not scored)", outcome.passed_over),
            ("skipped input records", outcome.skipped),
            ("results", str(outcome.output)),
            *single_group_rows(run),
        ]

    def summary_title(self, run: AttributionRun, output: Path) -> str:
        """KaLMA's scores, naming the run's group of answers when there is only one (``score_title``)."""
        return score_title(run)

    def figure_tables(self, run: AttributionRun) -> list[Table]:
        """The figures of each number of removed triples, where the answers hold more than one."""
        return group_tables(run)

    def summary_figures(self, run: AttributionRun, problems: Sequence[InputError]) -> object:
        """The figures of each number of removed triples."""
        return run.summary

    def failures(self, run: AttributionRun) -> tuple[int, str]:
        """The answers whose checker or G-Eval call failed."""
        return run.failed, "answers (a checker or G-Eval call, or their worker process)"


ATTRIBUTE = AttributeSystem()
"""Knowledge-graph citation quality (KaLMA)."""
