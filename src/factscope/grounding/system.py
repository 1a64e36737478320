"""Truly Ground's grounding evaluation, defined once (``GroundSystem``, its instance ``GROUND``): examples, fact
extractor and presence model from a ``GroundSpec``, the grounding pipeline, ``GroundRun``, its summary rows, what a
terminal shows of a run and its report."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from factscope.claims.base import Extractor
from factscope.core.errors import ConfigError, InputError
from factscope.core.files.input_notes import InputNotes
from factscope.core.record_form import FormField, RecordForm
from factscope.core.runs.loop import Pipeline, RunRows
from factscope.engines.parts import ReportHooks, RunFacts, RunOutcome
from factscope.engines.served import ServedField
from factscope.engines.system import System
from factscope.grounding import report
from factscope.grounding.command_form import GROUND_COMMAND, GroundReading
from factscope.grounding.data import GroundExample, GroundRequestRecord, ScoredExamples, generic_example
from factscope.grounding.presence import PresenceModel
from factscope.grounding.spec import GroundSpec
from factscope.grounding.supplied_facts import AtomicFactsFile, SuppliedFactExtractor, SuppliedFacts
from factscope.grounding.task import (
    GroundResult,
    GroundRun,
    GroundTotals,
    choose_factors,
    ground_pipeline,
    survey_examples,
)

if TYPE_CHECKING:
    from rich.table import Table

    from factscope.llm.client import LLMClient

FACT_EXTRACTOR_ALIASES = {"spacy": "facts", "llm": "llm-facts"}
"""Names the grounding extractor has always accepted, kept as aliases of the registry's names."""


def extractor_spec(spec: str) -> str:
    """The registry's name of a grounding extractor spec (its aliases resolved)."""
    return FACT_EXTRACTOR_ALIASES.get(spec, spec)


def make_fact_extractor(spec: str | Extractor, llm: LLMClient | None) -> Extractor:
    """The extractor of a grounding spec (a ready one as it is)."""
    from factscope.claims.registry import make_extractor

    return make_extractor(extractor_spec(spec), llm=llm) if isinstance(spec, str) else spec


def make_spec_presence(spec: GroundSpec, llm: LLMClient | None) -> PresenceModel:
    """The presence model of a grounding spec (a ready one as it is)."""
    from factscope.grounding.presence import make_presence

    if not isinstance(spec.presence, str):
        return spec.presence
    return make_presence(
        spec.presence,
        threshold=spec.threshold,
        window=spec.window,
        stride=spec.stride,
        min_window=spec.min_window,
        mode=spec.mode,
        llm=llm,
    )


def read_scored(
    path: Path, metadata: Path | None = None, responses: Path | None = None
) -> ScoredExamples:
    """The examples of a file that can be scored (joined to ``metadata`` and ``responses`` when given); each
    record without a response is one of its ``problems`` (located by its id), as ``parse`` refuses it."""
    examples = ScoredExamples(path, metadata, responses)
    examples.problems = [
        *examples.problems,
        *(
            InputError(f"record {id!r}: missing: the response to score; pass `responses`, or run `factscope ground "
                       "generate` first", path=path, field="response")
            for id in examples.without_response
        ),
    ]
    return examples


