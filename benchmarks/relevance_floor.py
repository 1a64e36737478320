"""Calibrates the relevance floor of the segmented checker: how relevant is a segment that supports a claim?

For each labelled claim set, on the train and validation parts of the stable group split (the test part is
left for measuring), each pair's claim is scored against
every segment (``--segment-tokens``, counted with the embedded checker's tokenizer) of its own evidence and of one
unrelated evidence text of another group; a pair's relevance is the best over the segments. For each scorer (lexical
overlap with prefix stems of several lengths, and optionally the packaged MiniLM's cosine, ``--bi-encoder``) it
reports the percentiles of the entailed pairs' relevance, two floors (the ``--percentile`` percentile of the
entailed pairs of all sets together, and the smallest of the sets' own) and, at each floor of ``--floors``, the share
of entailed pairs under it (what the filter would cost) and the share of unrelated texts at or over it (what it
lets through).

    HF_HUB_OFFLINE=1 python benchmarks/relevance_floor.py --pairs 800
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from claim_pairs import ClaimPair, read_pairs, sample, unrelated_premises
from results_file import add_out_option, write_results

from factscope.checkers.embedded import load_embedded_scorer
from factscope.checkers.relevance import lexical_relevance
from factscope.core.text import segment_spans

DATA = Path("/work/shared/data/claims")
SETS = ("factcheckgpt", "begin", "summedits")
PERCENTILES = (1, 2, 5, 10, 25, 50)
PARTS = ("train", "validation")


def _segments(text: str, count_tokens: Callable[[str], int], max_tokens: int) -> list[str]:
    return [text[span.start : span.end] for span in segment_spans(text, count_tokens, max_tokens)] or [text]


def _best(score: Callable[[str, list[str]], list[float]], claim: str, segments: list[str]) -> float:
    return max(score(claim, segments))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA, help="folder of the labelled claim sets (NAME.jsonl)")
    parser.add_argument("--sets", nargs="+", default=list(SETS), help="set names in --data")
    parser.add_argument("--pairs", type=int, default=800, help="pairs drawn per set from the train and validation parts")
    parser.add_argument("--floors", type=float, nargs="+", default=[0.1, 0.15, 0.2, 0.25, 0.3, 0.35])
    parser.add_argument("--segment-tokens", type=int, default=200)
    parser.add_argument("--stem-chars", type=int, nargs="+", default=[4, 5, 6, 50], help="prefix lengths compared")
    parser.add_argument("--percentile", type=float, default=2.0, help="the floor's percentile of entailed pairs")
    parser.add_argument("--bi-encoder", action="store_true", help="also score with the packaged MiniLM's cosine")
    parser.add_argument("--seed", type=int, default=13)
    add_out_option(parser)
    args = parser.parse_args()

    count_tokens = load_embedded_scorer().count_tokens
    scorers: dict[str, Callable[[str, list[str]], list[float]]] = {
        f"lexical-{n}": (lambda claim, segments, n=n: [lexical_relevance(claim, s, n) for s in segments])
        for n in args.stem_chars
    }
    if args.bi_encoder:
        from factscope.hf.encoders import BiEncoder

        encoder = BiEncoder()
        scorers["minilm-cosine"] = lambda claim, segments: [float(x) for x in encoder.cosine([claim] * len(segments), segments)]

    started = time.perf_counter()
    per_set: dict[str, dict[str, object]] = {}
    pooled: dict[str, dict[str, list[float]]] = {name: {"entailed": [], "other": [], "unrelated": []} for name in scorers}
    drawn: dict[str, list[ClaimPair]] = {}
    for name in args.sets:
        every = [p for part in PARTS for p in read_pairs(args.data / f"{name}.jsonl", part=part)]
        pairs = sample(every, args.pairs, args.seed)
        drawn[name] = pairs
        rng = random.Random(args.seed)
        scores: dict[str, dict[str, list[float]]] = {s: {"entailed": [], "other": [], "unrelated": []} for s in scorers}
        for index, pair in enumerate(pairs):
            own = _segments(pair.premise, count_tokens, args.segment_tokens)
            (other_text,) = unrelated_premises(pairs, index, 1, rng)
            other = _segments(other_text, count_tokens, args.segment_tokens)
            for scorer_name, score in scorers.items():
                kind = "entailed" if pair.supported else "other"
                scores[scorer_name][kind].append(_best(score, pair.claim, own))
                scores[scorer_name]["unrelated"].append(_best(score, pair.claim, other))
        for scorer_name, values in scores.items():
            for kind, found in values.items():
                pooled[scorer_name][kind].extend(found)
        per_set[name] = {"pairs": len(pairs), "scores": scores}

    figures: dict[str, object] = {"pairs_per_set": {name: len(p) for name, p in drawn.items()}, "scorers": {}}
    for scorer_name, values in pooled.items():
        floor = float(np.percentile(values["entailed"], args.percentile))
        by_set = {}
        for name, found in per_set.items():
            scores = found["scores"][scorer_name]  # type: ignore[index]
            entailed = np.array(scores["entailed"])
            unrelated = np.array(scores["unrelated"])
            by_set[name] = {
                "entailed": len(entailed),
                "entailed_percentiles": {str(p): round(float(np.percentile(entailed, p)), 4) for p in PERCENTILES},
                "at_floors": {
                    str(f): {
                        "entailed_under": round(float(np.mean(entailed < f)), 4),
                        "unrelated_at_or_over": round(float(np.mean(unrelated >= f)), 4),
                    }
                    for f in args.floors
                },
                "entailed_under_floor": round(float(np.mean(entailed < floor)), 4),
                "not_entailed_under_floor": round(float(np.mean(np.array(scores["other"]) < floor)), 4),
                "unrelated_at_or_over_floor": round(float(np.mean(np.array(scores["unrelated"]) >= floor)), 4),
            }
        entailed = np.array(values["entailed"])
        own_floors = [float(np.percentile(s["scores"][scorer_name]["entailed"], args.percentile))  # type: ignore[index]
                      for s in per_set.values()]
        figures["scorers"][scorer_name] = {  # type: ignore[index]
            "floor": round(floor, 4),
            "smallest_set_floor": round(min(own_floors), 4),
            "entailed_under_floor": round(float(np.mean(entailed < floor)), 4),
            "unrelated_at_or_over_floor": round(float(np.mean(np.array(values["unrelated"]) >= floor)), 4),
            "by_set": by_set,
        }
        print(f"{scorer_name}: floor {floor:.3f}  "
              + "  ".join(f"{n}: unrelated>=floor {v['unrelated_at_or_over_floor']:.3f}" for n, v in by_set.items()))
    figures["seconds"] = round(time.perf_counter() - started, 1)
    print(f"written to {write_results('relevance_floor.py', args, figures)}")


if __name__ == "__main__":
    main()
