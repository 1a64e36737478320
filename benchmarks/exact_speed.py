"""The shipped checker's exact mode against RefChecker's default checker, on the same short records.

A record is a response of ``--claims`` claims checked against ``--references`` references of about ``--words``
words. They are built from SummEdits (``--data``, the ``claims/summedits.jsonl`` of the shared data): each
reference is the opening of one document, cut at the sentence end nearest ``--words`` words; each claim is the
first sentence of one summary of one of the record's documents (SummEdits' summaries are consistent or not).

Each path checks every claim of every record in one batch, its model loaded before the clock starts; the paths
run in turn, ``--repeats`` times, and the median is kept:

- ``decisive``: the shipped checker in exact mode with its default layout (1- and 2-sentence windows), scoring only
  the windows that can decide a label, those over the relevance floor (the default ``exact_scoring``);
- ``every``: the same, every claim scored against every window;
- ``segments``: the same checker on 200-token segments (RefChecker's layout), ``decisive``;
- ``refchecker``: RefChecker's default checker (NLIChecker: RoBERTa-large, 24 layers, hidden 1024) with random
  weights, which take as long as the trained ones, on RefChecker's pairs: each claim against each 200-token
  segment, batches of 16 in input order (as ``fast_mode.py`` times it in this process).

Figures: seconds (wall clock, and the process's CPU time, which other work on the machine disturbs less) and pairs
per path, each factscope path's speed against RefChecker's by both, and the labels of ``decisive`` against
``every`` (identical by construction; counted here). Written to
``benchmarks/results/exact_speed.json`` (see ``results_file``).

    HF_HUB_OFFLINE=1 python benchmarks/exact_speed.py --records 8 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

from fast_mode import REFCHECKER_BATCH_SIZE, CountingScorer, first_sentence, time_refchecker_nli
from results_file import add_out_option, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")

DEFAULT_DATA = Path("/work/shared/data/claims/summedits.jsonl")


def opening(document: str, words: int) -> str:
    """The first sentences of ``document`` up to the sentence end nearest ``words`` words."""
    from factscope.core.text import sentence_spans

    best, taken = document, None
    for span in sentence_spans(document):
        count = len(document[: span.end].split())
        if taken is None or abs(count - words) < abs(taken - words):
            best, taken = document[: span.end], count
    return best.strip()


def build_records(data: Path, n_records: int, n_claims: int, n_references: int, words: int, seed: int) -> list[dict]:
    """Records of ``n_claims`` claims against ``n_references`` document openings of about ``words`` words."""
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines() if line.strip()]
    summaries: dict[str, list[str]] = {}
    for row in rows:
        summaries.setdefault(row["premise"].strip(), []).append(row["hypothesis"])
    documents = sorted(doc for doc in summaries if len(doc.split()) >= words)
    generator = random.Random(seed)
    records = []
    for number in range(n_records):
        own = generator.sample(documents, n_references)
        claims = [first_sentence(generator.choice(summaries[generator.choice(own)])) for _ in range(n_claims)]
        records.append({"id": f"r{number}", "claims": claims, "references": [opening(doc, words) for doc in own]})
    return records


def factscope_path(scorer: Any, **layout: Any) -> Any:
    """The shipped checker's exact mode over ``scorer`` (loaded once) with ``layout``."""
    from factscope.checkers.options import CheckerOptions
    from factscope.checkers.registry import _checker_defaults, _segmented

    return _segmented(scorer, _checker_defaults(scorer.scorer, CheckerOptions(**layout)), name="embedded")


def run_path(checker: Any, tasks: list[Any]) -> dict[str, Any]:
    """Seconds, distinct pairs scored and labels of one pass over ``tasks``."""
    checker.scorer.pairs = 0
    started, cpu = time.perf_counter(), time.process_time()
    verdicts = checker.check(tasks)
    return {
        "seconds": time.perf_counter() - started,
        "cpu_seconds": time.process_time() - cpu,
        "pairs": checker.scorer.pairs,
        "labels": [verdict.label.value for verdict in verdicts],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="SummEdits JSONL (premise, hypothesis)")
    parser.add_argument("--records", type=int, default=8, help="records (default 8)")
    parser.add_argument("--claims", type=int, default=4, help="claims per record (default 4)")
    parser.add_argument("--references", type=int, default=3, help="references per record (default 3)")
    parser.add_argument("--words", type=int, default=170, help="words per reference (default 170)")
    parser.add_argument("--repeats", type=int, default=3, help="passes per path; the median is kept (default 3)")
    parser.add_argument("--seed", type=int, default=13)
    add_out_option(parser)
    args = parser.parse_args()

    from factscope.checkers.base import CheckTask
    from factscope.checkers.embedded import load_embedded_scorer
    from factscope.core.text import segment_spans

    records = build_records(args.data, args.records, args.claims, args.references, args.words, args.seed)
    tasks = [CheckTask(claim=claim, references=tuple(r["references"])) for r in records for claim in r["claims"]]
    scorer = CountingScorer(load_embedded_scorer())
    paths = {
        "decisive": factscope_path(scorer, window_sentences=None, exact_scoring="decisive"),
        "every": factscope_path(scorer, window_sentences=None, exact_scoring="every"),
        "segments": factscope_path(scorer, window_sentences=0),
    }
    segments = {
        reference: [reference[s.start : s.end] for s in segment_spans(reference, scorer.count_tokens, 200)]
        for record in records
        for reference in record["references"]
    }
    refchecker_pairs = [(segment, task.claim) for task in tasks for ref in task.references for segment in segments[ref]]
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in [*paths, "refchecker"]}
    factscope_path(scorer, window_sentences=None).check(tasks[:2])
    for _ in range(args.repeats):
        for name, checker in paths.items():
            runs[name].append(run_path(checker, tasks))
        cpu = time.process_time()
        timed = time_refchecker_nli(
            [p for p, _ in refchecker_pairs], [h for _, h in refchecker_pairs], "cpu", REFCHECKER_BATCH_SIZE
        )
        runs["refchecker"].append(
            {"seconds": timed["seconds"], "cpu_seconds": time.process_time() - cpu, "pairs": timed["pairs"]}
        )
    seconds = {name: statistics.median(run["seconds"] for run in found) for name, found in runs.items()}
    cpu_seconds = {name: statistics.median(run["cpu_seconds"] for run in found) for name, found in runs.items()}
    decisive, every = runs["decisive"][0]["labels"], runs["every"][0]["labels"]
    figures = {
        "records": len(records),
        "claims": len(tasks),
        "reference_words": [len(ref.split()) for record in records for ref in record["references"]],
        "reference_tokens": [scorer.count_tokens(ref) for record in records for ref in record["references"]],
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "seconds_each_repeat": {name: [run["seconds"] for run in found] for name, found in runs.items()},
        "pairs": {name: found[0]["pairs"] for name, found in runs.items()},
        "times_as_fast_as_refchecker": {name: seconds["refchecker"] / seconds[name] for name in paths},
        "times_as_fast_as_refchecker_cpu": {name: cpu_seconds["refchecker"] / cpu_seconds[name] for name in paths},
        "decisive_over_every": seconds["every"] / seconds["decisive"],
        "decisive_over_every_cpu": cpu_seconds["every"] / cpu_seconds["decisive"],
        "identical_labels_decisive_vs_every": sum(a == b for a, b in zip(decisive, every)),
        "labels_all": dict(sorted({label: every.count(label) for label in set(every)}.items())),
    }
    write_results(__file__, args, figures)
    print(json.dumps({k: v for k, v in figures.items() if k not in ("reference_words", "reference_tokens")}, indent=1))


if __name__ == "__main__":
    main()
