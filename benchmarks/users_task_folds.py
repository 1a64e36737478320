"""The embedded checker's recipe left one family out: a checker trained without each users'-task family, scored on it.

The embedded checker trains on the train groups of three users'-task sets (Factcheck-GPT, SummEdits, BEGIN), so
its users'-task figures on those families are on unseen pairs but not on an unseen family. This script retrains
the model card's recipe (``MODEL_CARD.md``, "Training procedure") once with every set and once without each of the
three, all from the same starting encoder, and scores each checker on every users'-task set with
``users_task.py score``: the all-families checker and each fold on its left-out family at ``--per-set`` pairs a
set, each fold on the families it trained on (unseen pairs of them) at ``--fit-per-set``.

Each family's figures come from the checker that left it out (its fold; the all-families checker for a family that
no set of the recipe comes from), every decision fitted on that checker's pairs of the other families
(``users_task.family_figures``): so no figure is on a family the checker trained or was tuned on. The same figures
of the all-families checker, which trained on the family, and the difference at the labels with its 95% paired
bootstrap interval (``users_task.paired_difference``) say what training on a family buys. The starting encoder must
be a MultiNLI-trained member, as the shipped checker's was (the model card names it); the recipe's fourth set, the
first 1,500 lines of MultiNLI matched dev, is written to ``--work`` from the development data. Every step is
skipped when its output is there, so a rerun continues. About 3 minutes of training per checker and 5 to 25 of
scoring on 2 idle CPU cores (long documents take the most).

    factscope train-checker --data DATA/nli/mnli_dev_matched.jsonl --out MEMBER   # a MultiNLI member, 13 minutes
    python benchmarks/users_task_folds.py --start MEMBER/encoder --work FOLDS
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from itertools import combinations, islice
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from claim_families import default_data_dir
from results_file import add_out_option, write_results
from users_task import (
    DRAW,
    USERS_TASK_SETS,
    decision_support,
    family_figures,
    load,
    mean_of,
    own_family_figures,
    pair_parts,
    paired_difference,
)

from factscope.metrics.classification import balanced_accuracy

RECIPE_SETS = {"factcheckgpt": "LLM claims vs web evidence", "summedits": "summaries", "begin": "dialogue"}
"""The users'-task sets the embedded recipe trains on, with their family."""

RECIPE_OPTIONS = [
    "--epochs", "1", "--learning-rate", "5e-5", "--long-context", "0", "--unrelated-context", "0.05",
    "--focus-words", "100", "--weights", "int8",
]  # fmt: skip
"""The model card's training options, beside the data."""

MNLI_LINES = 1500


def folds() -> dict[str, tuple[str, ...]]:
    """Each checker's folder name and the recipe sets it trains on: all of them, then without each in turn."""
    slugs = {"summaries": "summaries", "dialogue": "dialogue", "LLM claims vs web evidence": "web"}
    every = tuple(RECIPE_SETS)
    named = {"all_families": every}
    for left_out, family in RECIPE_SETS.items():
        named[f"fold_{slugs[family]}"] = tuple(name for name in every if name != left_out)
    return named


def sets_of(family: str) -> list[str]:
    """The users'-task sets (file stems) of one family."""
    return [Path(path).stem for path, named in USERS_TASK_SETS.items() if named == family]


def run(command: list[str], log: Path) -> None:
    """Run one step, its output appended to ``log``; stop with the log's name if it fails."""
    print(" ".join(command), flush=True)
    with log.open("a", encoding="utf-8") as sink:
        if subprocess.run(command, stdout=sink, stderr=subprocess.STDOUT, check=False).returncode:
            sys.exit(f"failed: see {log}")


def train_and_score(args: argparse.Namespace) -> dict[str, str]:
    """Train every checker not trained yet and score it on every users'-task set (the families it trains on, where
    its decisions are fitted, at ``--fit-per-set``); the checker name of each folder."""
    args.work.mkdir(parents=True, exist_ok=True)
    mnli = args.work / "mnli_first_1500.jsonl"
    if not mnli.exists():
        with (args.data / "nli" / "mnli_dev_matched.jsonl").open(encoding="utf-8") as source:
            mnli.write_text("".join(islice(source, MNLI_LINES)), encoding="utf-8")
    script = str(Path(__file__).with_name("users_task.py"))
    names = {}
    for folder, trained in folds().items():
        out = args.work / folder
        if not (out / "manifest.json").exists():
            data = [item for name in trained for item in ("--data", str(args.data / "claims" / f"{name}.jsonl"))]
            command = ["factscope", "train-checker", "--encoder", str(args.start), "--data", str(mnli), *data]
            run([*command, *RECIPE_OPTIONS, "--out", str(out)], args.work / f"{folder}.log")
        names[folder] = f"path:{out}"
        held = [stem for name in set(RECIPE_SETS) - set(trained) for stem in sets_of(RECIPE_SETS[name])]
        every = [Path(path).stem for path in USERS_TASK_SETS]
        fitting = [stem for stem in every if stem not in held] if held else []
        for only, per_set in ((held or every, args.per_set), (fitting, args.fit_per_set)):
            if only:
                score = [sys.executable, script, "score", "--checker", names[folder], "--only", *only]
                score += ["--per-set", str(per_set), "--nli-per-set", "0", "--scores", str(args.scores)]
                run([*score, "--data", str(args.data)], args.work / f"score_{folder}.log")
    return names


