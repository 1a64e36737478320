"""`factscope check`: claim-level hallucination checking (RefChecker)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from factscope.checkers.registry import CHECKER_SPECS, CHECKERS, make_checker
from factscope.claims.registry import EXTRACTOR_SPECS, EXTRACTORS, make_extractor
from factscope.cli.checking_options import (
    AllowMissingReferences,
    CheckingModeOption,
    DeviceOption,
    JudgeThreshold,
    LabelOrderOption,
    LLMCheckModeOption,
    LLMPassagesOption,
    MinConfidence,
    MinRelevance,
    MismatchChecks,
    RelevanceOption,
    SegmentTokens,
    label_order,
    refuse_missing_references,
)
from factscope.cli.display import (
    ProgressDisplay,
    format_value,
    print_skipped,
    print_table,
    summary_table,
)
from factscope.cli.engine_options import EngineOptions, engine_options, run_sharded
from factscope.cli.llm_options import LLMOptions, llm_options, usage_rows
from factscope.cli.output_options import Overwrite, RetryFailed
from factscope.cli.output_paths import check_outputs
from factscope.core.errors import InputError, RecordsFailed
from factscope.core.schema import LABELS, Record
from factscope.retrieve.corpus import RetrieverName

if TYPE_CHECKING:
    from factscope.core.run import Pipeline
    from factscope.engines.ray import ShardedRun
    from factscope.llm.client import LLMClient
    from factscope.refchecker.task import CheckResult, CheckRun, CheckTotals

HELP = """Extract claims from LLM responses and check each against the references.

Each claim gets Entailment (supported), Neutral (not verifiable from the references) or Contradiction.
Input: JSON or JSONL records with `response`, `references` (list) or `reference` (text), and optional
`id`, `question`, `setting` (zero / noisy / accurate); RefChecker's own JSON list works as is, and so do its
benchmark records (`context`: the references) once they carry a `response`.
Records without references stop the run (exit code 2) unless --corpus retrieves passages for them or
--allow-missing-references is given: their claims could only be Neutral (with --engine ray they are skipped and
reported instead).
Results are written to OUTPUT as they are made; rerunning the same command resumes. With --engine ray, INPUT may
be a folder of *.jsonl shards and OUTPUT is a results folder (default: INPUT name + .checked).

Examples:

  factscope check examples/check.jsonl                       # offline: spaCy triplets + embedded checker

  factscope check answers.jsonl -o checked.jsonl --extractor llm --checker nli:MODEL --llm-model gpt-4o-mini

  factscope check shards/ --engine ray --concurrency 4                 # a local Ray cluster, four actors
