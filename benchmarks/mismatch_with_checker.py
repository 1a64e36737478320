"""Balanced accuracy of a checker with and without the value mismatch check overriding its Entailment verdicts.

Each labelled pair (JSONL with ``premise``, ``hypothesis``, ``label``; at most ``--limit`` per set, a fixed
random sample) is checked with the premise as the only reference. Every Entailment verdict is then given to
``find_mismatch`` (evidence: the verdict's evidence sentence; context: its deciding segment, or with
``--context reference`` the whole premise), and a mismatch
turns it into not-entailed. Figures per set and per checked kind: balanced accuracy of entailment vs not
(gold ``entailment`` against every other label), and how many verdicts the check turned, right and wrong.
Verdicts are kept in ``--verdicts DIR``, named by the checker's description (its weights' digest and settings), so
that a rerun with the same checker measures the check again without the model.

    HF_HUB_OFFLINE=1 python benchmarks/mismatch_with_checker.py /work/shared/data/claims/begin.jsonl --limit 1000
"""

from __future__ import annotations

import argparse
import json
import os
import random
from pathlib import Path

from results_file import add_out_option, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from factscope.checkers.base import Checker, CheckTask
from factscope.checkers.registry import make_checker
from factscope.core.files.manifest import describe, fingerprint_items

CONFIGURATIONS = {
    "none": (),
    "number": ("number",),
    "date": ("date",),
    "quantity": ("quantity",),
    "entity": ("entity",),
    "values": ("number", "date", "quantity"),
    "all": ("number", "date", "quantity", "entity"),
}
"""The kinds checked in each measured configuration; ``values`` is every kind but entities."""


def sample(path: Path, limit: int) -> list[dict]:
    """The set's pairs, or a fixed random sample of ``limit`` of them."""
    with path.open(encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    if limit and len(records) > limit:
        records = random.Random(0).sample(records, limit)
    return records


def verdicts_for(records: list[dict], checker: Checker, cache: Path) -> list[dict]:
    """Label, evidence sentence and deciding segment of the checker's verdict on each pair (cached in a file)."""
    if cache.exists():
        with cache.open(encoding="utf-8") as handle:
            kept = [json.loads(line) for line in handle]
        if [k["id"] for k in kept] == [r["id"] for r in records]:
            return kept
    kept = []
    for start in range(0, len(records), 32):
        batch = records[start : start + 32]
        tasks = [CheckTask(claim=r["hypothesis"], references=(r["premise"],)) for r in batch]
        for record, verdict in zip(batch, checker.check(tasks), strict=True):
            segment = verdict.segment_span
            kept.append(
                {
                    "id": record["id"],
                    "label": verdict.label.value if verdict.label else None,
                    "evidence": verdict.evidence,
                    "segment": record["premise"][segment.start : segment.end]
                    if segment
                    else record["premise"],
                }
            )
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("".join(json.dumps(k) + "\n" for k in kept), encoding="utf-8")
    return kept


def balanced_accuracy(gold: list[bool], predicted: list[bool]) -> float:
    """Mean of the recall on entailed and on not-entailed pairs."""
    positives = [p for g, p in zip(gold, predicted, strict=True) if g]
    negatives = [not p for g, p in zip(gold, predicted, strict=True) if not g]
    return (sum(positives) / max(1, len(positives)) + sum(negatives) / max(1, len(negatives))) / 2


def measure(records: list[dict], verdicts: list[dict], context: str) -> dict:
    """Balanced accuracy per configuration, with the verdicts each one turned; ``context`` is "segment" (the
    deciding segment) or "reference" (the whole premise)."""
    from factscope.checkers.mismatch import find_mismatch

    gold = [r["label"] == "entailment" for r in records]
    model = [v["label"] == "Entailment" for v in verdicts]
    figures: dict = {"pairs": len(records), "entailed": sum(gold), "model_entailment": sum(model)}
    for name, kinds in CONFIGURATIONS.items():
        turned = [
            bool(kinds)
            and entailed
            and find_mismatch(
                r["hypothesis"],
                v["evidence"] or v["segment"],
                context=v["segment"] if context == "segment" else r["premise"],
                kinds=kinds,
            )
            is not None
            for r, v, entailed in zip(records, verdicts, model, strict=True)
        ]
        predicted = [m and not t for m, t in zip(model, turned, strict=True)]
        figures[name] = {
            "balanced_accuracy": round(balanced_accuracy(gold, predicted), 4),
            "turned_right": sum(t and not g for t, g in zip(turned, gold, strict=True)),
            "turned_wrong": sum(t and g for t, g in zip(turned, gold, strict=True)),
        }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "data", nargs="+", type=Path, help="labelled JSONL files (premise, hypothesis, label)"
    )
    parser.add_argument("--checker", default="embedded", help="checker spec (default: embedded)")
    parser.add_argument(
        "--limit", type=int, default=1000, help="pairs per set, a fixed random sample (0: all)"
    )
    parser.add_argument(
        "--verdicts",
        type=Path,
        default=Path("/tmp/mismatch_verdicts"),
        help="folder keeping the checker's verdicts per set",
    )
    parser.add_argument(
        "--context",
        choices=("segment", "reference"),
        default="segment",
        help="context passed with the evidence sentence: the deciding segment or the whole premise",
    )
    add_out_option(parser)
    args = parser.parse_args()
    checker = make_checker(args.checker)
    checker_digest = fingerprint_items([describe(checker)]).sha256[:16]
    figures = {}
    for path in args.data:
        records = sample(path, args.limit)
        cache = args.verdicts / f"{path.stem}.{checker_digest}.{args.limit}.jsonl"
        figures[path.stem] = measure(records, verdicts_for(records, checker, cache), args.context)
        print(path.stem, json.dumps(figures[path.stem]))
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
