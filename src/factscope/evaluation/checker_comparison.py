"""Several checkers measured on the same labelled pairs: the pairs of several files, each checker built from its
spec (its loading timed apart from its checking), its threshold tuned on dev pairs when given, and evaluated."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from factscope.checkers.registry import make_checker
from factscope.core.errors import InputError
from factscope.core.run import ProgressCallback
from factscope.evaluation.checker_eval import EvalReport, evaluate_checker, tune_threshold
from factscope.evaluation.pairs import LabelledPair, PartChoice, read_pairs, sample_pairs

if TYPE_CHECKING:
    from factscope.llm.client import LLMClient


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


def evaluate_checkers(
    specs: Sequence[str],
    pairs: Sequence[LabelledPair],
    *,
    dev: Sequence[LabelledPair] = (),
    threshold: float | None = None,
    llm: LLMClient | None = None,
    settings: Mapping[str, Any] | None = None,
    batch_size: int = 32,
    progress: ProgressCallback | None = None,
) -> list[EvalReport]:
    """Build each checker of ``specs`` (with ``llm`` and the checker ``settings``; the seconds it takes are the
    report's ``load_seconds``), tune its threshold on ``dev`` when given (else use ``threshold``), and evaluate it
    on ``pairs``."""
    reports = []
    for spec in specs:
        began = time.perf_counter()
        checker = make_checker(spec, llm=llm, **(settings or {}))
        load_seconds = time.perf_counter() - began
        chosen = tune_threshold(checker, dev, batch_size=batch_size, progress=progress) if dev else threshold
        report = evaluate_checker(checker, pairs, threshold=chosen, batch_size=batch_size, progress=progress)
        reports.append(report.model_copy(update={"load_seconds": load_seconds}))
    return reports
