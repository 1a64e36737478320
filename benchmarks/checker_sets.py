"""Checkers on human-labelled claim / evidence sets and on MultiNLI: balanced accuracy per set, as `eval-checker`.

Each checker spec (default ``embedded`` and ``similarity``; ``--checker SPEC`` adds one, repeatable) is evaluated
on Factcheck-GPT, SummEdits and BEGIN (the parts of the split by group named by ``--parts``) and on the MultiNLI
matched dev set (``--mnli-part``). Per set: pairs, balanced accuracy of entailment vs not, the binary confusion
matrix, 3-way macro-F1 where the set is 3-way, pairs per second; per checker: the mean balanced accuracy over the
claim sets of each part and the model loading time. A pair is judged entailed when the checker's label is
Entailment (no threshold). ``--limit N`` evaluates a fixed sample of at most N pairs per set. The figures go to
``benchmarks/results/checker_sets.json`` (see ``results_file``).

    HF_HUB_OFFLINE=1 python benchmarks/checker_sets.py --parts validation [--checker path:DIR] [--limit N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from results_file import add_out_option, write_results

from factscope.checkers.registry import make_checker
from factscope.cli.display import print_table
from factscope.core.display.figure_table import summary_table
from factscope.evaluation.checker_eval import evaluate_checker
from factscope.evaluation.pairs import read_pairs, sample_pairs

DATA = Path("/work/shared/data")
CLAIM_SETS = ("factcheckgpt", "summedits", "begin")
DEFAULT_CHECKERS = ("embedded", "similarity")


def _sets(args: argparse.Namespace) -> list[tuple[str, Path, str]]:
    """(name, file, part) of every set to evaluate."""
    sets = [(f"{name}:{part}", getattr(args, name), part) for part in args.parts for name in CLAIM_SETS]
    if args.mnli_part != "none":
        sets.append((f"mnli:{args.mnli_part}", args.mnli, args.mnli_part))
    return sets


def _evaluate(spec: str, sets: list[tuple[str, Path, str]], args: argparse.Namespace) -> dict[str, Any]:
    began = time.perf_counter()
    checker = make_checker(spec, max_tokens=args.segment_tokens, batch_size=args.batch_size)
    load_seconds = time.perf_counter() - began
    figures: dict[str, Any] = {"checker": checker.name, "load_seconds": round(load_seconds, 2), "sets": {}}
    for name, path, part in sets:
        pairs, skipped = read_pairs(path, part=part)
        if args.limit is not None:
            pairs = sample_pairs(pairs, args.limit)
        report = evaluate_checker(checker, pairs, batch_size=args.batch_size)
        (dataset,) = report.datasets
        figures["sets"][name] = {
            "file": str(path),
            "part": part,
            "skipped_records": len(skipped),
            "check_seconds": round(report.check_seconds, 2),
            **dataset.model_dump(mode="json", exclude={"dataset"}),
        }
        print(f"{spec} {name}: n={dataset.n} balanced accuracy {dataset.balanced_accuracy:.4f}", flush=True)
    for part in args.parts:
        values = [figures["sets"][f"{name}:{part}"]["balanced_accuracy"] for name in CLAIM_SETS]
        figures[f"mean_balanced_accuracy_claim_sets_{part}"] = sum(values) / len(values)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--checker", action="append", default=[], help="a checker spec to add (repeatable)")
    parser.add_argument(
        "--only", action="store_true", help="evaluate only the --checker specs, not the defaults"
    )
    parser.add_argument(
        "--parts",
        nargs="+",
        choices=("train", "validation", "test", "all"),
        default=["validation", "test"],
        help="parts of the claim sets (default: validation test)",
    )
    parser.add_argument(
        "--mnli-part",
        choices=("train", "validation", "test", "all", "none"),
        default="test",
        help="part of MultiNLI (default test; none leaves it out)",
    )
    for name in CLAIM_SETS:
        parser.add_argument(
            f"--{name}", type=Path, default=DATA / "claims" / f"{name}.jsonl", help=f"{name} pairs"
        )
    parser.add_argument(
        "--mnli", type=Path, default=DATA / "nli" / "mnli_dev_matched.jsonl", help="MultiNLI pairs"
    )
    parser.add_argument("--limit", type=int, help="at most N pairs per set, a fixed sample (default: all)")
    parser.add_argument("--segment-tokens", type=int, default=200, help="segment length of model checkers")
    parser.add_argument("--batch-size", type=int, default=32, help="pairs per checking batch")
    add_out_option(parser)
    args = parser.parse_args()

    specs = list(dict.fromkeys(args.checker if args.only else [*DEFAULT_CHECKERS, *args.checker]))
    sets = _sets(args)
    results = {spec: _evaluate(spec, sets, args) for spec in specs}
    for spec, figures in results.items():
        rows: list[tuple[str, object]] = [
            (
                f"{name}: balanced acc. (n, pairs/s)",
                f"{values['balanced_accuracy']:.4f} ({values['n']}, {values['pairs_per_second']:.1f})",
            )
            for name, values in figures["sets"].items()
        ]
        rows += [(key, value) for key, value in figures.items() if key.startswith("mean_")]
        rows.append(("model loading seconds", figures["load_seconds"]))
        print_table(summary_table(f"{spec} ({figures['checker']})", rows))
    write_results(__file__, args, {"limit_per_set": args.limit, "checkers": results})


if __name__ == "__main__":
    main()