"""


def register(app: typer.Typer) -> None:
    """Add the `check` command."""
    app.command("check", help=HELP)(llm_options(engine_options(check_command)))


def check_command(
    input: Annotated[
        Path, typer.Argument(help="JSON or JSONL records to check (with --engine ray: or a folder of *.jsonl).",
                             show_default=False)
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o",
            help="results JSONL (default: INPUT name + .checked.jsonl here); with --engine ray a results folder",
        ),
    ] = None,
    extractor: Annotated[str, typer.Option(help=EXTRACTOR_SPECS)] = "rules",
    checker: Annotated[str, typer.Option(help=CHECKER_SPECS)] = "embedded",
    segment_tokens: SegmentTokens = 200,
    relevance: RelevanceOption = "lexical",
    min_relevance: MinRelevance = None,
    min_confidence: MinConfidence = 0.0,
    mismatch_checks: MismatchChecks = "all",
    mode: CheckingModeOption = "exact",
    device: DeviceOption = "auto",
    threshold: JudgeThreshold = None,
    label_order_names: LabelOrderOption = None,
    similarity_threshold: Annotated[float, typer.Option(min=-1.0, max=1.0, help="cosine threshold of the similarity checker")] = 0.7,
    corpus: Annotated[
        Path | None, typer.Option(help="JSONL or folder of .txt: passages to retrieve for records without references")
    ] = None,
    retriever: Annotated[RetrieverName, typer.Option(help="passage retriever (with --corpus)")] = "bm25",
    top_k: Annotated[int, typer.Option(min=1, help="passages retrieved per record (with --corpus)")] = 5,
    batch_size: Annotated[int, typer.Option(min=1, help="records per extraction / checking batch")] = 32,
    max_reference_chars: Annotated[int, typer.Option(min=1, help="skip records whose references are longer")] = 2_000_000,
    llm_check_mode: LLMCheckModeOption = "joint",
    llm_passages: LLMPassagesOption = "each",
    allow_missing_references: AllowMissingReferences = False,
    abstention_detection: Annotated[
        bool,
        typer.Option(
            "--abstention-detection/--no-abstention-detection",
            help="drop sentences that decline to answer (\"I don't know.\", \"The references do not say.\"): "
            "a response made only of them has no claims and counts as an abstention",
        ),
    ] = True,
    summary: Annotated[Path | None, typer.Option(help="also write the run's figures as JSON here")] = None,
    overwrite: Overwrite = False,
    retry_failed: RetryFailed = False,
    *,
    endpoint: LLMOptions,
    engine: EngineOptions,
) -> None:
    from factscope.core.manifest import fingerprint_file
    from factscope.refchecker.data import CheckRecords
    from factscope.refchecker.task import check
    from factscope.retrieve.corpus import Corpus, make_retriever

    checker_settings: dict[str, Any] = {
        "max_tokens": segment_tokens,
        "relevance": relevance,
        "min_relevance": min_relevance,
        "min_confidence": min_confidence,
        "mismatch": mismatch_checks,
        "mode": mode,
        "device": device,
        "threshold": threshold,
        "label_order": label_order(label_order_names),
        "similarity_threshold": similarity_threshold,
        "llm_mode": llm_check_mode,
        "llm_passages": llm_passages,
    }
    if engine.on_ray:
        output = output or Path(f"{input.stem}.checked")
        check_outputs(written={"--summary": summary})
        build = CheckBuild(extractor, checker, checker_settings, endpoint, corpus, retriever, top_k,
                           abstention_detection)
        require = corpus is None and not allow_missing_references
        parse = partial(parse_check_record, max_reference_chars=max_reference_chars, require_references=require)
        sharded = run_sharded(engine, build, parse, input, output, batch_size=batch_size, overwrite=overwrite,
                              retry_failed=retry_failed)
        if not (sharded.produced.new or sharded.produced.resumed) and sharded.problems:
            raise typer.Exit(code=2)
        run = check_run_of(sharded)
        _report(run, sharded.problems, output, None, summary)
        return
    output = output or Path(f"{input.stem}.checked.jsonl")
    check_outputs(output, overwrite=overwrite, written={"--summary": summary})
    records = CheckRecords(input, max_reference_chars=max_reference_chars)
    without_references = [record.id for record in records if not record.references]
    problems = records.problems
    for problem in problems:
        print_skipped(problem)
    if not records.count:
        raise typer.Exit(code=2 if problems else 0)
    if corpus is None:
        refuse_missing_references(
            without_references, allowed=allow_missing_references, remedy="pass --corpus to retrieve passages for them"
        )
    client = endpoint.build_if(EXTRACTORS.needs_llm(extractor) or CHECKERS.needs_llm(checker))
    found = make_retriever(retriever, Corpus.from_path(corpus)) if corpus else None
    with ProgressDisplay() as shown:
        run = check(
            records,
            extractor=make_extractor(extractor, llm=client),
            checker=make_checker(checker, llm=client, **checker_settings),
            output=output,
            retriever=found,
            retrieve_k=top_k,
            batch_size=batch_size,
            progress=shown,
            settings={"corpus": fingerprint_file(corpus).sha256} if corpus else None,
            overwrite=overwrite,
            retry_failed=retry_failed,
            abstention_detection=abstention_detection,
        )
    _report(run, problems, output, client, summary)


def _report(
    run: CheckRun, problems: list[InputError], output: Path, client: LLMClient | None, summary: Path | None
) -> None:
    """Print the run's tables, write ``--summary``, and raise RecordsFailed when extractions or checks failed."""
    print_table(_rates_table(run))
    rows: list[tuple[str, object]] = [
        ("records (new / resumed)", f"{run.new_records} / {run.resumed_records}"),
        ("skipped input records", len(problems)),
        ("claims", run.claims),
        ("abstentions / declined to answer", f"{run.rates.abstained} / {run.declined}"),
        ("extraction failures", run.extraction_failures),
        ("check failures", run.check_failures),
        ("records / second (this run)", round(run.new_records / run.seconds, 2) if run.seconds else None),
        ("extractor / checker", f"{run.extractor} / {run.checker}"),
        ("results", str(output)),
    ]
    rows.extend(usage_rows(client))
    print_table(summary_table("run", rows))
    if summary is not None:
        figures = run.model_dump(mode="json")
        figures["skipped"] = [str(p) for p in problems]
        summary.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    if run.extraction_failures or run.check_failures:
        raise RecordsFailed(
            run.extraction_failures + run.check_failures,
            f"of the file's extractions and claim checks ({run.extraction_failures} extractions, "
            f"{run.check_failures} claims)",
            output,
        )


