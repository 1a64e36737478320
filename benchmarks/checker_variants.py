"""Checker models crossed with the decision settings, on the claim sets' validation groups and the project's sets.

Each model's (segment, claim) pairs are scored once and shared by all settings, so a setting costs only its
decisions. Per set: pairs, balanced accuracy of entailment vs not, 3-way macro-F1 where the set is 3-way, and how
many verdicts each rule decided. The settings are those of `factscope check`: ``--relevance off|lexical`` and
``--mismatch-checks off|values|all``. The figures go to ``benchmarks/results/checker_variants.json``.

    HF_HUB_OFFLINE=1 python benchmarks/checker_variants.py --checker embedded --checker path:previous_checker
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from long_context_stability import SharedScores
from results_file import add_out_option, write_results

from factscope.checkers.registry import make_checker
from factscope.evaluation.checker_eval import check_pairs
from factscope.evaluation.pairs import LabelledPair, read_pairs
from factscope.metrics.classification import balanced_accuracy, macro_f1

CLAIMS = Path("/work/shared/data/claims")
PROJECT_SETS = Path(__file__).parent / "data"
SETTINGS = {
    "relevance off, mismatch off": {"relevance": "off", "mismatch": "off"},
    "relevance on, mismatch off": {"mismatch": "off"},
    "relevance on, mismatch values": {"mismatch": "values"},
    "relevance on, mismatch all": {"mismatch": "all"},
}
THREE_WAY = ["entailment", "neutral", "contradiction"]


def _sets(claims: Path, part: str) -> list[tuple[str, list[LabelledPair]]]:
    """(dataset, pairs) of the claim sets' ``part`` and of every set in benchmarks/data."""
    files = [(claims / f"{name}.jsonl", part) for name in ("factcheckgpt", "summedits", "begin")]
    files += [(path, "all") for path in sorted(PROJECT_SETS.glob("*.jsonl"))]
    found: dict[str, list[LabelledPair]] = {}
    for path, wanted in files:
        pairs, _ = read_pairs(path, part=wanted)
        for pair in pairs:
            found.setdefault(pair.dataset, []).append(pair)
    return list(found.items())


def _figures(pairs: list[LabelledPair], verdicts: list) -> dict[str, Any]:
    gold = [pair.label for pair in pairs]
    predicted = [v.label.value.lower() if v.label is not None else "failed" for v in verdicts]
    row: dict[str, Any] = {
        "n": len(pairs),
        "balanced_accuracy": round(
            balanced_accuracy([g == "entailment" for g in gold], [p == "entailment" for p in predicted]), 4
        ),
        "rules": {rule: sum(v.rule == rule for v in verdicts) for rule in ("model", "relevance", "mismatch")},
    }
    if all(g in THREE_WAY for g in gold) and len(set(gold)) > 1:
        row["macro_f1"] = round(macro_f1(gold, predicted, THREE_WAY), 4)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--checker", action="append", default=[], help="model checker spec (repeatable)")
    parser.add_argument("--claims", type=Path, default=CLAIMS, help="folder of the claim sets")
    parser.add_argument("--part", default="validation", help="part of the claim sets (default validation)")
    add_out_option(parser)
    args = parser.parse_args()
    sets = _sets(args.claims, args.part)
    results: dict[str, Any] = {"part": args.part, "settings": SETTINGS, "checkers": {}}
    for spec in args.checker or ["embedded"]:
        shared = SharedScores(make_checker(spec).scorer)
        for setting, options in SETTINGS.items():
            checker = make_checker(spec, **options)
            checker.scorer = shared
            for dataset, pairs in sets:
                verdicts, _ = check_pairs(checker, pairs)
                row = _figures(pairs, verdicts)
                results["checkers"].setdefault(spec, {}).setdefault(setting, {})[dataset] = row
                print(f"{spec} | {setting} | {dataset}: {row['balanced_accuracy']:.4f}", flush=True)
    write_results(__file__, args, results)


if __name__ == "__main__":
    main()
