"""Seconds a realistic record takes in fast mode, for each checker a user chooses between.

A realistic record is six real claims against six pages of about 2,000 tokens (``long_page_records``: ContractNLI's
contracts, Factcheck-GPT's web snippets, ConTRoL's passages, SummEdits' documents). For each checker spec
(``--checkers``; by default the embedded checker, the mpnet one and the cascade of the two) the checker is built
on the pruning path (``pruning_checker``; the checkers' ``mode`` 'fast' is deprecated) in a fresh process (no model, cache or scored pair carries over from
another checker), loaded and warmed up on one short claim (the load is timed apart and not counted), then each
record is checked and timed. The figures are the median and largest seconds a record, the
pairs (window, claim) scored a second, and for the cascade the share of claims it escalated.

``--exact-records N`` also checks the first N records with the embedded checker in exact mode in the same run, for
the fast-mode speed-up measured under the same conditions: with ``--exact-scoring decisive`` (the default, only the
windows that can decide a label) and ``every`` (every window), each in its own process. Run it on an otherwise idle machine: the 1-minute load
average is recorded at the start and the end.

``--targets`` measures instead the three speed targets of exact checking on a CPU (``speed_targets``): a realistic
record in exact mode in ONNX Runtime against PyTorch, the mpnet checker's time a pair against the default's, and a
CLI run's first verdict; each with its median and largest seconds, written to ``results/record_speed_targets.json``
unless ``--out`` says otherwise.

    HF_HUB_OFFLINE=1 python benchmarks/record_speed.py --exact-records 2
    HF_HUB_OFFLINE=1 nice -n 10 python benchmarks/record_speed.py --targets --repeats 3
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time
from pathlib import Path
from typing import Any

from exact_baseline import tasks_of
from long_page_records import add_record_options, records_from_options
from pruning_checker import pruning_checker
from results_file import RESULTS_DIR, add_out_option, load_average, write_results
from speed_targets import cli_target, mpnet_target, record_target

os.environ.setdefault("HF_HUB_OFFLINE", "1")

CHECKERS = ("embedded", "mpnet", "cascade:embedded,mpnet")
SETS = ("contractnli=1", "factcheckgpt=1", "control=1", "summedits=1")


class CountingScorer:
    """A scorer that passes every call on and counts the (premise, hypothesis) pairs it scores."""

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer
        self.pairs = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.scorer, name)

    def score(self, premises: Any, hypotheses: Any) -> Any:
        """The wrapped scorer's probabilities, counted."""
        self.pairs += len(premises)
        return self.scorer.score(premises, hypotheses)


def counted(checker: Any) -> list[CountingScorer]:
    """Wrap the scorer of every segmented checker inside ``checker`` (a cascade holds two) with a counter."""
    members = [checker.first, checker.second] if hasattr(checker, "second") else [checker]
    counters = []
    for member in members:
        if hasattr(member, "scorer"):
            member.scorer = CountingScorer(member.scorer)
            counters.append(member.scorer)
    return counters


