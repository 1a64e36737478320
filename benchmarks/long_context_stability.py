"""Do labels hold when the evidence sits among unrelated references? Label flips with and without the relevance
filter of the segmented checker.

Pairs are drawn from the test part of the stable group split of labelled claim sets. Each pair is checked twice:
against its own evidence alone (the single-reference label), and in a long context: ``--references`` references
of at least ``--words`` words each (several segments of ``--segment-tokens``), made of evidence texts of other
groups, one of them holding the pair's own evidence at a seeded random position (``--layout embedded``), or the
pair's own evidence as it is with unrelated references appended around it (``--layout appended``). A label that differs between the
two is a flip: appending unrelated text changed the judgement. Both runs are made with ``relevance="lexical"``
(the default floor) and ``relevance="off"``; the scores of each (segment, claim) pair are computed once and shared.
Also reported per setting: balanced accuracy of Entailment vs not on the single references and in the long
context, and how often the long-context verdict was decided by a segment outside the pair's own evidence.

    HF_HUB_OFFLINE=1 python benchmarks/long_context_stability.py --pairs 150
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from claim_pairs import ClaimPair, read_pairs, sample
from results_file import add_out_option, write_results

from factscope.checkers.base import CheckTask, PairScorer
from factscope.checkers.embedded import load_embedded_scorer
from factscope.checkers.options import CheckerOptions
from factscope.checkers.segmented import SegmentedChecker
from factscope.core.schema import Label, Verdict
from factscope.metrics.classification import balanced_accuracy

DATA = Path("/work/shared/data/claims")
SETTINGS = ("lexical", "off")


class SharedScores:
    """A PairScorer that scores each distinct (premise, hypothesis) pair once and remembers it."""

    def __init__(self, scorer: PairScorer) -> None:
        self.scorer = scorer
        self.name = scorer.name
        self.scored: dict[tuple[str, str], np.ndarray] = {}

    def count_tokens(self, text: str) -> int:
        return self.scorer.count_tokens(text)

    def score(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        pairs = list(zip(premises, hypotheses))
        missing = list(dict.fromkeys(pair for pair in pairs if pair not in self.scored))
        if missing:
            found = self.scorer.score([p for p, _ in missing], [h for _, h in missing])
            self.scored.update(zip(missing, found))
        return np.stack([self.scored[pair] for pair in pairs])


def _fill(texts: list[str], pool: list[ClaimPair], group: str, words: int, rng: random.Random) -> list[str]:
    """``texts`` with evidence of other groups than ``group`` added until they hold ``words`` words."""
    filled = list(texts)
    while sum(len(t.split()) for t in filled) < words:
        other = pool[rng.randrange(len(pool))]
        if other.group != group and other.premise not in filled:
            filled.append(other.premise)
    return filled


def long_context(
    pair: ClaimPair, pool: list[ClaimPair], references: int, words: int, rng: random.Random, appended: bool = False
) -> tuple[tuple[str, ...], int]:
    """References of unrelated evidence with the pair's own evidence in one of them (or, ``appended``, as a
    reference of its own); that reference's index."""
    own = [] if appended else _fill([], pool, pair.group, words - len(pair.premise.split()), rng)
    own.insert(rng.randrange(len(own) + 1), pair.premise)
    made = [" ".join(_fill([], pool, pair.group, words, rng)) for _ in range(references - 1)]
    where = rng.randrange(references)
    made.insert(where, " ".join(own))
    return tuple(made), where


def _outside(verdict: Verdict, references: tuple[str, ...], where: int, premise: str) -> bool:
    """Whether the deciding segment lies outside the pair's own evidence text."""
    if verdict.evidence_reference is None or verdict.segment_span is None:
        return False
    if verdict.evidence_reference != where:
        return True
    start = references[where].index(premise)
    span = verdict.segment_span
    return span.end <= start or span.start >= start + len(premise)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA, help="folder of the labelled claim sets (NAME.jsonl)")
    parser.add_argument("--checker-dir", type=Path, help="a factscope checker folder (default: the shipped one)")
    parser.add_argument("--sets", nargs="+", default=["factcheckgpt", "begin"])
    parser.add_argument("--pairs", type=int, default=150, help="pairs drawn per set from the test part")
    parser.add_argument("--references", type=int, default=3)
    parser.add_argument("--words", type=int, default=250, help="words of each long-context reference")
    parser.add_argument("--segment-tokens", type=int, default=200)
    parser.add_argument(
        "--window-sentences", type=int, default=0,
        help="check against windows of this many consecutive sentences (0: segments of --segment-tokens)",
    )
    parser.add_argument(
        "--min-window-sentences", type=int, default=None,
        help="with --window-sentences, also windows of every width from this many sentences up",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--layout", choices=("embedded", "appended"), default="embedded",
        help="the pair's evidence inside a long reference of other texts, or alone with other references appended",
    )
    add_out_option(parser)
    args = parser.parse_args()

    scores = SharedScores(load_embedded_scorer(args.checker_dir))
    checkers = {
        setting: SegmentedChecker(
            scores,
            CheckerOptions(
                max_tokens=args.segment_tokens, relevance=setting, window_sentences=args.window_sentences,
                min_window_sentences=args.min_window_sentences, mismatch="off",
            ),
            name="embedded",
        )
        for setting in SETTINGS
    }
    started = time.perf_counter()
    figures: dict[str, object] = {"sets": {}}
    for name in args.sets:
        pool = read_pairs(args.data / f"{name}.jsonl", part="test")
        pairs = sample(pool, args.pairs, args.seed)
        rng = random.Random(args.seed)
        appended = args.layout == "appended"
        contexts = [long_context(pair, pool, args.references, args.words, rng, appended) for pair in pairs]
        single = [CheckTask(pair.claim, (pair.premise,)) for pair in pairs]
        long = [CheckTask(pair.claim, references) for pair, (references, _) in zip(pairs, contexts)]
        gold = [pair.supported for pair in pairs]
        by_setting = {}
        for setting, checker in checkers.items():
            alone = checker.check(single)
            among = checker.check(long)
            flips = [a.label != b.label for a, b in zip(alone, among)]
            outside = [
                _outside(v, refs, where, pair.premise) and v.label != Label.NEUTRAL
                for v, (refs, where), pair in zip(among, contexts, pairs)
            ]
            by_setting[setting] = {
                "flips": int(sum(flips)),
                "flip_rate": round(float(np.mean(flips)), 4),
                "flips_to": {
                    label.value: sum(f and b.label == label for f, b in zip(flips, among)) for label in Label
                },
                "decided_outside_own_evidence": int(sum(outside)),
                "balanced_accuracy_single": round(
                    balanced_accuracy(gold, [v.label == Label.ENTAILMENT for v in alone]), 4
                ),
                "balanced_accuracy_long": round(balanced_accuracy(gold, [v.label == Label.ENTAILMENT for v in among]), 4),
                "rules_long": {rule: sum(v.rule == rule for v in among) for rule in ("model", "relevance")},
            }
            print(name, setting, by_setting[setting])
        segments = [len(checkers["off"].candidates(task)) for task in long]
        figures["sets"][name] = {  # type: ignore[index]
            "pairs": len(pairs),
            "entailed": int(sum(gold)),
            "mean_segments_long": round(float(np.mean(segments)), 2),
            "by_setting": by_setting,
        }
    figures["seconds"] = round(time.perf_counter() - started, 1)
    figures["scored_pairs"] = len(scores.scored)
    print(f"written to {write_results('long_context_stability.py', args, figures)}")


if __name__ == "__main__":
    main()
