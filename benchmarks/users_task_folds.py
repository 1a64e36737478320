"""The embedded checker's recipe left one family out: a checker trained without each users'-task family, scored on it.

The embedded checker trains on the train groups of three users'-task sets (Factcheck-GPT, SummEdits, BEGIN), so
its users'-task figures on those families are on unseen pairs but not on an unseen family. This script retrains
the model card's recipe (``MODEL_CARD.md``, "Training procedure") once with every set and once without each of the
three, all from the same starting encoder, and scores each checker with ``users_task.py score``:

- ``all families``: the recipe as shipped, scored on every users'-task family;
- one fold per trained family: the recipe without that family's set, scored on that family only.

Each family's left-out figure is its fold's (or, for a family no set of the recipe comes from, the all-families
checker's); the difference to the all-families checker, with its 95% paired bootstrap interval
(``users_task.paired_difference``), is what training on the family bought. The starting encoder must be a
MultiNLI-trained member, as the shipped checker's was (the model card names it); the recipe's fourth set, the
first 1,500 lines of MultiNLI matched dev, is written to ``--work`` from the development data. Every step is
skipped when its output is there, so a rerun continues. About 3 minutes of training and 3 to 8 of scoring per
checker on 2 idle CPU cores.

    factscope train-checker --encoder packaged-minilm --data DATA/nli/mnli_dev_matched.jsonl \\
        --epochs 3 --learning-rate 1e-4 --out MEMBER     # a MultiNLI member, about 13 minutes
    python benchmarks/users_task_folds.py --start MEMBER/encoder --work FOLDS
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from itertools import islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from claim_families import default_data_dir
from results_file import add_out_option, write_results
from users_task import USERS_TASK_SETS, load, paired_difference

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
    """Run one step, its output to ``log``; stop with the log's name if it fails."""
    print(" ".join(command), flush=True)
    with log.open("w", encoding="utf-8") as sink:
        if subprocess.run(command, stdout=sink, stderr=subprocess.STDOUT, check=False).returncode:
            sys.exit(f"failed: see {log}")


def train_and_score(args: argparse.Namespace) -> dict[str, str]:
    """Train every checker not trained yet and score it on its families; the checker name of each folder."""
    args.work.mkdir(parents=True, exist_ok=True)
    mnli = args.work / "mnli_first_1500.jsonl"
    if not mnli.exists():
        with (args.data / "nli" / "mnli_dev_matched.jsonl").open(encoding="utf-8") as source:
            mnli.write_text("".join(islice(source, MNLI_LINES)), encoding="utf-8")
    names = {}
    for folder, trained in folds().items():
        out = args.work / folder
        if not (out / "manifest.json").exists():
            data = [item for name in trained for item in ("--data", str(args.data / "claims" / f"{name}.jsonl"))]
            command = ["factscope", "train-checker", "--encoder", str(args.start), "--data", str(mnli), *data]
            run([*command, *RECIPE_OPTIONS, "--out", str(out)], args.work / f"{folder}.log")
        names[folder] = f"path:{out}"
        left_out = set(RECIPE_SETS) - set(trained)
        only = [stem for name in left_out for stem in sets_of(RECIPE_SETS[name])] or [
            Path(path).stem for path in USERS_TASK_SETS
        ]
        score = [sys.executable, str(Path(__file__).with_name("users_task.py")), "score", "--checker", names[folder]]
        score += ["--only", *only, "--per-set", str(args.per_set), "--nli-per-set", "0"]
        run([*score, "--scores", str(args.scores), "--data", str(args.data)], args.work / f"score_{folder}.log")
    return names


def figures(args: argparse.Namespace, names: dict[str, str]) -> dict:
    """Each family's left-out and trained-on figures, the means, and what training on the families bought."""
    every = load(args.scores, names["all_families"])
    left_out = [row for row in every if row["family"] not in RECIPE_SETS.values()]
    for folder, checker in names.items():
        if folder != "all_families":
            left_out += load(args.scores, checker)
    table = paired_difference(every, left_out, args.resamples, args.seed)
    for family, entry in table["per_family"].items():
        entry["trained_on"] = entry.pop("before")
        entry["left_out"] = entry.pop("after")
        entry["recipe_trains_on_it"] = family in RECIPE_SETS.values()
    table["mean"] = {"trained_on": table["mean"]["before"], "left_out": table["mean"]["after"]}
    return {"start": str(args.start), "checkers": names, "recipe": RECIPE_OPTIONS, **table}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--start", type=Path, required=True, help="the MultiNLI-trained encoder every fold starts from")
    parser.add_argument("--work", type=Path, required=True, help="folder for the data, checkers, scores and logs")
    parser.add_argument("--per-set", type=int, default=400, help="users'-task pairs scored per set")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=default_data_dir())
    add_out_option(parser)
    args = parser.parse_args()
    args.scores = args.work / "scores"
    table = figures(args, train_and_score(args))
    print(json.dumps(table, indent=1))
    write_results("users_task_folds", args, table)


if __name__ == "__main__":
    main()
