"""Does the claim's cosine similarity to its evidence add to the checker's best window? A two-feature decision,
fitted on the shippable sets and measured on the sets no shipped checker trains on.

For each pair the features are the shipped model's highest P(Entailment) over the premise's 1- and 2-sentence
windows (the model alone: no relevance filter, no value checks) and the packaged MiniLM's cosine of claim and
premise. A logistic regression on the two is fitted on a seeded sample of the shippable sets' validation groups
(``--fit-pairs`` a set) and scored, with its threshold of 0.5 on the fitted probability, on the same test samples
as `unseen_sets.py` (``--limit`` pairs a set). Reported per unseen set and as the mean: balanced accuracy and AUROC
of the best window alone (at P(Entailment) >= 0.5), of the cosine alone, and of the fitted decision.

    python benchmarks/similarity_decision.py --fit-pairs 100 --limit 120
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from claim_families import PAIR_SETS, default_data_dir
from results_file import add_out_option, write_results

from factscope.checkers.embedded import load_embedded_scorer
from factscope.core.text import window_spans
from factscope.evaluation.pairs import LabelledPair, read_pairs, sample_pairs
from factscope.metrics.classification import auroc, balanced_accuracy


def best_window(scorer, pairs: list[LabelledPair]) -> np.ndarray:
    """Each pair's highest P(Entailment) over its premise's 1- and 2-sentence windows."""
    premises, hypotheses, owner = [], [], []
    for index, pair in enumerate(pairs):
        spans = window_spans(pair.premise, 2, scorer.count_tokens, 200, min_sentences=1) or []
        windows = [pair.premise[s.start : s.end] for s in spans] or [pair.premise]
        premises += windows
        hypotheses += [pair.hypothesis] * len(windows)
        owner += [index] * len(windows)
    probs = scorer.score(premises, hypotheses)[:, 0]
    best = np.full(len(pairs), -np.inf)
    np.maximum.at(best, np.array(owner), probs)
    return best


def features(scorer, encoder, pairs: list[LabelledPair]) -> np.ndarray:
    """(best window P(Entailment), cosine) per pair."""
    cosine = np.asarray(encoder.cosine([p.premise for p in pairs], [p.hypothesis for p in pairs]))
    return np.column_stack([best_window(scorer, pairs), cosine])


def figures(gold: np.ndarray, scores: np.ndarray, decided: np.ndarray) -> dict[str, float]:
    return {
        "balanced_accuracy": balanced_accuracy(gold.tolist(), decided.tolist()),
        "auroc": auroc(gold.tolist(), scores.tolist()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--fit-pairs", type=int, default=100, help="validation pairs per shippable set to fit on")
    parser.add_argument("--limit", type=int, default=120, help="test pairs per unseen set")
    parser.add_argument("--seed", type=int, default=13)
    add_out_option(parser)
    args = parser.parse_args()

    from sklearn.linear_model import LogisticRegression

    from factscope.hf.encoders import BiEncoder

    began = time.perf_counter()
    scorer, encoder = load_embedded_scorer(), BiEncoder()
    rng = random.Random(args.seed)
    fit_pairs: list[LabelledPair] = []
    for pair_set in (s for s in PAIR_SETS if s.shippable):
        pairs, _ = read_pairs(args.data / pair_set.path, part="validation")
        fit_pairs += pairs if len(pairs) <= args.fit_pairs else rng.sample(pairs, args.fit_pairs)
    fit_x = features(scorer, encoder, fit_pairs)
    fit_y = np.array([p.label == "entailment" for p in fit_pairs])
    model = LogisticRegression(class_weight="balanced").fit(fit_x, fit_y)
    by_set: dict[str, dict] = {}
    for pair_set in (s for s in PAIR_SETS if not s.shippable):
        pairs, _ = read_pairs(args.data / pair_set.path, part="test")
        sample = sample_pairs(pairs, args.limit)
        x = features(scorer, encoder, sample)
        gold = np.array([p.label == "entailment" for p in sample])
        fitted = model.predict_proba(x)[:, 1]
        by_set[pair_set.name] = {
            "n": len(sample),
            "best_window": figures(gold, x[:, 0], x[:, 0] >= 0.5),
            "cosine": {"auroc": auroc(gold.tolist(), x[:, 1].tolist())},
            "decision": figures(gold, fitted, fitted >= 0.5),
        }
        print(pair_set.name, by_set[pair_set.name], flush=True)
    mean = {
        kind: {
            metric: float(np.mean([row[kind][metric] for row in by_set.values()]))
            for metric in by_set[next(iter(by_set))][kind]
        }
        for kind in ("best_window", "cosine", "decision")
    }
    print(mean)
    write_results(
        __file__,
        args,
        {
            "fit_pairs": len(fit_pairs),
            "coefficients": {"best_window": float(model.coef_[0][0]), "cosine": float(model.coef_[0][1])},
            "intercept": float(model.intercept_[0]),
            "mean": mean,
            "by_set": by_set,
            "seconds": round(time.perf_counter() - began, 1),
        },
    )


if __name__ == "__main__":
    main()
