"""Does a decision fitted on the other families beat P(Entailment) >= 0.5 on the family left out?

Reads the per-pair window scores that `leave_one_family_out.py --scores DIR` wrote for a recipe whose model is the
same for every family (``base``: the base checker, untrained further), so every family's sample has scores from
one model. For each left-out family, three decisions on the pair's best window (highest P(Entailment) over its 1-
and 2-sentence windows, the shipped layout) are compared on that family's sample:

- ``fixed``: Entailment when the best window's P(Entailment) reaches 0.5 (the protocol's figure);
- ``threshold``: Entailment at the threshold with the best balanced accuracy on the other six families' samples
  pooled (a calibrated threshold, as MiniCheck and AlignScore tune one);
- ``with_cosine``: a balanced logistic regression on the best window's P(Entailment) and the MiniLM cosine of the
  claim and its closest reference sentence, fitted on the other six families' samples, at 0.5.

Balanced accuracy per family and decision, AUROC of each decision's score, and the mean over families; and per
family, the share of each gold label (entailment, neutral, contradiction, a 2-way set's not_entailment) that the
``fixed`` decision calls Entailment.

    python benchmarks/leave_one_family_out.py --base DIR --recipes base --per-family 300 --layouts win1 win2 \\
        --scores SCORES --out OTHER.json
    python benchmarks/lofo_decisions.py --scores SCORES --per-family 300
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from claim_families import FAMILIES, default_data_dir
from leave_one_family_out import load_pool, test_sample, windows
from results_file import add_out_option, write_results

from factscope.metrics.classification import auroc, balanced_accuracy, best_threshold

DECISIONS = ("fixed", "threshold", "with_cosine")
LABEL_NAMES = ("entailment", "neutral", "contradiction", "not_entailment")


def best_window(rows: list[dict]) -> np.ndarray:
    """Each pair's highest P(Entailment) over its 1- and 2-sentence windows."""
    return np.array([max(p[0] for p in row["probs"]["win1"] + row["probs"]["win2"]) for row in rows])


def closest_sentence_cosine(encoder, sample) -> np.ndarray:
    """Each pair's highest cosine between the claim and one reference sentence."""
    best = []
    for pair in sample:
        sentences = windows(pair.premise, 1)
        best.append(float(np.max(encoder.cosine(sentences, [pair.hypothesis] * len(sentences)))))
    return np.array(best)


def decide(
    family: str, features: dict[str, np.ndarray], gold: dict[str, np.ndarray]
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], dict]:
    """Each decision's scores and Entailment calls on ``family``, and what was fitted on the other families."""
    from sklearn.linear_model import LogisticRegression

    others = [f for f in features if f != family]
    other_x = np.concatenate([features[f] for f in others])
    other_y = np.concatenate([gold[f] for f in others])
    window = features[family][:, 0]
    threshold = best_threshold(other_x[:, 0].tolist(), other_y.tolist())
    fitted = LogisticRegression(class_weight="balanced").fit(other_x, other_y)
    combined = fitted.predict_proba(features[family])[:, 1]
    decisions = {
        "fixed": (window, window >= 0.5),
        "threshold": (window, window >= threshold),
        "with_cosine": (combined, combined >= 0.5),
    }
    return decisions, {
        "threshold": float(threshold),
        "coefficients": fitted.coef_[0].tolist(),
        "intercept": float(fitted.intercept_[0]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scores", type=Path, required=True, help="the --scores folder of a leave-one-family-out run")
    parser.add_argument("--recipe", default="base", help="the recipe whose score files are read")
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--per-family", type=int, default=300, help="as given to leave_one_family_out.py")
    parser.add_argument("--seed", type=int, default=13, help="as given to leave_one_family_out.py")
    add_out_option(parser)
    args = parser.parse_args()

    from factscope.hf.encoders import BiEncoder

    began = time.perf_counter()
    pool = load_pool(args.data)
    encoder = BiEncoder()
    features: dict[str, np.ndarray] = {}
    gold: dict[str, np.ndarray] = {}
    labels: dict[str, np.ndarray] = {}
    for family in FAMILIES:
        rows = json.loads((args.scores / f"{args.recipe}.{family.replace(' ', '_')}.json").read_text())
        sample = test_sample(pool, family, args.per_family, args.seed)
        if [(e.source, e.label) for e in sample] != [(r["source"], r["label"]) for r in rows]:
            raise SystemExit(f"{family}: the score file does not match the sample; give the run's --per-family/--seed")
        features[family] = np.column_stack([best_window(rows), closest_sentence_cosine(encoder, sample)])
        labels[family] = np.array([e.label for e in sample])
        gold[family] = labels[family] == 0
    by_family: dict[str, dict] = {}
    for family in FAMILIES:
        decided, fitted = decide(family, features, gold)
        by_family[family] = {"n": len(gold[family]), "fitted_on_other_families": fitted}
        called = decided["fixed"][1]
        by_family[family]["fixed_entailment_rate_by_label"] = {
            name: {"n": int((labels[family] == index).sum()), "rate": float(called[labels[family] == index].mean())}
            for index, name in enumerate(LABEL_NAMES)
            if (labels[family] == index).any()
        }
        for name, (score, label) in decided.items():
            by_family[family][name] = {
                "balanced_accuracy": balanced_accuracy(gold[family].tolist(), label.tolist()),
                "auroc": auroc(gold[family].tolist(), score.tolist()),
            }
        print(family, json.dumps({d: by_family[family][d] for d in DECISIONS}), flush=True)
    mean = {
        name: {m: float(np.mean([by_family[f][name][m] for f in FAMILIES])) for m in ("balanced_accuracy", "auroc")}
        for name in DECISIONS
    }
    print(json.dumps(mean, indent=2))
    write_results(
        __file__,
        args,
        {"mean": mean, "by_family": by_family, "seconds": round(time.perf_counter() - began, 1)},
    )


if __name__ == "__main__":
    main()
