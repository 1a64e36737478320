"""How a checker holds up when the supporting sentence sits inside a ~200-token segment of unrelated text.

The held-out part of the training split is scored twice: as is (MNLI's one- or two-sentence premises), and with
each premise placed at a seeded random position among other held-out premises until the segment has about
``--words`` words. Labels stay the same (other premises rarely bear on the hypothesis), so the drop in macro-F1
measures what long references cost. Also reported: the labels a hypothesis gets from a segment made only of
other premises (anything but Neutral is wrong there, and merging segments amplifies such errors). ``--pairs N``
scores only the first N held-out pairs. The figures go to ``benchmarks/results/bench_long_context.json`` (see
``results_file``).

    HF_HUB_OFFLINE=1 python benchmarks/bench_long_context.py --data mnli_dev_matched.jsonl [--checker DIR]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import numpy as np
from results_file import add_out_option, write_results

from factscope.checkers.embedded import load_embedded_scorer, shipped_checker_dir
from factscope.cli.display import print_table
from factscope.core.display.figure_table import summary_table
from factscope.core.schema import LABELS, Label
from factscope.training.evaluation import evaluate
from factscope.training.long_context import in_context, unrelated_context
from factscope.training.nli_data import load_nli_jsonl, split_by_group


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--data",
        type=Path,
        required=True,
        help="the NLI JSONL the checker was trained on (not shipped with factscope; MultiNLI dev matched)",
    )
    parser.add_argument("--checker", type=Path, default=shipped_checker_dir(), help="checker directory")
    parser.add_argument("--words", type=int, default=150, help="segment length in words (~200 tokens)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the segment positions (default 0)")
    parser.add_argument("--pairs", type=int, help="score only the first N held-out pairs (default: all)")
    add_out_option(parser)
    args = parser.parse_args()

    dataset = load_nli_jsonl(args.data)
    test = split_by_group(dataset.examples).test[: args.pairs]
    scorer = load_embedded_scorer(args.checker)
    rng = random.Random(args.seed)
    premises = [e.premise for e in test]
    hypotheses = [e.hypothesis for e in test]
    gold = np.array([LABELS.index(Label.parse(dataset.classes[e.label])) for e in test])
    plain = scorer.score(premises, hypotheses)
    long = scorer.score([in_context(premises, i, args.words, rng) for i in range(len(test))], hypotheses)
    noise = scorer.score([unrelated_context(premises, i, args.words, rng) for i in range(len(test))], hypotheses)
    names = tuple(label.value.lower() for label in LABELS)
    figures = {
        "checker": str(args.checker),
        "pairs": len(test),
        "words": args.words,
        "held_out_plain": evaluate(gold, plain, names).as_dict(),
        "held_out_in_context": evaluate(gold, long, names).as_dict(),
        "unrelated_segment_labels": {
            label.value: float(np.mean(noise.argmax(axis=1) == i)) for i, label in enumerate(LABELS)
        },
    }
    print_table(
        summary_table(
            f"long-context robustness ({len(test)} held-out pairs, ~{args.words}-word segments)",
            [
                ("macro-F1, premise alone", figures["held_out_plain"]["macro_f1"]),
                ("macro-F1, premise inside a segment", figures["held_out_in_context"]["macro_f1"]),
                *[(f"unrelated segment -> {k}", v) for k, v in figures["unrelated_segment_labels"].items()],
            ],
        )
    )
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
