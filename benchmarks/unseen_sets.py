"""Checkers on the labelled sets that no shipped checker trained on: the figures that say how a checker generalises.

The sets are the development data's sets whose terms keep them out of a shipped checker's training
(`claim_families.PAIR_SETS`, ``shippable=False``): SICK, RTE, HealthVer, COVID-Fact, SciFact, NLI4CT, NLI4CT 2024
contrast, FNC-1 and CONTROL. Each contributes the same seeded sample of its test part (``--limit`` pairs a set, the lowest SHA-256 of
their ids, as `factscope eval-checker --part test --limit N` takes them). Every ``--run`` is one checker in one
layout, evaluated as `eval-checker` does (balanced accuracy of Entailment vs not, AUROC of P(Entailment)); the MiniLM
cosine of claim and whole premise is the floor (its AUROC, and its balanced accuracy at the threshold best on the
other sets' samples, never on the set itself).

    python benchmarks/unseen_sets.py --run shipped=embedded \\
        --run shipped-win2=embedded:window_sentences=2 --run candidate=path:/tmp/checker --limit 120

A run is ``NAME=SPEC`` or ``NAME=SPEC:SETTING=VALUE,...`` with integer settings of `make_checker`
(``window_sentences``, ``min_window_sentences``, ``max_tokens``), ``mode=fast`` (each claim against its most
relevant windows only: what a larger checker costs to read long premises in full) or ``precision=int8`` (ONNX
Runtime's dynamic int8). Results go to
``benchmarks/results/unseen_sets.json``; runs already there under the same name, options and checker (its
weights' digest and settings) are kept, so a rerun adds only the new or changed ones. A file made from another
sample (``--limit``, or other pairs in the data) is refused: name another ``--out``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from claim_families import PAIR_SETS, default_data_dir
from results_file import RESULTS_DIR, add_out_option, machine

from factscope.checkers.registry import make_checker
from factscope.core.files.manifest import describe
from factscope.evaluation.checker_eval import evaluate_checker
from factscope.evaluation.pairs import read_pairs, sample_pairs
from factscope.metrics.classification import auroc, balanced_accuracy

UNSEEN = tuple(s for s in PAIR_SETS if not s.shippable)
INTEGER_SETTINGS = ("window_sentences", "min_window_sentences", "max_tokens")
MODES = ("exact", "fast")
CHOICES = {"mode": MODES, "precision": ("fp32", "int8")}
"""The settings of a run that take a name, with their choices."""


def parse_run(text: str) -> tuple[str, str, dict[str, int | str]]:
    """``NAME=SPEC[:SETTING=VALUE,...]`` as (name, checker spec, settings)."""
    name, _, rest = text.partition("=")
    spec = rest
    settings: dict[str, int | str] = {}
    head, _, tail = rest.rpartition(":")
    if head and "=" in tail:
        spec = head
        for item in tail.split(","):
            key, _, value = item.partition("=")
            if value in CHOICES.get(key, ()):
                settings[key] = value
            elif key in INTEGER_SETTINGS:
                settings[key] = int(value)
            else:
                raise SystemExit(
                    f"--run {text!r}: {item!r} is not mode=exact|fast, precision=fp32|int8 or one of "
                    f"{', '.join(INTEGER_SETTINGS)}"
                )
    if not name or not spec:
        raise SystemExit(f"--run {text!r}: give NAME=SPEC")
    return name, spec, settings


def sample_digest(samples: dict[str, list]) -> str:
    """``sha256:`` and 16 hex digits over each set's name and its sampled pairs' ids, in order."""
    listing = [[name, [pair.id for pair in pairs]] for name, pairs in samples.items()]
    return "sha256:" + hashlib.sha256(json.dumps(listing).encode("utf-8")).hexdigest()[:16]


def refuse_other_sample(out: Path, results: dict, sample: dict) -> None:
    """Stop when ``out`` holds runs measured on another sample: their figures and this run's would not compare."""
    differing = [key for key, value in sample.items() if key in results and results[key] != value]
    if differing:
        raise SystemExit(
            f"{out} holds runs on another sample ({', '.join(differing)} differ): "
            "give another --out, or rerun with the file's --limit and data"
        )


def cosine_floor(samples: dict[str, list]) -> dict[str, dict[str, float]]:
    """Per set: the MiniLM cosine's AUROC, and its balanced accuracy at the threshold best on the other sets."""
    from factscope.hf.encoders import BiEncoder

    encoder = BiEncoder()
    scores = {
        name: np.asarray(encoder.cosine([p.premise for p in pairs], [p.hypothesis for p in pairs]))
        for name, pairs in samples.items()
    }
    gold = {name: np.array([p.label == "entailment" for p in pairs]) for name, pairs in samples.items()}
    floor = {}
    for name in samples:
        others = np.concatenate([scores[n] for n in samples if n != name])
        others_gold = np.concatenate([gold[n] for n in samples if n != name])
        threshold = max(
            np.unique(others), key=lambda t: balanced_accuracy(others_gold.tolist(), (others >= t).tolist())
        )
        floor[name] = {
            "balanced_accuracy": balanced_accuracy(gold[name].tolist(), (scores[name] >= threshold).tolist()),
            "auroc": auroc(gold[name].tolist(), scores[name].tolist()),
        }
    return floor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", action="append", required=True, help="NAME=SPEC[:SETTING=VALUE,...]; repeat")
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--limit", type=int, default=120, help="test pairs per set")
    parser.add_argument("--batch-size", type=int, default=32)
    add_out_option(parser)
    args = parser.parse_args()
    out = args.out or RESULTS_DIR / "unseen_sets.json"

    samples = {}
    for pair_set in UNSEEN:
        pairs, _ = read_pairs(args.data / pair_set.path, part="test")
        samples[pair_set.name] = sample_pairs(pairs, args.limit)
    sample = {"sets": list(samples), "limit": args.limit, "sample": sample_digest(samples)}
    results = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    refuse_other_sample(out, results, sample)
    results = {**sample, "runs": {}, **results, "sample": sample["sample"]}
    if "cosine_floor" not in results:
        results["cosine_floor"] = cosine_floor(samples)
    for text in args.run:
        name, spec, settings = parse_run(text)
        checker = make_checker(spec, batch_size=args.batch_size, **settings)
        described = describe(checker)
        kept = results["runs"].get(name, {})
        if kept.get("run") == text and kept.get("checker") == described:
            continue
        if kept:
            print(f"{name}: the file's run was another checker or layout; measuring it again", flush=True)
        began = time.perf_counter()
        report = evaluate_checker(checker, [p for pairs in samples.values() for p in pairs], batch_size=args.batch_size)
        results["runs"][name] = {
            "run": text,
            "checker": described,
            "mean_balanced_accuracy": report.mean_balanced_accuracy,
            "mean_auroc": report.mean_auroc,
            "by_set": {
                d.dataset: {"balanced_accuracy": d.balanced_accuracy, "auroc": d.auroc} for d in report.datasets
            },
            "seconds": round(time.perf_counter() - began, 1),
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "machine": machine(),
        }
        print(name, round(report.mean_balanced_accuracy or 0, 4), round(report.mean_auroc or 0, 4), flush=True)
        out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    floor = results["cosine_floor"]
    results["summary"] = {
        "cosine": {m: float(np.mean([f[m] for f in floor.values()])) for m in ("balanced_accuracy", "auroc")},
        **{
            name: {"balanced_accuracy": run["mean_balanced_accuracy"], "auroc": run["mean_auroc"]}
            for name, run in results["runs"].items()
        },
    }
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(results["summary"], indent=2))


if __name__ == "__main__":
    main()
