"""The exact-mode baseline of the long-page fast-mode benchmark, run once and cached.

Exact mode scores every (window, claim) pair of a record: minutes a record of six claims against six 2,000-token
pages on two shared CPU cores. ``exact_run`` checks each record and keeps, per record, the seconds, the labels and
each verdict's deciding window, and every pair's probabilities. It writes them to a cache file (a pickle, outside
the repository) after each record, so that an interrupted run resumes and a rerun of fast mode reads the exact
labels instead of recomputing them; the probabilities let fast mode's rules be replayed without the model.

With ``windows="all"`` a record is checked in exact mode itself (timed). With ``windows="counted"`` only the
windows exact mode's label depends on are scored: those over the lexical relevance floor (or, where none is, the
most relevant window, whose probabilities a Neutral verdict keeps); the verdict is then decided by the checker's
own ``decide`` exactly as exact mode decides it. The label, probabilities and deciding window are exact mode's;
only a reason that names an uncounted window (rule "relevance") can differ. ``counted_verdicts`` is checked
against full exact runs on the records that have both.
"""

from __future__ import annotations

import pickle
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_CACHE = Path.home() / ".cache" / "factscope-benchmarks" / "fast_mode_long_pages.pkl"


class RecordingScorer:
    """A PairScorer that passes each call on and keeps every (premise, hypothesis) pair's probabilities."""

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer
        self.name = scorer.name
        self.probs: dict[tuple[str, str], np.ndarray] = {}
        self.pairs = 0

    def score(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        self.pairs += len(set(zip(premises, hypotheses)))
        probs = np.asarray(self.scorer.score(premises, hypotheses))
        self.probs.update(zip(zip(premises, hypotheses), probs))
        return probs

    def count_tokens(self, text: str) -> int:
        return int(self.scorer.count_tokens(text))


class ReplayScorer:
    """Scores pairs with the probabilities the exact run gave them, counting the distinct pairs asked for."""

    name = "replay"

    def __init__(self, probs: dict[tuple[str, str], np.ndarray], count_tokens: Any) -> None:
        self.probs = probs
        self.count_tokens = count_tokens
        self.pairs = 0

    def score(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        self.pairs += len(set(zip(premises, hypotheses)))
        return np.array([self.probs[pair] for pair in zip(premises, hypotheses)]).reshape(-1, 3)


def verdict_row(checker: Any, task: Any, verdict: Any) -> dict[str, Any]:
    """A verdict's label, rule and deciding window (reference, window number, text) as plain JSON."""
    window = None
    if verdict.segment_span is not None and verdict.evidence_reference is not None:
        spans = [span for _, span in checker.segments(task.references[verdict.evidence_reference])]
        span = verdict.segment_span
        window = {
            "reference": verdict.evidence_reference,
            "window": spans.index(span) if span in spans else None,
            "text": task.references[verdict.evidence_reference][span.start : span.end],
        }
    return {
        "label": verdict.label.value if verdict.label else None,
        "rule": verdict.rule,
        "probs": list(verdict.probs) if verdict.probs else None,
        "deciding_window": window,
        "reason": verdict.reason,
    }


def load_cache(path: Path) -> dict[str, Any]:
    """The cache at ``path``, or an empty one."""
    if path.exists():
        with path.open("rb") as handle:
            found: dict[str, Any] = pickle.load(handle)
        return found
    return {"records": {}, "probs": {}, "load_seconds": None}


def save_cache(path: Path, cache: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".part")
    with partial.open("wb") as handle:
        pickle.dump(cache, handle)
    partial.replace(path)


def tasks_of(record: dict[str, Any]) -> list[Any]:
    from factscope.checkers.base import CheckTask

    return [CheckTask(claim=claim, references=tuple(record["pages"])) for claim in record["claims"]]


def counted_verdicts(checker: Any, tasks: Sequence[Any]) -> list[Any]:
    """Exact mode's verdicts from the windows its labels depend on (see the module docstring), in one call."""
    selected = [checker.candidates(task) for task in tasks]
    wanted = []
    for candidates in selected:
        indices = [index for index, candidate in enumerate(candidates) if checker._counts(candidate)]
        if not indices and candidates:
            indices = [max(range(len(candidates)), key=lambda index: candidates[index].relevance or 0.0)]
        wanted.append(indices)
    pairs = list(
        dict.fromkeys(
            (selected[number][index].text, task.claim)
            for number, task in enumerate(tasks)
            for index in wanted[number]
        )
    )
    probs = (
        dict(zip(pairs, checker.scorer.score([p for p, _ in pairs], [h for _, h in pairs]))) if pairs else {}
    )
    return [
        checker.decide(
            task,
            [
                checker._judge(candidates[index], probs[(candidates[index].text, task.claim)])
                for index in indices
            ],
        )
        for task, candidates, indices in zip(tasks, selected, wanted)
    ]


def exact_run(
    records: Sequence[dict[str, Any]], cache_path: Path, device: str = "cpu", windows: str = "all"
) -> dict[str, Any]:
    """Exact mode on every record not yet in the cache at ``cache_path`` (``windows``: "all", exact mode itself;
    "counted", the windows its labels depend on); the cache, updated after each record."""
    from factscope.checkers.registry import make_checker

    cache = load_cache(cache_path)
    missing = [record for record in records if record["id"] not in cache["records"]]
    if not missing:
        return cache
    started = time.perf_counter()
    checker: Any = make_checker("embedded", mode="exact", device=device)
    cache["load_seconds"] = time.perf_counter() - started
    for record in missing:
        recording = RecordingScorer(checker.scorer)
        checker.scorer = recording
        tasks = tasks_of(record)
        started = time.perf_counter()
        verdicts = checker.check(tasks) if windows == "all" else counted_verdicts(checker, tasks)
        seconds = time.perf_counter() - started
        checker.scorer = recording.scorer
        cache["probs"].update(recording.probs)
        cache["records"][record["id"]] = {
            "windows": windows,
            "seconds": seconds,
            "pairs_scored": recording.pairs,
            "verdicts": [verdict_row(checker, task, verdict) for task, verdict in zip(tasks, verdicts)],
        }
        save_cache(cache_path, cache)
        print(f"exact ({windows}) {record['id']}: {seconds:.1f} s, {recording.pairs} pairs", flush=True)
    return cache
