"""How often the value mismatch check fires on human-labelled claim / evidence pairs.

For each labelled set (JSONL with ``premise``, ``hypothesis``, ``label``), ``find_mismatch`` is run with the
premise as ``context`` and, as ``evidence``, the premise sentence with the highest word overlap with the claim
(as the segmented checker passes the deciding sentence and its segment); ``--evidence premise`` passes the whole
premise as evidence instead. On pairs labelled ``entailment`` a firing is a false alarm; on every other label
(``not_entailment``, ``neutral``, ``contradiction``) it is a catch. Rates are given per set, per label and per
kind, with the CPU time per pair (mean, median, 95th percentile; process time, so that other work on a shared
machine does not count) after a warm-up pass.

    HF_HUB_OFFLINE=1 python benchmarks/mismatch_precision.py /work/shared/data/claims/{factcheckgpt,summedits,begin}.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter
from pathlib import Path

from results_file import add_out_option, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def evidence_of(claim: str, premise: str, mode: str) -> str:
    """The evidence passed for one pair: the best-overlap sentence of the premise, or the whole premise."""
    from factscope.checkers.evidence import best_sentence

    if mode == "premise":
        return premise
    span = best_sentence(claim, premise)
    return premise[span.start : span.end] if span else premise


def measure(path: Path, mode: str, kinds: list[str], show: int) -> dict:
    """Firing rates by label and kind for one labelled set."""
    from factscope.checkers.mismatch import find_mismatch

    with path.open(encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    pairs = [
        (r["hypothesis"], evidence_of(r["hypothesis"], r["premise"], mode), r["premise"], r["label"])
        for r in records
    ]
    for claim, evidence, premise, _ in pairs[:50]:
        find_mismatch(claim, evidence, context=premise, kinds=kinds)
    totals: Counter[str] = Counter()
    fired: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = {}
    contradicted: Counter[str] = Counter()
    shown = 0
    cpu: list[float] = []
    for claim, evidence, premise, label in pairs:
        totals[label] += 1
        started = time.process_time()
        found = find_mismatch(claim, evidence, context=premise, kinds=kinds)
        cpu.append(time.process_time() - started)
        if found is None:
            continue
        fired[label] += 1
        by_kind.setdefault(label, Counter())[found.kind] += 1
        contradicted[label] += found.evidence_value is not None
        if label == "entailment" and shown < show:
            shown += 1
            print(
                f"[{path.stem}] {found.kind} {found.claim_value!r} -> {found.evidence_value!r}\n"
                f"  claim: {claim}\n  evidence: {evidence[:300]}"
            )
    cpu.sort()
    return {
        "pairs": len(pairs),
        "cpu_ms_per_pair": {
            "mean": round(1000 * sum(cpu) / max(1, len(cpu)), 3),
            "median": round(1000 * cpu[len(cpu) // 2], 3),
            "p95": round(1000 * cpu[int(len(cpu) * 0.95)], 3),
        },
        "by_label": {
            label: {
                "pairs": totals[label],
                "fired": fired[label],
                "rate": round(fired[label] / totals[label], 4),
                "with_evidence_value": contradicted[label],
                "by_kind": dict(sorted(by_kind.get(label, Counter()).items())),
                "by_kind_rate": {
                    kind: round(count / totals[label], 4)
                    for kind, count in sorted(by_kind.get(label, Counter()).items())
                },
            }
            for label in sorted(totals)
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "data", nargs="+", type=Path, help="labelled JSONL files (premise, hypothesis, label)"
    )
    parser.add_argument(
        "--evidence",
        choices=("sentence", "premise"),
        default="sentence",
        help="evidence passed: the best-overlap premise sentence (default) or the whole premise",
    )
    parser.add_argument(
        "--kinds", default="number,date,quantity,entity", help="comma-separated kinds to check"
    )
    parser.add_argument("--show", type=int, default=0, help="print this many false alarms per set")
    add_out_option(parser)
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    figures = {path.stem: measure(path, args.evidence, kinds, args.show) for path in args.data}
    for name, result in figures.items():
        rates = {label: f"{v['rate']:.1%}" for label, v in result["by_label"].items()}
        print(f"{name}: {rates}  CPU ms per pair {result['cpu_ms_per_pair']}")
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
