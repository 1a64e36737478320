"""The cascade's uncertainty band: fitted on validation groups of the shippable sets, measured on the unseen sets.

A cascade (``--checker cascade:FIRST,SECOND``) keeps the first checker's verdict unless its deciding P(Entailment)
falls inside a band [low, high]; those claims go to the second checker. This script

1. checks a seeded sample of the *validation* groups of every shippable set (``--per-set`` pairs a set, the lowest
   SHA-256 of their ids) with both checkers, and fits the band there: among the bands that escalate at most
   ``--max-share`` of the pairs, the one that escalates the fewest while the cascade's mean balanced accuracy stays
   within ``--margin`` of the second checker's, else the one with the best balanced accuracy. No set it is measured
   on takes part: the unseen sets are not shippable, and validation groups are never trained on;
2. checks ``--unseen-per-set`` *test* pairs of each never-trained set (`unseen_sets.UNSEEN`; the same sample as
   `unseen_sets.py --limit`) with both checkers, and reports for
   the fitted band and for every band of the grid the share escalated and the cascade's mean balanced accuracy and
   AUROC, with each checker's own figures and pairs per second;
3. draws the trade-off (share escalated against balanced accuracy) as ``docs/images/cascade-tradeoff.svg``.

The cascade's verdict on a pair is, by construction, the first checker's verdict or the second's; so the figures of
every band come from the two checkers' verdicts on each pair, scored once and kept in ``--scores`` (a rerun reuses
them while the checker and the sample are the same).

Both checkers run in exact mode (every window that can decide a label). ``--device cuda`` runs them on a GPU, the
way every test pair is measured (``cascade_band_all_pairs.json``); ``--band LOW,HIGH`` measures a given
band, such as the shipped one, and keeps the band fitted on validation beside it in the results.

    python benchmarks/cascade_band.py --first embedded --second mpnet --per-set 60 --unseen-per-set 120
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from claim_families import PAIR_SETS, default_data_dir
from results_file import RESULTS_DIR, machine

from factscope.checkers.registry import make_checker
from factscope.core.files.manifest import describe
from factscope.evaluation.checker_eval import check_pairs
from factscope.evaluation.pairs import LabelledPair, read_pairs, sample_pairs
from factscope.metrics.classification import auroc, balanced_accuracy

GRID = tuple(round(x, 2) for x in np.arange(0.0, 1.0001, 0.05))
"""Band edges tried: every pair low < high of these."""
PICTURE = Path(__file__).resolve().parents[1] / "docs" / "images" / "cascade-tradeoff.svg"


@dataclass(frozen=True)
class Scored:
    """One checker's verdict on one pair: the gold and predicted entailment, and the deciding P(Entailment)."""

    dataset: str
    gold: bool
    entailed: bool
    score: float | None


def sample(data: Path, shippable: bool, part: str, per_set: int) -> list[LabelledPair]:
    """``per_set`` pairs of ``part`` of each shippable (or never-trained) set: those whose ids have the lowest
    SHA-256, as `factscope eval-checker --limit` takes them."""
    pairs: list[LabelledPair] = []
    for pair_set in PAIR_SETS:
        if pair_set.shippable == shippable:
            found, _ = read_pairs(data / pair_set.path, part=part)
            pairs += sample_pairs(found, per_set)
    return pairs


def scored(
    spec: str, pairs: list[LabelledPair], folder: Path, name: str, device: str = "cpu"
) -> tuple[list[Scored], float, dict]:
    """A checker's verdicts as :class:`Scored` rows (from ``folder`` when the same checker scored the same pairs
    before), the seconds spent checking, and the checker's description."""
    checker = make_checker(spec, device=device)
    described = describe(checker)
    key = hashlib.sha256(json.dumps([described, [p.id for p in pairs]], default=str).encode()).hexdigest()[:16]
    path = folder / f"{name}.{spec.replace(':', '_').replace('/', '_')}.{key}.json"
    if path.exists():
        kept = json.loads(path.read_text())
        return [Scored(**row) for row in kept["rows"]], kept["seconds"], described
    print(f"{spec}: checking {len(pairs)} {name} pairs", flush=True)
    verdicts, seconds = check_pairs(checker, pairs)
    rows = [
        Scored(
            dataset=p.dataset,
            gold=p.label == "entailment",
            entailed=v.label is not None and v.label.value == "Entailment",
            score=None if v.probs is None else float(v.probs[0]),
        )
        for p, v in zip(pairs, verdicts)
    ]
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"seconds": seconds, "rows": [row.__dict__ for row in rows]}))
    return rows, seconds, described


