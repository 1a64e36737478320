"""Two leave-one-family-out runs compared on the same pairs: is the candidate's mean better by the margin asked?

Reads the per-pair window scores that `leave_one_family_out.py --scores DIR` wrote for two runs (a candidate and a
reference, each ``DIR:RECIPE``) and, for every family both have finished, the difference of balanced accuracy
(Entailment when the best window's P(Entailment) reaches 0.5) and of AUROC (that best P(Entailment)) on the same
test pairs, with a 95% paired bootstrap interval (pairs resampled with replacement, the same resample for both
runs). The best window is the highest P(Entailment) over the ``--layout``'s windows (``win12``: the 1- and
2-sentence windows, the shipped layout). The mean over families gets its interval from resampling every family at
once. With ``--margin``, the verdict says whether the mean balanced accuracy difference reaches it, once both runs have
every family (until then ``reached`` is null: the mean is over the families both runs have, and it says how many).

    python benchmarks/compare_lofo.py --candidate /tmp/mpnet_scores:pool --reference /tmp/base_scores:base \\
        --margin 0.03 --out benchmarks/results/compare_lofo_mpnet.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from claim_families import FAMILIES
from leave_one_family_out import SCORES_PROTOCOL
from results_file import add_out_option, write_results

from factscope.metrics.classification import auroc, balanced_accuracy

LAYOUTS = {"win1": ("win1",), "win2": ("win2",), "win12": ("win1", "win2")}


def parse_run(text: str) -> tuple[Path, str]:
    """``DIR:RECIPE`` as (scores folder, recipe)."""
    folder, _, recipe = text.rpartition(":")
    if not folder or not recipe:
        raise SystemExit(f"{text!r}: give the --scores folder and the recipe as DIR:RECIPE")
    return Path(folder), recipe


def run_protocol(folder: Path) -> dict | None:
    """The base and test sample a scores folder was made with (its ``protocol.json``; None if it has none)."""
    marker = folder / SCORES_PROTOCOL
    if not marker.is_file():
        return None
    recorded = json.loads(marker.read_text(encoding="utf-8"))
    return {key: recorded.get(key) for key in ("base", "base_digest", "per_family", "seed")}


def read_scores(folder: Path, recipe: str, family: str, layout: str) -> tuple[np.ndarray, np.ndarray, list] | None:
    """Gold Entailment, the best window's P(Entailment) and each pair's set, or None when the fold is not there."""
    path = folder / f"{recipe}.{family.replace(' ', '_')}.json"
    if not path.is_file():
        return None
    rows = json.loads(path.read_text(encoding="utf-8"))
    gold = np.array([row["label"] == 0 for row in rows])
    best = np.array([max(p[0] for name in LAYOUTS[layout] for p in row["probs"][name]) for row in rows])
    return gold, best, [row["source"] for row in rows]


def figures(gold: np.ndarray, score: np.ndarray) -> tuple[float, float]:
    """Balanced accuracy at P(Entailment) >= 0.5, and AUROC."""
    return balanced_accuracy(gold.tolist(), (score >= 0.5).tolist()), auroc(gold.tolist(), score.tolist())


def resamples(gold: np.ndarray, count: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``count`` bootstrap index sets of ``gold``'s pairs, each with both classes present."""
    drawn: list[np.ndarray] = []
    while len(drawn) < count:
        index = rng.integers(0, len(gold), len(gold))
        if gold[index].any() and not gold[index].all():
            drawn.append(index)
    return drawn


def interval(values: list[float]) -> list[float]:
    """The 2.5th and 97.5th percentiles."""
    return [float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))]


