"""Agreement of CONNER's metrics with human ratings (the paper's section 6, Tables 9-10): Somers' D, Pearson, Spearman."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from factscope.core.errors import InputError
from factscope.core.files.input_files import read_json_records
from factscope.core.files.tables import read_records
from factscope.metrics.agreement import pearson, somers_d, spearman

HUMAN_DIMENSIONS: dict[str, tuple[str, ...]] = {
    "factuality": ("factuality",),
    "relevance": ("relevance",),
    "coherence": ("coherence_paragraph", "coherence_sentence"),
    "informativeness": ("informativeness",),
    "helpfulness": ("helpfulness",),
    "validity": ("validity",),
}
"""Each human rating dimension and the metric(s) it is compared with (factuality: the factual-consistent score)."""


class Agreement(BaseModel):
    """The correlation of one metric with one human rating dimension over the records rated and scored."""

    dimension: str
    metric: str
    n: int
    somers_d: float | None = None
    somers_p: float | None = None
    pearson: float | None = None
    pearson_p: float | None = None
    spearman: float | None = None
    spearman_p: float | None = None
    note: str | None = None


def metric_value(row: dict[str, Any], metric: str) -> float | None:
    """One metric of a `knowledge score` result row as a number (factuality: factual-consistent)."""
    if metric == "factuality":
        fact = row.get("factuality")
        return float(fact["consistent"]) if isinstance(fact, dict) and fact.get("consistent") is not None else None
    value = row.get(metric)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def read_scores(path: str | Path) -> tuple[dict[str, dict[str, Any]], list[InputError]]:
    """The rows of a ``knowledge score`` results file by id (a row without one is passed over), and the lines
    that could not be read."""
    rows: dict[str, dict[str, Any]] = {}
    problems: list[InputError] = []
    for _, item in read_json_records(Path(path)):
        if isinstance(item, InputError):
            problems.append(item)
        elif "id" in item:
            rows[str(item["id"])] = item
    return rows, problems


def read_human_ratings(path: str | Path) -> tuple[dict[str, dict[str, float]], list[InputError]]:
    """{id: {dimension: rating}} from JSON / JSONL / Parquet / CSV rows with `id` and ratings 0, 1 or 2; bad rows
    are returned."""
    ratings: dict[str, dict[str, float]] = {}
    problems: list[InputError] = []
    for line, item in read_records(path):
        if isinstance(item, InputError):
            problems.append(item)
            continue
        if "id" not in item:
            problems.append(InputError("missing; ratings are joined to scores by id", path=path, line=line, field="id"))
            continue
        row: dict[str, float] = {}
        for dimension in HUMAN_DIMENSIONS:
            value = item.get(dimension)
            if value is None:
                continue
            if isinstance(value, str) and value.strip() in ("0", "1", "2"):  # a CSV cell
                value = int(value)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value not in (0, 1, 2):
                problems.append(InputError(f"must be a rating 0, 1 or 2, got {value!r}", path=path, line=line, field=dimension))
                row = {}
                break
            row[dimension] = float(value)
        if row:
            ratings[str(item["id"])] = row
    return ratings, problems


def agreement(scores: dict[str, dict[str, Any]], ratings: dict[str, dict[str, float]]) -> list[Agreement]:
    """Somers' D (human rating as X, metric as Y), Pearson and Spearman per dimension and metric.

    Only records with both a rating and a computed metric count; a pair list with no variation is
    reported with a note instead of a number.
    """
    results = []
    for dimension, metrics in HUMAN_DIMENSIONS.items():
        for metric in metrics:
            pairs = [
                (rating[dimension], value)
                for key, rating in ratings.items()
                if dimension in rating
                and key in scores
                and (value := metric_value(scores[key], metric)) is not None
            ]
            if not pairs:
                continue
            human, machine = [p[0] for p in pairs], [float(p[1]) for p in pairs]
            result = Agreement(dimension=dimension, metric=metric, n=len(pairs))
            try:
                result.somers_d, result.somers_p = somers_d(human, machine)
                result.pearson, result.pearson_p = pearson(human, machine)
                result.spearman, result.spearman_p = spearman(human, machine)
            except ValueError as error:
                result.note = str(error)
            results.append(result)
    return results


def file_agreement(
    scores: str | Path, human: str | Path, skipped: Callable[[InputError], None] | None = None
) -> list[Agreement]:
    """``agreement`` of a ``knowledge score`` results file with a file of human ratings (``read_scores``,
    ``read_human_ratings``), each row that could not be read passed to ``skipped``; an InputError naming
    ``human`` when no record has both a rating and a computed score."""
    rows, problems = read_scores(scores)
    _tell(problems, skipped)
    ratings, problems = read_human_ratings(human)
    _tell(problems, skipped)
    results = agreement(rows, ratings)
    if not results:
        raise InputError("no record has both a human rating and a computed score; check that the ids match", path=human)
    return results


def _tell(problems: list[InputError], skipped: Callable[[InputError], None] | None) -> None:
    """Pass each of ``problems`` to ``skipped``, when given."""
    for problem in problems:
        if skipped is not None:
            skipped(problem)