def cascade(first: list[Scored], second: list[Scored], low: float, high: float) -> tuple[list[Scored], float]:
    """The cascade's verdicts with band [low, high] and the share of pairs it escalates."""
    chosen = [
        b if a.score is not None and low <= a.score <= high else a for a, b in zip(first, second)
    ]
    escalated = sum(a.score is not None and low <= a.score <= high for a in first)
    return chosen, escalated / len(first) if first else 0.0


def figures(rows: list[Scored]) -> dict:
    """Per set and mean: balanced accuracy of Entailment vs not, and AUROC of P(Entailment)."""
    by_set: dict[str, list[Scored]] = {}
    for row in rows:
        by_set.setdefault(row.dataset, []).append(row)
    per_set = {}
    for name, members in by_set.items():
        gold = [r.gold for r in members]
        scores = [r.score if r.score is not None else float(r.entailed) for r in members]
        per_set[name] = {
            "pairs": len(members),
            "balanced_accuracy": balanced_accuracy(gold, [r.entailed for r in members]),
            "auroc": auroc(gold, scores) if len(set(gold)) == 2 else None,
        }
    mean = {
        metric: float(np.mean([f[metric] for f in per_set.values() if f[metric] is not None]))
        for metric in ("balanced_accuracy", "auroc")
    }
    return {"mean": mean, "by_set": per_set}


def fit_band(first: list[Scored], second: list[Scored], margin: float, max_share: float) -> dict:
    """Among the bands of the grid that escalate at most ``max_share`` of the pairs: the one that escalates the
    fewest with mean balanced accuracy within ``margin`` of the second checker's, else the best balanced accuracy."""
    target = figures(second)["mean"]["balanced_accuracy"] - margin
    candidates = []
    for low in GRID:
        for high in GRID:
            if low < high:
                rows, share = cascade(first, second, low, high)
                if share <= max_share:
                    candidates.append((share, figures(rows)["mean"]["balanced_accuracy"], low, high))
    within = [c for c in candidates if c[1] >= target]
    if within:
        share, ba, low, high = min(within, key=lambda c: (c[0], -c[1]))
        rule = f"fewest escalated with balanced accuracy >= the second checker's - {margin}"
    else:
        share, ba, low, high = max(candidates, key=lambda c: (c[1], -c[0]))
        rule = f"best balanced accuracy escalating at most {max_share:.0%} (none came within {margin})"
    return {"low": low, "high": high, "rule": rule, "validation_share": share, "validation_balanced_accuracy": ba}


def pareto(first: list[Scored], second: list[Scored]) -> list[dict]:
    """For each share escalated, the best balanced accuracy any band of the grid reaches: the trade-off curve."""
    points = []
    for low in GRID:
        for high in GRID:
            if low < high:
                rows, share = cascade(first, second, low, high)
                measured = figures(rows)["mean"]
                points.append({"low": low, "high": high, "share": share, **measured})
    points.sort(key=lambda p: (p["share"], -p["balanced_accuracy"]))
    front, best = [], -1.0
    for point in points:
        if point["balanced_accuracy"] > best:
            front.append(point)
            best = point["balanced_accuracy"]
    return front