@dataclass(frozen=True)
class CheckBuild:
    """The check pipeline of a command line, built where it runs: each Ray actor calls this once, so the models
    load once per actor."""

    extractor: str
    checker: str
    checker_settings: dict[str, Any]
    endpoint: LLMOptions
    corpus: Path | None
    retriever: str
    top_k: int
    abstention_detection: bool

    def __call__(self) -> Pipeline[Record, CheckResult, CheckTotals]:
        from factscope.core.manifest import fingerprint_file
        from factscope.refchecker.task import check_pipeline
        from factscope.retrieve.corpus import Corpus, make_retriever

        client = self.endpoint.build_if(EXTRACTORS.needs_llm(self.extractor) or CHECKERS.needs_llm(self.checker))
        return check_pipeline(
            make_extractor(self.extractor, llm=client),
            make_checker(self.checker, llm=client, **self.checker_settings),
            retriever=make_retriever(self.retriever, Corpus.from_path(self.corpus)) if self.corpus else None,
            retrieve_k=self.top_k,
            abstention_detection=self.abstention_detection,
            settings={"corpus": fingerprint_file(self.corpus).sha256} if self.corpus else None,
        )


def parse_check_record(
    item: dict[str, Any], *, path: Path, line: int, max_reference_chars: int, require_references: bool
) -> Record:
    """One check record (``parse_record``); with ``require_references`` a record without references is refused,
    located, since its claims could only be Neutral."""
    from factscope.refchecker.data import parse_record

    record = parse_record(item, path=path, line=line, max_reference_chars=max_reference_chars)
    if require_references and not record.references:
        raise InputError(
            "no references, so its claims could only be Neutral; give it references, pass --corpus to retrieve "
            "passages, or pass --allow-missing-references",
            path=path,
            line=line,
            field="references",
        )
    return record


def check_run_of(sharded: ShardedRun[CheckResult, CheckTotals]) -> CheckRun:
    """The typed result of a check run on Ray."""
    from factscope.refchecker.task import check_run

    return check_run(
        sharded.produced, sharded.totals, extractor=sharded.names["extractor"], checker=sharded.names["checker"]
    )


def _rates_table(run: CheckRun) -> Table:
    """Label rates (RefChecker eq. 1), abstain and hallucination rates, overall and per context setting."""
    table = Table(title="hallucination rates (share of claims, averaged over responses)", header_style="bold")
    table.caption = (
        "E / N / C: Entailment, Neutral, Contradiction, averaged over answering responses; halluc.: N + C; "
        "abstained: responses with no claims, abstain: their share"
    )
    for column in ("setting", "responses", "E", "N", "C", "halluc.", "abstained", "abstain"):
        table.add_column(column, justify="left" if column == "setting" else "right")
    groups = [("all", run.rates), *run.rates_by_setting.items()]
    for name, rates in groups:
        values = [rates.rates[label] if rates.rates else None for label in LABELS]
        table.add_row(
            name,
            str(rates.responses),
            *(format_value(v) for v in values),
            format_value(rates.hallucination_rate),
            str(rates.abstained),
            format_value(rates.abstain_rate),
        )
    return table
