"""Several checkers measured on the same labelled pairs: the pairs of several files, each checker built from its
spec (its loading timed apart from its checking), its threshold tuned on dev pairs when given, and evaluated.

``EvaluationSettings`` declares what such an evaluation takes (`factscope eval-checker` builds its options from
its fields); ``read_evaluation_pairs`` reads the files it names and ``evaluate_pair_files`` measures the checkers
on them and writes the report.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from factscope.checkers.defaults import DEFAULT_CHECKER
from factscope.checkers.options import CheckerOptions, checker_options, used_options
from factscope.checkers.registry import CHECKERS, make_checker
from factscope.core.errors import ConfigError, InputError
from factscope.core.files.output_checks import check_outputs
from factscope.core.options.metadata import about
from factscope.core.options.validation import (
    ValidatedOptions,
    parameter_values,
    rule_refusal,
    validate_options,
)
from factscope.core.runs.loop import ProgressCallback
from factscope.evaluation.checker_eval import CheckerComparison, EvalReport, evaluate_checker, tune_threshold
from factscope.evaluation.pairs import LabelledPair, PartChoice, read_pairs, sample_pairs

if TYPE_CHECKING:
    from factscope.llm.client import LLMClient


def _checker_catalogue() -> str:
    """The checkers a spec string may name, plugins included (``CHECKERS``' catalogue)."""
    return CHECKERS.catalogue()


@dataclass(frozen=True)
class EvaluationSettings(ValidatedOptions):
    """Which checkers an evaluation measures, how a pair is judged entailed, which pairs of the files count, and
    where the report goes. A threshold is given or tuned on dev files, not both."""

    checker: list[str] | None = field(default=None, metadata=about(
        "the checker to measure; repeat to compare several on the same pairs (default: embedded). ",
        catalogue=_checker_catalogue,
    ))
    threshold: float | None = field(default=None, metadata=about(
        "judge a pair entailed when P(Entailment), or the similarity checker's cosine, is at least this (default: "
        "when the checker's label is Entailment)"
    ))
    tune_on: list[Path] | None = field(default=None, metadata=about(
        "dev pair files: use the threshold that maximises balanced accuracy on their pairs, all datasets pooled "
        "(repeatable; not with `threshold`)"
    ))
    tune_part: PartChoice = field(default="all", metadata=about("the part of the `tune_on` files to tune on"))
    part: PartChoice = field(default="all", metadata=about(
        "evaluate only the pairs whose group falls in this part of the split"
    ))
    limit: int | None = field(default=None, metadata=about(
        "at most N pairs per dataset (in the evaluated files and in the `tune_on` files): the same N every run, "
        "spread over the file",
        min=1,
    ))
    output: Path | None = field(default=None, metadata=about(
        "write the report (figures, confusion matrices) as JSON here", flag=("--output", "-o")
    ))
    batch_size: int = field(default=32, metadata=about("pairs per checking batch", min=1))
    fit_decision: Path | None = field(default=None, metadata=about(
        "fit a claim decision for the checker on the `tune_on` pairs (else on the evaluated pairs), save it as JSON "
        "here and evaluate with it; any command then reads it with `--claim-decision FILE`"
    ))

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.threshold is not None and self.tune_on:
            raise ConfigError("give either a `threshold` or dev files to tune one on (`tune_on`), not both")
        if self.fit_decision is not None and self.threshold is not None:
            raise ConfigError("give either a `threshold` or `fit_decision`, not both: a claim decision replaces it")
        if self.fit_decision is not None and len(self.specs) > 1:
            raise ConfigError("`fit_decision` fits one checker's decision: name one `checker`")

    @property
    def specs(self) -> list[str]:
        """The checker specs to measure (the default checker when none is given)."""
        return list(self.checker or [DEFAULT_CHECKER])

    def needs_llm(self) -> bool:
        """Whether one of the checkers calls an LLM endpoint."""
        return any(CHECKERS.needs_llm(spec) for spec in self.specs)

    def unused_llm(self) -> str | None:
        """Why an LLM given to this evaluation would go unused (a rule's refusal), or None when a checker calls one."""
        return None if self.needs_llm() else rule_refusal("llm", "with an llm `checker` (llm, llm:minicheck)")


@dataclass(frozen=True)
class EvaluationPairs:
    """The pairs an evaluation reads: those of ``files``, which it evaluates, and the dev pairs a threshold is
    tuned on, each with the records skipped per file. ``warning`` says when the threshold is tuned on pairs that
    are also evaluated."""

    files: list[Path]
    pairs: list[LabelledPair]
    skipped: dict[Path, list[InputError]]
    dev: list[LabelledPair] = field(default_factory=list)
    dev_skipped: dict[Path, list[InputError]] = field(default_factory=dict)
    warning: str | None = None


def read_pair_files(
    paths: Sequence[Path], *, part: PartChoice = "all", limit: int | None = None
) -> tuple[list[LabelledPair], dict[Path, list[InputError]]]:
    """The pairs of every file of ``paths`` in ``part`` of the split (at most ``limit`` per dataset, as
    ``sample_pairs`` picks them), and each file's skipped records."""
    pairs: list[LabelledPair] = []
    skipped: dict[Path, list[InputError]] = {}
    for path in paths:
        found, skipped[path] = read_pairs(path, part=part)
        pairs.extend(found)
    return (sample_pairs(pairs, limit) if limit is not None else pairs), skipped


def shares_pairs(files: Sequence[Path], part: PartChoice, dev: Sequence[Path], dev_part: PartChoice) -> bool:
    """Whether a dev file is also evaluated, in parts that share pairs (a threshold tuned on them is optimistic)."""
    same_file = {path.resolve() for path in files} & {path.resolve() for path in dev}
    return bool(same_file) and (part == dev_part or "all" in (part, dev_part))


def read_evaluation_pairs(files: Sequence[Path], settings: EvaluationSettings) -> EvaluationPairs:
    """The pairs of ``files`` and of the ``tune_on`` files, in the parts and at most the number per dataset that
    ``settings`` say, with the records skipped."""
    pairs, skipped = read_pair_files(files, part=settings.part, limit=settings.limit)
    dev, dev_skipped = read_pair_files(settings.tune_on or [], part=settings.tune_part, limit=settings.limit)
    shared = bool(pairs and dev) and shares_pairs(files, settings.part, settings.tune_on or [], settings.tune_part)
    fitted_on_evaluated = settings.fit_decision is not None and not settings.tune_on
    what = "claim decision is fitted" if settings.fit_decision is not None else "threshold is tuned"
    warning = (
        f"the {what} on pairs that are also evaluated: the figures are optimistic; fit on another file or part "
        "(`tune_on` with `tune_part='validation'` `part='test'`)"
    ) if shared or fitted_on_evaluated else None
    return EvaluationPairs(list(files), pairs, skipped, dev, dev_skipped, warning)


def evaluate_checkers(
    specs: Sequence[str],
    pairs: Sequence[LabelledPair],
    *,
    dev: Sequence[LabelledPair] = (),
    threshold: float | None = None,
    llm: LLMClient | None = None,
    settings: CheckerOptions | Mapping[str, Any] | None = None,
    batch_size: int = 32,
    progress: ProgressCallback | None = None,
    fit_decision: Path | None = None,
) -> list[EvalReport]:
    """Build each checker of ``specs`` (with ``llm`` and those of the checker ``settings`` it uses, each setting
    used by one of them at least; the seconds it takes are the report's ``load_seconds``), tune its threshold on
    ``dev`` when given (else use ``threshold``), and evaluate it on ``pairs``. With ``fit_decision`` a claim
    decision is fitted instead, on ``dev`` when given (else on ``pairs``), saved there and evaluated."""
    options = checker_options(settings, **({"decision": "off"} if fit_decision else {}))
    validate_options(options, {**parameter_values(options), "checker": list(specs)})
    reports = []
    for spec in specs:
        began = time.perf_counter()
        checker = make_checker(spec, options=used_options(options, spec), llm=llm)
        load_seconds = time.perf_counter() - began
        if fit_decision is not None:
            _fit_and_save(checker, dev or pairs, fit_decision, batch_size, progress)
            chosen = None
        else:
            chosen = tune_threshold(checker, dev, batch_size=batch_size, progress=progress) if dev else threshold
        report = evaluate_checker(checker, pairs, threshold=chosen, batch_size=batch_size, progress=progress)
        fitted = {"claim_decision": str(fit_decision)} if fit_decision is not None else {}
        reports.append(report.model_copy(update={"load_seconds": load_seconds, **fitted}))
    return reports


def _fit_and_save(
    checker: Any, pairs: Sequence[LabelledPair], path: Path, batch_size: int, progress: ProgressCallback | None
) -> None:
    """Fit ``checker``'s claim decision on ``pairs``, save it at ``path`` and let the checker decide with it."""
    from factscope.evaluation.decision_fit import fit_claim_decision

    datasets = sorted({pair.dataset for pair in pairs})
    fitted_on = f"{len(pairs)} labelled pairs ({', '.join(datasets)}), checker {checker.name}"
    decision = fit_claim_decision(checker, pairs, fitted_on=fitted_on, batch_size=batch_size, progress=progress)
    decision.save(path)
    checker.claim_decision = decision


def evaluate_pair_files(
    read: EvaluationPairs,
    settings: EvaluationSettings,
    *,
    checker_settings: CheckerOptions | Mapping[str, Any] | None = None,
    llm: LLMClient | Callable[[], LLMClient] | None = None,
    progress: ProgressCallback | None = None,
) -> list[EvalReport]:
    """Measure each checker of ``settings`` on the pairs ``read`` (``read_evaluation_pairs``), as
    ``evaluate_checkers`` does with ``checker_settings`` and ``llm`` (a client, or a function that makes one,
    called only when a checker needs it), each report noting the files, part, limit and skipped records; the
    reports are written to ``settings.output`` when given (several as one ``CheckerComparison``; a path that
    cannot be written is refused first). Dev files without a usable pair in their part, or evaluated files
    without one, raise InputError."""
    check_outputs(written={"output": settings.output, "fit_decision": settings.fit_decision})
    if settings.tune_on and not read.dev:
        raise InputError(f"the `tune_on` files hold no usable pair in part {settings.tune_part!r}")
    if not read.pairs:
        raise InputError(f"no usable pair in part {settings.part!r} of the files")
    client = (llm() if settings.needs_llm() else None) if callable(llm) else llm
    evaluated = evaluate_checkers(
        settings.specs, read.pairs, dev=read.dev, threshold=settings.threshold, llm=client,
        settings=checker_options(checker_settings, batch_size=settings.batch_size), batch_size=settings.batch_size,
        progress=progress, fit_decision=settings.fit_decision,
    )
    inputs = {
        "tuned_on": [str(path) for path in settings.tune_on] if settings.tune_on else None,
        "inputs": [str(path) for path in read.files],
        "part": settings.part,
        "limit": settings.limit,
        "skipped": sum(len(problems) for problems in read.skipped.values()),
    }
    reports = [report.model_copy(update=inputs) for report in evaluated]
    if settings.output is not None:
        written = reports[0] if len(reports) == 1 else CheckerComparison(reports=reports)
        settings.output.write_text(json.dumps(written.model_dump(mode="json"), indent=2), encoding="utf-8")
    return reports