class GroundSystem(System[GroundSpec, GroundExample, GroundResult, GroundTotals, GroundRun]):
    """Grounding precision / recall / F1 (Truly Ground). A file is read with its responses and factor fields
    joined from ``responses`` and ``metadata`` when given; ``atomic_facts`` serves the facts of the responses it
    has (a Ray run takes none of the three: its records carry their responses and metadata). ``input_notes`` is
    told what the facts file skipped and could not place."""

    name = "ground"
    manifest = "ground"
    command = "factscope ground"
    llm_users = "with an LLM fact `extractor` (llm-facts) or an LLM `presence` model (llm, nli:llm)"
    title = "Grounding (Truly Ground)"
    served = (ServedField("extractor"), ServedField("presence"))
    request_record = GroundRequestRecord
    form = RecordForm(
        "Precision: the response's atomic facts found in the contexts; recall: the gold facts found in the "
        "response; F1 is the grounding score.",
        (
            FormField("question", "Question", required=True),
            FormField("contexts", "Contexts", "passages", lines=6, required=True,
                      help="passages separated by a blank line"),
            FormField("gold_facts", "Gold atomic facts", "lines", lines=4, required=True, help="one per line"),
            FormField("response", "Response", lines=4, required=True),
            FormField("answer", "Short answer (optional)"),
        ),
        "ground/records.jsonl",
    )
    report = ReportHooks.of(report, record_in_context=report.record_html)
    command_form = GROUND_COMMAND

    def __init__(
        self, metadata: str | Path | None = None, responses: str | Path | None = None,
        atomic_facts: AtomicFactsFile | None = None, input_notes: InputNotes | None = None,
    ) -> None:
        self.metadata = Path(metadata) if metadata is not None else None
        self.responses = Path(responses) if responses is not None else None
        self.atomic_facts = atomic_facts if atomic_facts is not None and atomic_facts.path is not None else None
        self.input_notes = input_notes
        self.supplied: SuppliedFacts | None = None

    def reader(self, reading: Sequence[Any], notes: InputNotes) -> GroundSystem:
        """The grounding system joining the ``GroundReading``'s files and serving the ``AtomicFactsFile``'s facts."""
        files, facts = cast(tuple[GroundReading, AtomicFactsFile], tuple(reading))
        return GroundSystem(files.metadata, files.responses, facts, notes)

    def parse(self, item: dict[str, Any], /, *, path: Path, line: int) -> GroundExample:
        """One generic record of a grounding file or request; a record without a response is refused, located."""
        example = generic_example(item, path=path, line=line)
        if example.response is None:
            raise InputError(
                "missing: the response to score; run `factscope ground generate` first, or add a 'response' field",
                path=path,
                line=line,
                field="response",
            )
        return example

    def read(self, path: Path) -> ScoredExamples:
        return read_scored(path, self.metadata, self.responses)

    def check_usable(
        self, count: int, problems: Sequence[InputError], path: str | Path, notes: InputNotes | None
    ) -> None:
        """Tell ``notes`` of the records skipped; a file with no record to score is an InputError that says how
        to give it responses."""
        if notes is not None:
            notes.skipped(problems)
        if not count:
            raise InputError("no record to score" + ("; see the messages above" if problems else "") + ": a record "
                             "needs a response (give `responses`, or run `factscope ground generate` first)", path=path)

    def refuse_ray(self) -> None:
        if self.metadata is not None or self.responses is not None or self.atomic_facts is not None:
            raise ConfigError(
                "`metadata`, `responses` and `atomic_facts` are not taken with `engine='ray'`: give generic JSONL "
                "records that carry their response and metadata"
            )

    def needs_llm(self, spec: GroundSpec) -> bool:
        """Whether the extractor or the presence model named by ``spec`` calls an LLM endpoint."""
        from factscope.claims.registry import EXTRACTORS
        from factscope.grounding.presence import PRESENCE_MODELS

        return (isinstance(spec.extractor, str) and EXTRACTORS.needs_llm(extractor_spec(spec.extractor))) or (
            isinstance(spec.presence, str) and PRESENCE_MODELS.needs_llm(spec.presence)
        )

    def ready(self, spec: GroundSpec, llm: LLMClient | None) -> GroundSpec:
        """``spec`` with its fact extractor and presence model built (``llm`` for the LLM ones)."""
        return replace(
            spec, extractor=make_fact_extractor(spec.extractor, llm), presence=make_spec_presence(spec, llm)
        )

    def build(self, spec: GroundSpec, llm: LLMClient | None) -> Pipeline[GroundExample, GroundResult, GroundTotals]:
        """The grounding pipeline with the components of ``spec`` built (``llm`` for the LLM ones; its supplied
        facts served before its extractor); ``factors`` must be settled (``prepare``)."""
        extractor = make_fact_extractor(spec.extractor, llm)
        return ground_pipeline(
            SuppliedFactExtractor(spec.supplied_facts, extractor) if spec.supplied_facts else extractor,
            make_spec_presence(spec, llm),
            factors=spec.factors or (),
            no_response_facts=spec.no_response_facts,
            no_gold_facts=spec.no_gold_facts,
            settings=spec.settings,
        )

    def prepare(self, spec: GroundSpec, examples: Iterable[GroundExample]) -> GroundSpec:
        """``spec`` with its breakdown factors chosen from the examples' metadata (``choose_factors``) and the
        facts of ``atomic_facts`` (``AtomicFactsFile.serve``); an example without a response is an InputError."""
        survey = survey_examples(examples)
        missing = survey.without_response
        if missing:
            raise InputError(
                f"{len(missing)} example(s) have no response, e.g. {missing[0]!r}; attach responses first "
                "(grounding.data.attach_responses) or generate them (factscope.grounding.generation.generate)"
            )
        spec = replace(spec, factors=tuple(choose_factors(sorted(survey.fields), spec.factors)))
        if self.atomic_facts is None:
            return spec
        spec, self.supplied = self.atomic_facts.serve(spec, examples)
        if self.input_notes is not None:
            self.input_notes.skipped(self.supplied.problems)
            for warning in self.supplied.warnings:
                self.input_notes.warning(warning)
        return spec

    def result(self, produced: RunRows[GroundResult], totals: GroundTotals, facts: RunFacts) -> GroundRun:
        """The typed result of a grounding run; the presence threshold is the one the manifest records."""
        presence = facts.settings.get("presence")
        threshold = presence.get("threshold") if isinstance(presence, dict) else None
        return GroundRun(
            results=produced.results,
            summary=totals.summary(),
            failed=totals.failed,
            **produced.counts(),
            extractor=facts.names.get("extractor", ""),
            presence=facts.names.get("presence", ""),
            threshold=float(threshold) if isinstance(threshold, (int, float)) else math.nan,
        )

    def page_figures(self, run: GroundRun) -> list[tuple[str, float | bool | None]]:
        """Precision, recall and F1 over the run's records."""
        overall = run.summary.overall
        return [("precision", overall.precision), ("recall", overall.recall), ("F1", overall.f1)]

    def summary_rows(self, run: GroundRun, outcome: RunOutcome) -> list[tuple[str, object]]:
        """The figures of a grounding run's summary table."""
        return [
            ("records scored (new / resumed)", f"{run.new_records} / {run.resumed_records}"),
            ("failed decompositions (left out)", run.summary.failed),
            ("unjudged facts (left out)", run.summary.unjudged_facts),
            ("skipped input records", outcome.skipped),
            *(self.supplied.summary_rows() if self.supplied is not None else []),
            ("extractor / presence model", f"{run.extractor} / {run.presence} >= {run.threshold:g}"),
            ("results", str(outcome.output)),
        ]

    def figure_tables(self, run: GroundRun) -> list[Table]:
        """Precision, recall, F1 and answer accuracy, overall and per factor group."""
        from factscope.grounding.factor_table import factor_table

        return [factor_table(run.summary)]

    def summary_figures(self, run: GroundRun, problems: Sequence[InputError]) -> object:
        """The run's summary: macro averages, breakdowns and what was left out."""
        return run.summary.model_dump(mode="json")

    def failures(self, run: GroundRun) -> tuple[int, str]:
        """The records whose fact decomposition failed."""
        return run.summary.failed, "records' fact decompositions"


GROUND = GroundSystem()
"""Grounding precision / recall / F1 (Truly Ground)."""