def compare(
    candidate: dict[str, tuple], reference: dict[str, tuple], resample_count: int, seed: int
) -> dict:
    """Per family and for the mean over families: both runs' figures, their differences and bootstrap intervals."""
    rng = np.random.default_rng(seed)
    by_family, draws = {}, {}
    for family, (gold, score, sources) in candidate.items():
        gold_ref, score_ref, sources_ref = reference[family]
        if sources != sources_ref or not np.array_equal(gold, gold_ref):
            raise SystemExit(f"{family}: the two runs scored different pairs; compare runs of the same --per-family")
        ba, au = figures(gold, score)
        ba_ref, au_ref = figures(gold, score_ref)
        draws[family] = [
            np.subtract(figures(gold[i], score[i]), figures(gold[i], score_ref[i]))
            for i in resamples(gold, resample_count, rng)
        ]
        differences = np.array(draws[family])
        by_family[family] = {
            "pairs": len(gold),
            "candidate": {"balanced_accuracy": ba, "auroc": au},
            "reference": {"balanced_accuracy": ba_ref, "auroc": au_ref},
            "balanced_accuracy_difference": ba - ba_ref,
            "balanced_accuracy_interval": interval(differences[:, 0].tolist()),
            "auroc_difference": au - au_ref,
            "auroc_interval": interval(differences[:, 1].tolist()),
        }
    mean_draws = np.mean([np.array(draws[family]) for family in by_family], axis=0)
    rows = list(by_family.values())
    metrics = ("balanced_accuracy", "auroc")
    return {
        "families": by_family,
        "mean": {
            "families": len(rows),
            "candidate": {m: float(np.mean([row["candidate"][m] for row in rows])) for m in metrics},
            "reference": {m: float(np.mean([row["reference"][m] for row in rows])) for m in metrics},
            **{
                f"{m}_difference": float(np.mean([row[f"{m}_difference"] for row in rows])) for m in metrics
            },
            **{f"{m}_interval": interval(mean_draws[:, k].tolist()) for k, m in enumerate(metrics)},
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidate", required=True, help="DIR:RECIPE of the run to judge")
    parser.add_argument("--reference", required=True, help="DIR:RECIPE of the run it must beat")
    parser.add_argument("--layout", choices=sorted(LAYOUTS), default="win12")
    parser.add_argument("--margin", type=float, default=None, help="the mean balanced accuracy gain asked for")
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    add_out_option(parser)
    args = parser.parse_args()
    runs, described = [], {}
    for role, text in (("candidate", args.candidate), ("reference", args.reference)):
        folder, recipe = parse_run(text)
        runs.append({f: s for f in FAMILIES if (s := read_scores(folder, recipe, f, args.layout)) is not None})
        described[role] = {"scores": str(folder), "recipe": recipe, "protocol": run_protocol(folder)}
    shared = [family for family in FAMILIES if family in runs[0] and family in runs[1]]
    if not shared:
        raise SystemExit("the two runs have no finished family in common")
    result = {
        "runs": described,
        **compare({f: runs[0][f] for f in shared}, {f: runs[1][f] for f in shared}, args.resamples, args.seed),
    }
    mean = result["mean"]
    if args.margin is not None:
        complete = len(shared) == len(FAMILIES)
        result["verdict"] = {
            "margin": args.margin,
            "reached": mean["balanced_accuracy_difference"] >= args.margin if complete else None,
            "families": f"{len(shared)} of {len(FAMILIES)}",
        }
    for family, row in result["families"].items():
        low, high = row["balanced_accuracy_interval"]
        print(f"{family:20s} BA {row['balanced_accuracy_difference']:+.3f} [{low:+.3f}, {high:+.3f}]"
              f"  AUROC {row['auroc_difference']:+.3f}", flush=True)
    low, high = mean["balanced_accuracy_interval"]
    print(f"{'mean':20s} BA {mean['balanced_accuracy_difference']:+.3f} [{low:+.3f}, {high:+.3f}]"
          f"  AUROC {mean['auroc_difference']:+.3f} over {len(shared)} of {len(FAMILIES)} families")
    write_results(__file__, args, result)


if __name__ == "__main__":
    main()
