"""The shipped checker's labels in ONNX Runtime (fp32, and dynamic int8) against PyTorch, on NLI pairs.

The pairs are ``--pairs`` lines of MultiNLI matched dev starting at line ``--skip`` + 1 (by default lines 1,501 to
3,500: the shipped checker trained on the first 1,500). Each pair is scored by the shipped checker in PyTorch and in
ONNX Runtime from its fp32 export (the path the ``onnx`` extra takes), and in int8 (``precision='int8'``: ONNX
Runtime's dynamic quantisation of that export, per channel), with the checker's class biases applied to each. The
figures: the share of pairs whose label each runtime gives as PyTorch does, the largest probability difference,
and each runtime's accuracy against the gold labels. Times are left out: ``record_speed.py --targets`` measures
them.

    HF_HUB_OFFLINE=1 python benchmarks/onnx_agreement.py --data /work/shared/data/nli/mnli_dev_matched.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np
from results_file import add_out_option, load_average, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")

CLASSES = ("entailment", "neutral", "contradiction")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data", type=Path, required=True, help="MultiNLI matched dev JSONL (premise, hypothesis, label)"
    )
    parser.add_argument("--skip", type=int, default=1500, help="lines skipped first (default 1500)")
    parser.add_argument("--pairs", type=int, default=2000, help="pairs (default 2000)")
    add_out_option(parser)
    args = parser.parse_args()

    from factscope.checkers.embedded import EmbeddedScorer, shipped_checker_dir

    lines = args.data.read_text(encoding="utf-8").splitlines()[args.skip : args.skip + args.pairs]
    rows = [json.loads(line) for line in lines if line.strip()]
    premises, hypotheses = [row["premise"] for row in rows], [row["hypothesis"] for row in rows]
    gold = np.array([CLASSES.index(row["label"]) for row in rows])
    in_torch = EmbeddedScorer.from_dir(shipped_checker_dir(), onnx=False)
    in_onnx = EmbeddedScorer.from_dir(shipped_checker_dir(), onnx=True)
    in_int8 = EmbeddedScorer.from_dir(shipped_checker_dir(), precision="int8")
    probs = {
        "torch": in_torch.score(premises, hypotheses),
        "onnx_fp32": in_onnx.score(premises, hypotheses),
        "onnx_int8": in_int8.score(premises, hypotheses),
    }
    labels = {name: found.argmax(axis=1) for name, found in probs.items()}
    figures = {
        "pairs": len(rows),
        "lines": [args.skip + 1, args.skip + len(rows)],
        "labels_same_as_torch": {
            name: float(np.mean(found == labels["torch"])) for name, found in labels.items()
        },
        "labels_differing_from_torch": {
            name: int(np.sum(found != labels["torch"])) for name, found in labels.items()
        },
        "largest_probability_difference": {
            name: float(np.abs(found - probs["torch"]).max()) for name, found in probs.items()
        },
        "accuracy": {name: float(np.mean(found == gold)) for name, found in labels.items()},
        "load_average_end": load_average(),
    }
    print(json.dumps(figures, indent=1))
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