def left_out_checker(names: dict[str, str], family: str) -> str:
    """The checker that did not train on ``family``: its fold, or the all-families checker for a family that no
    set of the recipe comes from."""
    for folder, trained in folds().items():
        left_out = set(RECIPE_SETS) - set(trained)
        if any(RECIPE_SETS[name] == family for name in left_out):
            return names[folder]
    return names["all_families"]


def figures(args: argparse.Namespace, names: dict[str, str], parts: dict[str, str]) -> dict:
    """Each family's figures from the checker that left it out, every decision fitted on the other families'
    pairs of the same checker (``users_task.family_figures``); the same from the all-families checker, which
    trained on it; the means; what training on the families bought at the labels; and each family's test groups
    with a decision fitted on its own validation groups (``parts``: each pair's part), both ways."""
    rows = {checker: [row for row in load(args.scores, checker) if row["column"] == "users"] for checker in names.values()}
    every = rows[names["all_families"]]
    families = sorted({row["family"] for row in every})
    per_family: dict[str, dict] = {}
    left_out_rows: list[dict] = []
    for family in families:
        checker = left_out_checker(names, family)
        held = [row for row in rows[checker] if row["family"] == family]
        left_out_rows += held
        per_family[family] = {
            "pairs": len(held),
            "recipe_trains_on_it": family in RECIPE_SETS.values(),
            "left_out_checker": checker,
            "left_out": family_figures(held, [row for row in rows[checker] if row["family"] != family]),
            "trained_on": family_figures(
                [row for row in every if row["family"] == family], [row for row in every if row["family"] != family]
            ),
        }
    means = {
        side: {
            f"{decision}_{measure}": float(np.mean([entry[side][decision][measure] for entry in per_family.values()]))
            for decision, measure in MEASURES
        }
        for side in ("left_out", "trained_on")
    }
    labels = paired_difference(every, left_out_rows, args.resamples, args.seed)
    own = {
        side: {
            family: own_family_figures(
                [row for row in rows[checker(family)] if row["family"] == family], parts
            )
            for family in families
        }
        for side, checker in (
            ("left_out", lambda family: left_out_checker(names, family)),
            ("trained_on", lambda family: names["all_families"]),
        )
    }
    return {
        "start": str(args.start),
        "checkers": names,
        "recipe": RECIPE_OPTIONS,
        "per_family": per_family,
        "mean": means,
        "labels_left_out_vs_trained_on": labels,
        "decision_search": decision_search(rows, names, families),
        "own_family": {side: {"per_family": table, "mean": mean_of(table)} for side, table in own.items()},
    }


def decision_search(rows: dict[str, list[dict]], names: dict[str, str], families: list[str], most: int = 10) -> dict:
    """Claim decisions on every set of one to three features, each fitted on the other families and measured on
    the family left out, both ways (with the checker that left the family out, and with the all-families checker):
    the ``most`` best on left-out families, and the labels for reference. The sets are ranked on the families they
    are measured on, so the best figure is optimistic."""
    from factscope.checkers.claim_decision import FEATURES

    def mean_ba(features: tuple[str, ...], left_out: bool) -> float:
        scores = []
        for family in families:
            checker = left_out_checker(names, family) if left_out else names["all_families"]
            held = [row for row in rows[checker] if row["family"] == family]
            fit = [row for row in rows[checker] if row["family"] != family]
            gold = np.array([row["supported"] for row in held])
            if features:
                called = decision_support(fit, held, features)[1]
            else:
                called = np.array([row["label"] == "Entailment" for row in held])
            scores.append(float(balanced_accuracy(gold.tolist(), called.tolist())))
        return float(np.mean(scores))

    tried = [features for size in (1, 2, 3) for features in combinations(FEATURES, size)]
    ranked = sorted(((mean_ba(features, True), features) for features in tried), reverse=True)[:most]
    return {
        "feature_sets_tried": len(tried),
        "best_on_left_out": [
            {"features": list(features), "left_out_ba": ba, "trained_on_ba": mean_ba(features, False)}
            for ba, features in ranked
        ],
        "labels": {"left_out_ba": mean_ba((), True), "trained_on_ba": mean_ba((), False)},
    }


MEASURES = (
    ("labels", "ba"), ("labels", "auroc"), ("global_threshold", "ba"), ("oracle_threshold", "ba"),
    ("claim_decision", "ba"), ("claim_decision", "auroc"),
)  # fmt: skip
"""The decisions and measures averaged over the families."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--start", type=Path, required=True, help="the MultiNLI-trained encoder every fold starts from")
    parser.add_argument("--work", type=Path, required=True, help="folder for the data, checkers, scores and logs")
    parser.add_argument("--per-set", type=int, default=400, help="pairs scored per set of a left-out family")
    parser.add_argument(
        "--fit-per-set", type=int, default=150, help="pairs scored per set of the families a fold trains on"
    )
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=default_data_dir())
    add_out_option(parser)
    args = parser.parse_args()
    args.scores = args.work / "scores"
    table = figures(args, train_and_score(args), pair_parts(args.data, DRAW, 0))
    print(json.dumps(table, indent=1))
    write_results("users_task_folds", args, table)


if __name__ == "__main__":
    main()
