"""Exact against fast mode on long real pages: identical labels, speed-up, and every changed label explained.

Records (``long_page_records``): several real claims of a public set against as many pages of about
``--page-tokens`` tokens (ContractNLI's contracts as they are; Factcheck-GPT's web snippets, ConTRoL's passages
and SummEdits' documents among others of their set). The checker is ``check``'s default, built as the command
builds it (``make_checker("embedded")``; fast mode through ``pruning_checker``: sentence windows of 1 and 2 sentences, lexical relevance
floor, value check).

- **exact**: each record's exact labels, deciding windows and seconds are kept in the results file and every
  pair's probabilities in a cache file (``exact_baseline``), so a rerun compares fast mode against them without
  rerunning exact mode (a record whose claims or pages changed is rerun). ``--exact-windows all`` runs exact mode
  itself; ``counted`` (the default for records not yet run) scores only the windows exact mode's label depends
  on and decides as exact mode does: the same labels, probabilities and deciding windows at a tenth of the
  pairs, checked against the records run in full (``counted_check``). Exact mode's seconds come from the records
  run in full;
- **fast**: the model loaded and warmed up on one short claim (timed apart), then each record checked in fast mode with escalation (the default)
  and without it (``escalate=False``, pruning alone), each timed; the ``--same-run`` records are also checked in
  exact mode in this run, for a speed-up measured under the same load;
- **changed labels**: for each claim whose fast label is not exact mode's (with escalation, and with pruning
  alone), both verdicts, the window that decided
  exact mode's label and why fast mode did not score it (its BM25 rank against ``top_k``, or no shared word; and
  why the claim was not escalated);
- **trade-off**: exact mode's probabilities replayed through fast mode at several ``exact_margin`` values and with
  escalation off: identical labels against the pairs scored; drawn to ``--svg``.
- **systems**: ``ground``, ``knowledge`` and ``attribute`` on the same pages are ``fast_mode_long_page_systems``.

The CPU is shared with other work, so seconds are inflated by an amount that varies in time: the load average
is recorded at the start and end, and ratios measured in the same run (``same_run``) are the ones to compare.

    HF_HUB_OFFLINE=1 python benchmarks/fast_mode_long_pages.py --svg docs/images/fast_mode_trade_off.svg
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from exact_baseline import (
    DEFAULT_CACHE,
    ReplayScorer,
    counted_verdicts,
    exact_run,
    load_cache,
    tasks_of,
    verdict_row,
)
from long_page_records import add_record_options, records_from_options
from pruning_checker import pruning_checker
from results_file import RESULTS_DIR, add_out_option, load_average, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")

DEFAULT_OUT = RESULTS_DIR / "fast_mode_long_pages.json"


def fingerprint(record: dict[str, Any]) -> str:
    """A hash of a record's claims and pages: an exact result is reused only for the same record."""
    text = json.dumps([record["claims"], record["pages"]])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def exact_baseline(
    records: list[dict[str, Any]], previous: Path, cache_path: Path, windows: str
) -> dict[str, Any]:
    """Exact mode's rows per record id: from ``previous`` (an earlier results file) where the record is the same,
    else from the cache at ``cache_path`` (running exact mode on the records it lacks)."""
    earlier: dict[str, Any] = {}
    load_seconds = None
    if previous.exists():
        found = json.loads(previous.read_text(encoding="utf-8"))["figures"].get("check", {})
        load_seconds = found.get("exact", {}).get("load_seconds")
        earlier = {row["id"]: row for row in found.get("records", [])}
    known = {
        record["id"]: earlier[record["id"]]["exact"]
        for record in records
        if record["id"] in earlier and earlier[record["id"]]["fingerprint"] == fingerprint(record)
    }
    missing = [record for record in records if record["id"] not in known]
    if missing:
        cache = exact_run(missing, cache_path, windows=windows)
        load_seconds = cache["load_seconds"]
        known.update({record["id"]: cache["records"][record["id"]] for record in missing})
    return {"load_seconds": load_seconds, "records": known}