def draw(front: list[dict], fitted: dict, first: dict, second: dict, path: Path) -> None:
    """An SVG of balanced accuracy against share escalated: the best band per share, the fitted band, both ends."""
    width, height, left, right, pad = 620, 330, 80, 40, 50
    low_ba = min([p["balanced_accuracy"] for p in front] + [first["balanced_accuracy"]]) - 0.01
    high_ba = max([p["balanced_accuracy"] for p in front] + [second["balanced_accuracy"]]) + 0.01

    def x(share: float) -> float:
        return left + share * (width - left - right)

    def y(ba: float) -> float:
        return height - pad - (ba - low_ba) / (high_ba - low_ba) * (height - 2 * pad)

    line = " ".join(f"{x(p['share']):.1f},{y(p['balanced_accuracy']):.1f}" for p in front)
    ticks = "".join(
        f'<text x="{x(s):.1f}" y="{height - pad + 16}" text-anchor="middle">{s:.0%}</text>' for s in (0, 0.25, 0.5, 0.75, 1)
    )
    levels = np.linspace(low_ba, high_ba, 5)
    yticks = "".join(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.3f}</text>' for v in levels)
    marks = "".join(
        f'<circle cx="{x(s):.1f}" cy="{y(b):.1f}" r="5" fill="{c}"/>'
        f'<text x="{x(s) + dx:.1f}" y="{y(b) + dy:.1f}" text-anchor="{anchor}">{t}</text>'
        for s, b, c, t, dx, dy, anchor in (
            (0.0, first["balanced_accuracy"], "#888", "small checker alone", 8, -8, "start"),
            (1.0, second["balanced_accuracy"], "#444", "accurate checker alone", -8, 18, "end"),
            (fitted["share"], fitted["balanced_accuracy"], "#c0392b",
             f"fitted band [{fitted['low']:.2f}, {fitted['high']:.2f}]", 8, 18, "start"),
        )
    )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        f'font-size="12"><rect width="100%" height="100%" fill="white"/>'
        f'<line x1="{left}" y1="{height - pad}" x2="{width - right}" y2="{height - pad}" stroke="black"/>'
        f'<line x1="{left}" y1="{pad}" x2="{left}" y2="{height - pad}" stroke="black"/>{ticks}{yticks}'
        f'<polyline points="{line}" fill="none" stroke="#2c7fb8" stroke-width="2"/>{marks}'
        f'<text x="{(left + width - right) / 2}" y="{height - 12}" text-anchor="middle">share of claims escalated</text>'
        f'<text x="16" y="{height / 2}" transform="rotate(-90 16 {height / 2})" text-anchor="middle">'
        f"mean balanced accuracy, never-trained sets</text></svg>\n"
    )
    path.write_text(svg, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--first", default="embedded", help="the checker that decides first")
    parser.add_argument("--second", default="mpnet", help="the checker that decides inside the band")
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--per-set", type=int, default=60, help="validation pairs a shippable set")
    parser.add_argument("--unseen-per-set", type=int, default=120, help="test pairs a never-trained set")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="where both checkers run")
    parser.add_argument(
        "--band", default=None, metavar="LOW,HIGH",
        help="measure this band (e.g. the shipped one) instead of fitting one on the validation pairs",
    )
    parser.add_argument("--margin", type=float, default=0.005)
    parser.add_argument("--max-share", type=float, default=0.4)
    parser.add_argument("--scores", type=Path, default=Path(__file__).resolve().parent / ".scores")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "cascade_band.json")
    parser.add_argument("--picture", type=Path, default=PICTURE)
    args = parser.parse_args()

    validation = sample(args.data, shippable=True, part="validation", per_set=args.per_set)
    unseen = sample(args.data, shippable=False, part="test", per_set=args.unseen_per_set)
    runs = {}
    for role, spec in (("first", args.first), ("second", args.second)):
        val_rows, _, described = scored(spec, validation, args.scores, "validation", args.device)
        test_rows, seconds, _ = scored(spec, unseen, args.scores, "unseen", args.device)
        runs[role] = {"spec": spec, "checker": described, "validation": val_rows, "unseen": test_rows,
                      "seconds": seconds}
    band = fit_band(runs["first"]["validation"], runs["second"]["validation"], args.margin, args.max_share)
    if args.band:
        low, high = (float(edge) for edge in args.band.split(","))
        band = {"low": low, "high": high, "rule": "given (--band)", "fitted_on_validation": band}
    rows, share = cascade(runs["first"]["unseen"], runs["second"]["unseen"], band["low"], band["high"])
    measured = figures(rows)
    front = pareto(runs["first"]["unseen"], runs["second"]["unseen"])
    first, second = figures(runs["first"]["unseen"]), figures(runs["second"]["unseen"])
    results = {
        "first": {"spec": args.first, "checker": runs["first"]["checker"], **first,
                  "pairs_per_second": len(unseen) / runs["first"]["seconds"]},
        "second": {"spec": args.second, "checker": runs["second"]["checker"], **second,
                   "pairs_per_second": len(unseen) / runs["second"]["seconds"]},
        "band": band,
        "mode": "exact",
        "device": args.device,
        "validation": {"pairs": len(validation), "per_set": args.per_set,
                       "sets": sorted({p.dataset for p in validation})},
        "unseen": {"pairs": len(unseen), "per_set": args.unseen_per_set, "part": "test",
                   "sets": sorted({p.dataset for p in unseen})},
        "cascade": {"share_escalated": share, **measured},
        "tradeoff": front,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine(),
    }
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    draw(front, {"share": share, "balanced_accuracy": measured["mean"]["balanced_accuracy"], **band},
         first["mean"], second["mean"], args.picture)
    print(json.dumps({k: results[k] for k in ("band", "cascade")}, indent=2, default=str)[:2000])
    print("first", first["mean"], "second", second["mean"])


if __name__ == "__main__":
    main()
