"""RefChecker's check, defined once (``CheckSystem``, its instance ``CHECK``): records, extractor, checker and
retriever from a ``CheckSpec``, the check pipeline, the rule for records without references, ``CheckRun``, its
summary rows and its report."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from factscope.checkers.base import Checker
from factscope.claims.base import Extractor
from factscope.core.errors import InputError
from factscope.core.files.input_notes import InputNotes
from factscope.core.files.manifest import SettingValue, fingerprint_file
from factscope.core.record_form import FormField, RecordForm
from factscope.core.runs.loop import Pipeline, RunRows
from factscope.core.schema import Record
from factscope.engines.parts import ReportHooks, RunFacts, RunOutcome
from factscope.engines.served import ServedField
from factscope.engines.system import System
from factscope.refchecker import html_report
from factscope.refchecker.command_form import CHECK_COMMAND, CheckReading
from factscope.refchecker.data import MAX_REFERENCE_CHARS, CheckRecords, CheckRequestRecord, parse_record
from factscope.refchecker.missing_references import MissingReferences, MissingReferencesWarning
from factscope.refchecker.spec import DEFAULT_CORPUS_RETRIEVER, CheckSpec
from factscope.refchecker.task import (
    CheckResult,
    CheckRun,
    CheckTotals,
    check_pipeline,
    check_run,
)
from factscope.retrieve.corpus import Retriever
from factscope.retrieve.retriever_names import SearchServiceName
from factscope.retrieve.web_evidence import WebEvidence
from factscope.retrieve.web_retrievers import is_web_retriever

if TYPE_CHECKING:
    from rich.table import Table

    from factscope.llm.client import LLMClient


def retrieves(spec: CheckSpec) -> bool:
    """Whether ``spec`` retrieves passages for records without references: a ready retriever, a web retriever, or
    a corpus retriever (by default bm25) with its corpus."""
    if spec.retriever is None:
        return spec.corpus is not None
    if not isinstance(spec.retriever, str):
        return True
    return is_web_retriever(spec.retriever) or spec.corpus is not None


def _extractor(spec: CheckSpec, llm: LLMClient | None) -> Extractor:
    from factscope.claims.registry import make_extractor

    return make_extractor(spec.extractor, llm=llm) if isinstance(spec.extractor, str) else spec.extractor


def _checker(spec: CheckSpec, llm: LLMClient | None) -> Checker:
    from factscope.checkers.registry import make_checker

    if not isinstance(spec.checker, str):
        return spec.checker
    return make_checker(spec.checker, options=spec.checker_settings, llm=llm)


def _retriever(spec: CheckSpec, llm: LLMClient | None) -> Retriever | WebEvidence | None:
    if spec.retriever is not None and not isinstance(spec.retriever, str):
        return spec.retriever
    if spec.retriever is not None and is_web_retriever(spec.retriever):
        from factscope.retrieve.web_retrievers import make_web_evidence

        evidence = make_web_evidence(
            spec.retriever, spec.web, k=spec.retrieve_k, llm=llm if spec.query_llm else None
        )
        evidence.preflight()
        return evidence
    if spec.corpus is None:
        return None
    from factscope.retrieve.corpus import Corpus, make_retriever

    return make_retriever(spec.retriever or DEFAULT_CORPUS_RETRIEVER, Corpus.from_path(spec.corpus))


def retrieval_rows(run: CheckRun) -> list[tuple[str, object]]:
    """The web retrieval's cost in the summary, each count named: searches sent (per claim) and answered by the
    cache; the pages the searches found, those read (per claim) and those the cache gave; the requests that
    failed. None when nothing was searched."""
    cost = run.retrieval
    if not (cost.searches or cost.cached_searches or cost.failures):
        return []

    def per_claim(count: int) -> str:
        return f"{count / run.claims:.2f}" if run.claims else "-"

    searches = f"{cost.searches} sent ({per_claim(cost.searches)} per claim), {cost.cached_searches} from the cache"
    pages = (f"{cost.pages_found} found, {cost.page_fetches} read ({per_claim(cost.page_fetches)} per claim), "
             f"{cost.cached_pages} from the cache")
    return [("web searches", searches), ("web pages", pages), ("failed searches and page reads", cost.failures)]


class CheckSystem(System[CheckSpec, Record, CheckResult, CheckTotals, CheckRun]):
    """Claim-level hallucination checking (RefChecker). ``max_reference_chars``: a record whose references are
    longer is refused (a located error) when a file is read."""

    name = "check"
    manifest = "check"
    command = "factscope check"
    llm_users = (
        "with an LLM `extractor` (llm, llm-facts), an llm `checker` (llm, llm:minicheck), or `query_llm` with a "
        "web `retriever` (the LLM writes its search queries)"
    )
    title = "Check claims (RefChecker)"
    served = (
        ServedField("extractor"),
        ServedField("checker"),
        ServedField("retriever", option_type=SearchServiceName | None, help=(
            "search service that finds evidence for records without references (key from SERPER_API_KEY or "
            "BRAVE_API_KEY; the web retrieval settings apply); none: such records are checked against nothing"
        )),
    )
    request_record = CheckRequestRecord
    form = RecordForm(
        "Claims are extracted from the response and checked against the references: supported (Entailment), "
        "not verifiable (Neutral) or contradicted (Contradiction). Hover a claim for its probabilities.",
        (
            FormField("question", "Question"),
            FormField("response", "Response", lines=5, required=True),
            FormField("references", "References", "passages", lines=8, help="passages separated by a blank line"),
        ),
        "check.jsonl",
    )
    report = ReportHooks(
        fields=("claims",),
        flagged=html_report.is_hallucinated,
        flagged_means="records with a Neutral or Contradiction claim",
        record=html_report.render_record,
        overview=html_report.overview_html,
        caption=html_report.record_caption,
    )
    command_form = CHECK_COMMAND

    def __init__(self, max_reference_chars: int = MAX_REFERENCE_CHARS) -> None:
        self.max_reference_chars = max_reference_chars

    def reader(self, reading: Sequence[Any], notes: InputNotes) -> CheckSystem:
        """The check system refusing references longer than the ``CheckReading``'s limit."""
        (options,) = reading
        return CheckSystem(cast(CheckReading, options).max_reference_chars)

    def command_spec(self, spec: CheckSpec, *, endpoint: bool) -> CheckSpec:
        """``spec`` letting the LLM write the search queries of a web retriever when an endpoint is configured."""
        web_search = isinstance(spec.retriever, str) and is_web_retriever(spec.retriever)
        return replace(spec, query_llm=web_search and endpoint)

    def parse(self, item: dict[str, Any], /, *, path: Path, line: int) -> Record:
        """One check record of a file or a request (``parse_record``)."""
        return parse_record(item, path=path, line=line, max_reference_chars=self.max_reference_chars)

    def read(self, path: Path) -> CheckRecords:
        """The check records of a file, streamed."""
        return CheckRecords(path, max_reference_chars=self.max_reference_chars)

    def needs_llm(self, spec: CheckSpec) -> bool:
        """Whether the extractor or the checker named by ``spec`` calls an LLM endpoint."""
        from factscope.checkers.registry import CHECKERS
        from factscope.claims.registry import EXTRACTORS

        return (
            (isinstance(spec.extractor, str) and EXTRACTORS.needs_llm(spec.extractor))
            or (isinstance(spec.checker, str) and CHECKERS.needs_llm(spec.checker))
            or (spec.query_llm and isinstance(spec.retriever, str) and is_web_retriever(spec.retriever))
        )

    def ready(self, spec: CheckSpec, llm: LLMClient | None) -> CheckSpec:
        """``spec`` with its retriever, extractor and checker built (``llm`` for the LLM ones); a web retriever
        first, so that a missing key or network stops the run before any model loads."""
        retriever = _retriever(spec, llm)
        return replace(spec, extractor=_extractor(spec, llm), checker=_checker(spec, llm), retriever=retriever)

    def build(self, spec: CheckSpec, llm: LLMClient | None) -> Pipeline[Record, CheckResult, CheckTotals]:
        """The check pipeline with the components of ``spec`` built (``llm`` for the LLM ones)."""
        settings: dict[str, SettingValue] = {**spec.settings}
        if spec.corpus:
            settings["corpus"] = fingerprint_file(spec.corpus).sha256
        retriever = _retriever(spec, llm)
        return check_pipeline(
            _extractor(spec, llm),
            _checker(spec, llm),
            retriever=retriever,
            retrieve_k=spec.retrieve_k,
            retrieve_for=spec.retrieve_for,
            abstention_detection=spec.abstention_detection,
            settings=settings,
        )

    def prepare(self, spec: CheckSpec, records: Iterable[Record]) -> CheckSpec:
        """A run that retrieves nothing for records without references stops on them (``MissingReferences``),
        unless ``spec.allow_missing_references``, which warns (``MissingReferencesWarning``) and goes on."""
        if retrieves(spec):
            return spec
        missing = [record.id for record in records if not record.references]
        if missing and not spec.allow_missing_references:
            raise MissingReferences(missing)
        if missing:
            warnings.warn(MissingReferencesWarning(missing), stacklevel=2)
        return spec

    def served_spec(self, chosen: Mapping[str, Any], *, mode: str, web: Any) -> CheckSpec:
        """The server's spec (see ``System.served_spec``), whose web retriever searches as ``web`` says."""
        return super().served_spec({**chosen, "web": web}, mode=mode, web=web)

    def result(self, produced: RunRows[CheckResult], totals: CheckTotals, facts: RunFacts) -> CheckRun:
        """The typed result of a check run."""
        return check_run(produced, totals, extractor=facts.names.get("extractor", ""), checker=facts.names.get("checker", ""))

    def summary_rows(self, run: CheckRun, outcome: RunOutcome) -> list[tuple[str, object]]:
        """The figures of a check run's summary table."""
        return [
            ("records (new / resumed)", f"{run.new_records} / {run.resumed_records}"),
            *retrieval_rows(run),
            ("skipped input records", outcome.skipped),
            ("claims", run.claims),
            ("abstentions / declined to answer", f"{run.rates.abstained} / {run.declined}"),
            ("extraction failures", run.extraction_failures),
            ("check failures", run.check_failures),
            ("records / second (this run)", round(run.new_records / run.seconds, 2) if run.seconds else None),
            ("extractor / checker", f"{run.extractor} / {run.checker}"),
            *(
                [("escalated to the second checker",
                  f"{run.escalated} of {run.cascaded} claims ({run.escalated / run.cascaded:.0%})")]
                if run.cascaded
                else []
            ),
            ("results", str(outcome.output)),
        ]

    def page_figures(self, run: CheckRun) -> list[tuple[str, float | bool | None]]:
        """The rate of each label and the hallucination rate."""
        rates = run.rates
        given = rates.rates or {}
        shown: list[tuple[str, float | bool | None]] = [(label.value, given[label]) for label in given]
        return [*shown, ("hallucination rate", rates.hallucination_rate)]

    def figure_tables(self, run: CheckRun) -> list[Table]:
        """The label rates, overall and per context setting."""
        from factscope.refchecker.rates_table import rates_table

        return [rates_table(run)]

    def summary_figures(self, run: CheckRun, problems: Sequence[InputError]) -> object:
        """The run's figures and the skipped input records' messages."""
        return {**run.model_dump(mode="json"), "skipped": [str(problem) for problem in problems]}

    def failures(self, run: CheckRun) -> tuple[int, str]:
        """The failed extractions and claim checks."""
        return (
            run.extraction_failures + run.check_failures,
            (f"of the file's extractions and claim checks ({run.extraction_failures} extractions, "
             f"{run.check_failures} claims)"),
        )


CHECK = CheckSystem()
"""Claim-level hallucination checking (RefChecker)."""