def candidate_of(checker: Any, task: Any, window: dict[str, Any] | None) -> int | None:
    """The index (into ``checker.candidates(task)``) of an exact verdict's deciding window."""
    if window is None or window.get("window") is None:
        return None
    for index, candidate in enumerate(checker.candidates(task)):
        if candidate.reference == window["reference"] and candidate.segment == window["window"]:
            return index
    return None


def why_not_scored(checker: Any, task: Any, exact: dict[str, Any], fast: Any) -> str:
    """Why fast mode's pruning did not read the window that decided exact mode's label, and why the claim was not
    escalated to exact scoring."""
    from factscope.checkers.pruning import FastSettings, SegmentRanker

    candidates = checker.candidates(task)
    index = candidate_of(checker, task, exact["deciding_window"])
    if index is None:
        return "exact mode's verdict names no deciding window"
    target = candidates[index]
    counted = [checker._counts(candidate) for candidate in candidates]
    ranked = SegmentRanker(FastSettings(top_k=len(candidates) + 1)).keep(
        [task.claim], [[candidate.text for candidate in candidates]], [counted]
    )[0]
    top_k = checker.fast.top_k
    if not counted[index]:
        reason = (
            f"the window is under the relevance floor ({target.relevance:.0%} of the claim's content words)"
        )
    elif index not in ranked:
        reason = "the window shares no word with the claim that BM25 scores above zero"
    elif ranked.index(index) >= top_k:
        reason = (
            f"BM25 ranked the window {ranked.index(index) + 1} of {len(ranked)}, outside the top_k {top_k}"
        )
    else:
        reason = (
            f"BM25 ranked the window {ranked.index(index) + 1}, inside the top_k {top_k}, after an early stop"
        )
    path = fast.fast_path
    relevance = f"{target.relevance:.0%}" if target.relevance is not None else "n/a"
    return (
        f"{reason}; its lexical relevance {relevance}; the claim was decided on the {path} path "
        f"(pruned label {fast.label.value if fast.label else None}, exact_margin {checker.fast.exact_margin})"
    )


def check_fast(records: list[dict[str, Any]], exact: dict[str, Any], same_run: list[str]) -> dict[str, Any]:
    """Fast mode with and without escalation on every record, timed, against exact mode's labels."""
    from factscope.checkers.base import CheckTask

    started = time.perf_counter()
    checker: Any = pruning_checker("embedded")
    checker.check([CheckTask(claim="The museum opened in 1990.", references=("The museum opened in 1990.",))])
    load_seconds = time.perf_counter() - started
    escalating = checker.fast
    pruning = replace(escalating, escalate=False)
    rows, changed = [], []
    for record in records:
        tasks = tasks_of(record)
        timings: dict[str, Any] = {}
        for name, settings in (("fast", escalating), ("pruned_only", pruning)):
            checker.fast = settings
            counting = _Counting(checker.scorer)
            checker.scorer = counting
            began = time.perf_counter()
            verdicts = checker.check(tasks)
            timings[name] = {
                "seconds": time.perf_counter() - began,
                "pairs_scored": counting.pairs,
                "verdicts": verdicts,
            }
            checker.scorer = counting.scorer
        exact_rows = exact["records"][record["id"]]["verdicts"]
        for name, settings in (("fast", escalating), ("pruned_only", pruning)):
            checker.fast = settings
            for number, (task, verdict, row) in enumerate(zip(tasks, timings[name]["verdicts"], exact_rows)):
                label = verdict.label.value if verdict.label else None
                if label != row["label"]:
                    changed.append(
                        {
                            "setting": name,
                            "record": record["id"],
                            "claim": number,
                            "text": task.claim,
                            "exact": row,
                            "fast": {**verdict_row(checker, task, verdict), "fast_path": verdict.fast_path},
                            "why_not_scored": why_not_scored(checker, task, row, verdict),
                        }
                    )
        checker.fast = escalating
        rows.append(
            {
                "id": record["id"],
                "set": record["set"],
                "fingerprint": fingerprint(record),
                "claims": record["claims"],
                "exact": exact["records"][record["id"]],
                "fast": {
                    name: {
                        "seconds": found["seconds"],
                        "pairs_scored": found["pairs_scored"],
                        "labels": [v.label.value if v.label else None for v in found["verdicts"]],
                        "fast_path": [v.fast_path for v in found["verdicts"]],
                    }
                    for name, found in timings.items()
                },
            }
        )
        print(
            f"fast {record['id']}: {timings['fast']['seconds']:.2f} s, {timings['fast']['pairs_scored']} pairs, "
            f"pruned only {timings['pruned_only']['seconds']:.2f} s",
            flush=True,
        )
    chosen = [record for record in records if record["id"] in same_run]
    same = same_run_exact(checker, chosen) if chosen else None
    return {"load_seconds": load_seconds, "rows": rows, "changed": changed, "same_run": same}