def time_checker(
    spec: str, mode: str, records: list[dict[str, Any]], exact_scoring: str = "decisive"
) -> dict[str, Any]:
    """:func:`time_in_process` in a fresh process."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(time_in_process, (spec, mode, records, exact_scoring))


def time_in_process(
    spec: str, mode: str, records: list[dict[str, Any]], exact_scoring: str
) -> dict[str, Any]:
    """Load ``spec`` (timed apart), then check and time each record."""
    from factscope.checkers.base import CheckTask
    from factscope.checkers.registry import make_checker

    started = time.perf_counter()
    checker = (
        pruning_checker(spec)
        if mode == "fast"
        else make_checker(spec, mode=mode, exact_scoring=exact_scoring)
    )
    checker.check([CheckTask(claim="The museum opened in 1990.", references=("The museum opened in 1990.",))])
    load_seconds = time.perf_counter() - started
    counters = counted(checker)
    seconds, escalated, claims, labels = [], 0, 0, []
    for record in records:
        began = time.perf_counter()
        verdicts = checker.check(tasks_of(record))
        seconds.append(time.perf_counter() - began)
        escalated += sum(bool(verdict.escalated) for verdict in verdicts)
        claims += len(verdicts)
        labels += [verdict.label.value for verdict in verdicts]
        print(f"{spec} ({mode}) {record['id']}: {seconds[-1]:.2f} s", flush=True)
    pairs = sum(counter.pairs for counter in counters)
    return {
        "load_seconds": load_seconds,
        "record_seconds": dict(zip((record["id"] for record in records), seconds)),
        "record_seconds_median": statistics.median(seconds),
        "record_seconds_max": max(seconds),
        "pairs_scored": pairs,
        "pairs_per_second": pairs / sum(seconds),
        "share_escalated": escalated / claims if spec.startswith("cascade") else None,
        "labels": labels,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_record_options(parser, SETS)
    parser.add_argument("--checkers", nargs="+", default=list(CHECKERS), help="checker specs to time")
    parser.add_argument("--exact-records", type=int, default=0, help="records also checked in exact mode")
    parser.add_argument(
        "--exact-scoring",
        nargs="+",
        choices=("decisive", "every"),
        default=["decisive", "every"],
        help="exact mode's scorings to time (default both)",
    )
    parser.add_argument("--targets", action="store_true", help="measure the three speed targets instead")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each target (default 3)")
    parser.add_argument(
        "--baseline-src",
        type=Path,
        help="the src folder of the previous version, whose CLI runs are timed in turn",
    )
    parser.add_argument(
        "--only", nargs="+", choices=("record", "mpnet", "cli"), help="targets to measure (default all)"
    )
    parser.add_argument(
        "--mpnet-pairs", type=int, default=200, help="pairs of the mpnet target (default 200)"
    )
    parser.add_argument(
        "--also-time",
        nargs="+",
        default=[],
        metavar="NAME=FOLDER",
        help="checker folders the mpnet target also times over the default (a candidate successor)",
    )
    add_out_option(parser)
    args = parser.parse_args()
    records = records_from_options(args, claims=6)
    if args.targets:
        args.out = args.out or RESULTS_DIR / "record_speed_targets.json"
        targets: dict[str, Any] = {
            "load_average_start": load_average(),
            "records": [r["id"] for r in records],
        }
        chosen = set(args.only or ("record", "mpnet", "cli"))
        if "record" in chosen:
            targets["record"] = record_target(records, args.repeats)
        if "mpnet" in chosen:
            others = dict(item.split("=", 1) for item in args.also_time)
            targets["mpnet"] = mpnet_target(
                records, args.repeats, args.mpnet_pairs, {name: Path(f) for name, f in others.items()}
            )
        if "cli" in chosen:
            targets["cli"] = cli_target(args.repeats, args.baseline_src)
        targets["load_average_end"] = load_average()
        write_results(__file__, args, targets)
        return
    figures: dict[str, Any] = {"load_average_start": load_average(), "records": [r["id"] for r in records]}
    figures["fast"] = {spec: time_checker(spec, "fast", records) for spec in args.checkers}
    if args.exact_records:
        fast = figures["fast"].get("embedded") or time_checker(
            "embedded", "fast", records[: args.exact_records]
        )
        for scoring in args.exact_scoring:
            exact = time_checker("embedded", "exact", records[: args.exact_records], scoring)
            same = [fast["record_seconds"][record] for record in exact["record_seconds"]]
            figures[f"exact_embedded_{scoring}"] = exact
            figures[f"fast_speedup_over_{scoring}"] = sum(exact["record_seconds"].values()) / sum(same)
            figures[f"fast_labels_same_as_{scoring}"] = sum(
                a == b for a, b in zip(exact["labels"], fast["labels"][: len(exact["labels"])])
            )
    figures["load_average_end"] = load_average()
    print(f"written to {write_results(__file__, args, figures)}")


if __name__ == "__main__":
    main()