class _Counting:
    """Counts the distinct (premise, hypothesis) pairs passed on to a scorer."""

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer
        self.name = scorer.name
        self.pairs = 0

    def score(self, premises: Any, hypotheses: Any) -> Any:
        self.pairs += len(set(zip(premises, hypotheses)))
        return self.scorer.score(premises, hypotheses)

    def count_tokens(self, text: str) -> int:
        return int(self.scorer.count_tokens(text))


def same_run_exact(checker: Any, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Exact mode and fast mode again on ``records`` in this run, one after the other with the same model and the
    windows already cut: the speed-up under the same load."""
    from factscope.checkers.options import CheckerOptions
    from factscope.checkers.segmented import SegmentedChecker

    options = CheckerOptions(
        max_tokens=checker.max_tokens,
        window_sentences=checker.window_sentences,
        min_window_sentences=checker.min_window_sentences,
        relevance=checker.relevance,
        min_relevance=checker.min_relevance if checker.relevance == "lexical" else None,
        min_confidence=checker.min_confidence,
        threshold=checker.decision.threshold,
    )
    exact = SegmentedChecker(checker.scorer, options, name=checker.name, value_check=checker._mismatch)
    seconds = {"exact": 0.0, "fast": 0.0}
    for record in records:
        for name, chosen in (("exact", exact), ("fast", checker)):
            began = time.perf_counter()
            chosen.check(tasks_of(record))
            seconds[name] += time.perf_counter() - began
    return {
        "records": [r["id"] for r in records],
        "exact_seconds": seconds["exact"],
        "fast_seconds": seconds["fast"],
        "speedup": seconds["exact"] / seconds["fast"],
        "load_average": load_average(),
    }


def replay_sweep(
    records: list[dict[str, Any]], exact: dict[str, Any], margins: list[float], cache_path: Path
) -> list[dict[str, Any]] | None:
    """Identical labels and pairs scored when exact mode's probabilities are replayed through fast mode at each
    ``exact_margin``, and with escalation off; None without the probability cache."""
    from factscope.checkers.embedded import load_embedded_scorer

    cache = load_cache(cache_path)
    if not all(record["id"] in cache["records"] for record in records):
        return None
    count_tokens = load_embedded_scorer().count_tokens
    checker: Any = pruning_checker("embedded")
    every_pair = sum(exact_pairs(checker, record) for record in records)
    settings = [("pruned only", replace(checker.fast, escalate=False))]
    settings += [
        (f"exact_margin {margin:g}", replace(checker.fast, exact_margin=margin)) for margin in margins
    ]
    found = []
    for name, chosen in settings:
        checker.fast = chosen
        same = total = pairs = escalated = 0
        for record in records:
            replay = ReplayScorer(cache["probs"], count_tokens)
            checker.scorer = replay
            verdicts = checker.check(tasks_of(record))
            pairs += replay.pairs
            for verdict, row in zip(verdicts, exact["records"][record["id"]]["verdicts"]):
                total += 1
                same += (verdict.label.value if verdict.label else None) == row["label"]
                escalated += verdict.fast_path == "exact"
        found.append(
            {
                "setting": name,
                "identical": same / total,
                "claims": total,
                "escalated": escalated,
                "pairs_scored": pairs,
                "pair_reduction": every_pair / max(pairs, 1),
            }
        )
    return found


def counted_check(
    records: list[dict[str, Any]], exact: dict[str, Any], cache_path: Path
) -> dict[str, Any] | None:
    """On the records run in full exact mode: how many verdicts the counted windows alone reproduce (label,
    probabilities and deciding window), replaying the cached probabilities; None without the cache."""
    from factscope.checkers.embedded import load_embedded_scorer
    from factscope.checkers.registry import make_checker

    cache = load_cache(cache_path)
    full = [
        r
        for r in records
        if exact["records"][r["id"]].get("windows", "all") == "all" and r["id"] in cache["records"]
    ]
    if not full:
        return None
    checker: Any = make_checker("embedded", mode="exact")
    checker.scorer = ReplayScorer(cache["probs"], load_embedded_scorer().count_tokens)
    same = total = 0
    for record in full:
        tasks = tasks_of(record)
        for task, verdict, row in zip(
            tasks, counted_verdicts(checker, tasks), exact["records"][record["id"]]["verdicts"]
        ):
            found = verdict_row(checker, task, verdict)
            total += 1
            same += all(found[key] == row[key] for key in ("label", "probs", "deciding_window"))
    return {
        "records": [r["id"] for r in full],
        "claims": total,
        "identical_verdicts": same,
        "pairs_scored": checker.scorer.pairs,
    }


def draw(sweep: list[dict[str, Any]], path: Path) -> None:
    """The trade-off picture: identical labels against times fewer pairs scored than exact mode (replay)."""
    from factscope.plots.scatter import Point, trade_off

    names: dict[tuple[float, float, str], list[str]] = {}
    for row in sweep:
        series = "" if row["setting"] == "pruned only" else "escalation"
        key = (row["pair_reduction"], row["identical"] * 100, series)
        names.setdefault(key, []).append(row["setting"].replace("exact_margin ", ""))
    points = [
        Point(", ".join(found) if series == "" else "margin " + ", ".join(found), x, y, series)
        for (x, y, series), found in names.items()
    ]
    title = f"Fast mode on {sweep[0]['claims']} claims against long pages: identical labels against speed"
    svg = trade_off(
        points,
        title=title,
        x_title="times fewer (window, claim) pairs scored than exact mode",
        y_title="labels identical to exact mode (%)",
        y_digits=1,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        svg.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1) + "\n", encoding="utf-8"
    )


def exact_pairs(checker: Any, record: dict[str, Any]) -> int:
    """The distinct (window, claim) pairs exact mode scores for ``record``."""
    return len(
        {(candidate.text, task.claim) for task in tasks_of(record) for candidate in checker.candidates(task)}
    )


def summary(records: list[dict[str, Any]], exact: dict[str, Any], fast: dict[str, Any]) -> dict[str, Any]:
    """Identical labels, escalations, seconds and speed-ups, with model loading counted and stated."""
    from factscope.checkers.registry import make_checker

    rows = fast["rows"]
    checker = make_checker("embedded", mode="exact")
    every_pair = sum(exact_pairs(checker, record) for record in records)
    full = [row for row in rows if row["exact"].get("windows", "all") == "all"]
    exact_seconds = sum(row["exact"]["seconds"] for row in full)
    figures: dict[str, Any] = {
        "records": len(rows),
        "claims": sum(len(row["claims"]) for row in rows),
        "exact": {
            "pairs": every_pair,
            "timed_records": [row["id"] for row in full],
            "load_seconds": exact["load_seconds"],
            "check_seconds": exact_seconds,
            "pairs_scored": sum(row["exact"]["pairs_scored"] for row in full),
        },
    }
    exact_labels = [v["label"] for row in rows for v in row["exact"]["verdicts"]]
    for name in ("fast", "pruned_only"):
        labels = [label for row in rows for label in row["fast"][name]["labels"]]
        seconds = [row["fast"][name]["seconds"] for row in rows]
        timed = sum(row["fast"][name]["seconds"] for row in full)
        paths = [path for row in rows for path in row["fast"][name]["fast_path"]]
        pairs = sum(row["fast"][name]["pairs_scored"] for row in rows)
        figures[name] = {
            "identical": sum(a == b for a, b in zip(labels, exact_labels)) / len(labels),
            "changed": sum(a != b for a, b in zip(labels, exact_labels)),
            "escalated": paths.count("exact"),
            "load_seconds": fast["load_seconds"],
            "check_seconds": sum(seconds),
            "record_seconds_median": statistics.median(seconds),
            "record_seconds_max": max(seconds),
            "pairs_scored": pairs,
            "pair_reduction": every_pair / max(pairs, 1),
            "timed_records_check_seconds": timed,
            "speedup_with_loading": (exact["load_seconds"] + exact_seconds) / (fast["load_seconds"] + timed)
            if full
            else None,
            "speedup_without_loading": exact_seconds / timed if full else None,
        }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_record_options(parser, sets=("contractnli=6", "factcheckgpt=6", "control=6", "summedits=6"))
    parser.add_argument("--claims", type=int, default=6, help="claims (and pages) per record")
    parser.add_argument(
        "--first-record",
        type=int,
        default=0,
        help="leave out each set's records numbered below this (the development records that chose the margin "
        "are numbers 6 and 7 of --sets NAME=8)",
    )
    parser.add_argument(
        "--exact-cache",
        type=Path,
        default=DEFAULT_CACHE,
        help="exact mode's probabilities (a pickle outside the repository)",
    )
    parser.add_argument(
        "--exact-windows",
        choices=["all", "counted"],
        default="counted",
        help="records not yet run: exact mode itself, or the windows its labels depend on",
    )
    parser.add_argument(
        "--same-run",
        nargs="*",
        default=["contractnli-0"],
        help="ids of records also checked in exact mode in this run, for a same-load speed-up",
    )
    parser.add_argument("--margins", type=float, nargs="+", default=[0.0, 0.2, 0.4, 0.5, 0.6, 0.8, 1.0])
    parser.add_argument("--svg", type=Path, help="write the trade-off picture here")
    add_out_option(parser)
    args = parser.parse_args()
    records = records_from_options(args, args.claims)
    records = [record for record in records if int(record["id"].rsplit("-", 1)[1]) >= args.first_record]
    out = args.out or DEFAULT_OUT
    start_load = load_average()
    exact = exact_baseline(records, out, args.exact_cache, args.exact_windows)
    fast = check_fast(records, exact, args.same_run)
    figures: dict[str, Any] = {"load_average_start": start_load}
    check = summary(records, exact, fast)
    check["same_run"] = fast["same_run"]
    check["changed_labels"] = fast["changed"]
    check["records"] = fast["rows"]
    check["trade_off"] = replay_sweep(records, exact, args.margins, args.exact_cache)
    check["counted_check"] = counted_check(records, exact, args.exact_cache)
    figures["check"] = check
    figures["load_average_end"] = load_average()
    print(
        json.dumps(
            {key: value for key, value in check.items() if key not in ("records", "changed_labels")},
            indent=2,
            default=str,
        )
    )
    if args.svg and check["trade_off"]:
        draw(check["trade_off"], args.svg)
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
