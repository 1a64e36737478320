"""The users' task: LLM and LLM-like outputs checked against their sources, measured family by family.

factscope's users check what an LLM wrote (a summary, a dialogue turn, a RAG answer, a claim) against the documents
it should rest on. This benchmark is built from the development data's sets of that kind
(:data:`USERS_TASK_SETS`: summaries, dialogue responses, LLM claims against web evidence, long documents), with the
NLI and claim-verification sets as a second column (:data:`NLI_SETS`). Only pairs of the validation and test
groups are drawn (``factscope.evaluation.splits``): the shipped checker trained on the train groups of three of
these sets, never on these pairs.

Two steps:

``score``
    runs a checker as ``factscope check`` does (windows, relevance, value check; no claim decision) on a seeded
    sample of each set (``--draw``; a slower checker scores the first ``--per-set`` of the same sample) and
    appends one JSON line per pair to ``--scores DIR/<checker>.jsonl``: the gold label, the checker's label, its
    probabilities and the claim's measurements (``checkers.segmented.claim_measurements``), with the seconds per
    batch. A rerun continues the file; one with another checker's files or another draw is refused (the settings
    are kept beside the file, ``<checker>.settings.json``). With ``--precision int8`` the checker runs in ONNX
    Runtime's int8 and its file is ``<checker>.int8.jsonl``: the other steps name it ``CHECKER.int8``.
``fit``
    reads those lines and reports, per family and as a mean, balanced accuracy of Entailment against the rest and
    AUROC, leave one family out: every figure of a family comes from a decision fitted on the other families only.
    Decisions compared: the checker's own labels (``labels``); one global threshold on the best window's
    P(Entailment) fitted on the other families (``global_threshold``); the per-family best threshold chosen on the
    family's own pairs (``oracle_threshold``, optimistic: an upper reference, not a decision anyone can ship); the
    claim decision on its default features (``claim_decision``), on every feature (``claim_decision_all``) and on
    P(Entailment) alone (``threshold_decision``). ``own_family`` gives, per family, the test groups at the labels
    and with a threshold and a claim decision fitted on the family's own validation groups: what a user's
    ``eval-checker --fit-decision`` on their own kind of output gets.
    With ``--second`` it also simulates the cascade (pairs whose best-window P(Entailment) under the first checker
    lies in a band take the second checker's label), the band fitted leave one family out. ``--write-decision FILE`` saves the
    claim decision fitted on every family of the users' task.
``compare``
    sets two scored checkers side by side on the pairs both scored (a checker before and after a change): per
    family and as a mean, with the mean differences' 95% paired bootstrap intervals (pairs resampled within each
    family and class), and the share of pairs the two label alike.

    python benchmarks/users_task.py score --checker embedded
    python benchmarks/users_task.py score --checker mpnet --per-set 120 --nli-per-set 0
    python benchmarks/users_task.py fit --checker embedded --write-decision decision.json
    python benchmarks/users_task.py score --checker mpnet --only summedits --per-set 32 --scores QUIET
    python benchmarks/users_task.py seconds --scores QUIET    # after both checkers scored QUIET on a quiet machine
    python benchmarks/users_task.py compare --before mpnet --after path:my-mpnet
    python benchmarks/users_task.py score --checker mpnet --precision int8 --per-set 60 --nli-per-set 0
    python benchmarks/users_task.py compare --before mpnet --after mpnet.int8
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from claim_families import default_data_dir
from claim_pairs import read_pairs, sample
from results_file import add_out_option, write_results

from factscope.metrics.classification import auroc, balanced_accuracy, best_threshold

USERS_TASK_SETS: dict[str, str] = {
    "claims/summedits.jsonl": "summaries",
    "claims/begin.jsonl": "dialogue",
    "claims/faithdial_audit.jsonl": "dialogue",
    "claims/factcheckgpt.jsonl": "LLM claims vs web evidence",
    "claims/contractnli.jsonl": "long documents",
    "claims/control.jsonl": "long documents",
}
"""The users'-task sets and their families (left out one family at a time)."""

NLI_SETS: dict[str, str] = {
    "nli/rte.jsonl": "general NLI",
    "nli/sick.jsonl": "general NLI",
    "claims/fever_dev.jsonl": "Wikipedia claims",
    "claims/healthver.jsonl": "health and science",
    "claims/scifact_rte.jsonl": "health and science",
    "claims/fnc1.jsonl": "news stance",
}
"""The second column: NLI and claim-verification sets, never used to fit a decision."""

DEFAULT_SCORES = Path.home() / ".cache" / "factscope-benchmarks" / "users_task"

DRAW = 400
"""Pairs drawn from each users'-task set (``score --draw``), of which ``fit`` reads the split parts."""


def drawn_pairs(data: Path, path: str, n: int, seed: int) -> list:
    """``n`` seeded pairs of the validation and test groups of one set."""
    pairs = read_pairs(data / path, "validation") + read_pairs(data / path, "test")
    return sample(pairs, n, seed)


def checker_files(checker: str) -> str | None:
    """A digest of the files a checker loads: its folder for ``path:DIR``, the package's folder for ``embedded``
    and ``mpnet``; None for the others (a hub model is known by its name)."""
    from factscope.checkers.embedded import files_digest, mpnet_checker_dir, shipped_checker_dir

    folders = {"embedded": shipped_checker_dir(), "mpnet": mpnet_checker_dir()}
    folder = Path(checker.removeprefix("path:")) if checker.startswith("path:") else folders.get(checker)
    if folder is None or not folder.is_dir():
        return None
    return files_digest(folder, [path for path in folder.rglob("*") if path.is_file()])


def scoring_settings(args: argparse.Namespace) -> dict:
    """What a scores file's rows depend on: the checker and its files, and the seeded draws the pairs come from."""
    return {
        "checker": args.checker,
        **({"precision": args.precision} if args.precision != "fp32" else {}),
        "files": checker_files(args.checker),
        "seed": args.seed,
        "draw": args.draw,
        "nli_draw": args.nli_draw,
    }


def same_scoring(out: Path, settings: dict) -> None:
    """Record ``settings`` beside the scores file ``out`` (``<name>.settings.json``), or stop when the file was
    scored with other settings: continuing it would mix two checkers' or two samples' rows."""
    recorded = out.with_suffix(".settings.json")
    if recorded.exists():
        before = json.loads(recorded.read_text(encoding="utf-8"))
        differ = sorted(key for key in settings.keys() | before.keys() if settings.get(key) != before.get(key))
        if differ:
            sys.exit(
                f"{out} was scored with other settings ({', '.join(differ)}: {[before.get(k) for k in differ]} "
                f"then, {[settings.get(k) for k in differ]} now); score into another --scores folder"
            )
    else:
        recorded.write_text(json.dumps(settings, indent=1) + "\n", encoding="utf-8")


def score(args: argparse.Namespace) -> None:
    """Append the checker's labels and measurements for every drawn pair not scored yet."""
    from factscope.checkers.base import CheckTask
    from factscope.checkers.registry import make_checker
    from factscope.checkers.segmented import claim_measurements

    named = args.checker if args.precision == "fp32" else f"{args.checker}.{args.precision}"
    out = scores_file(args.scores, named)
    out.parent.mkdir(parents=True, exist_ok=True)
    same_scoring(out, scoring_settings(args))
    done = {json.loads(line)["id"] for line in out.read_text().splitlines()} if out.exists() else set()
    checker = make_checker(args.checker, precision=args.precision)
    wanted = [(path, family, "users", args.per_set, args.draw) for path, family in USERS_TASK_SETS.items()]
    wanted += [(path, family, "nli", args.nli_per_set, args.nli_draw) for path, family in NLI_SETS.items()]
    with out.open("a", encoding="utf-8") as sink:
        for path, family, column, n, draw in wanted:
            name = Path(path).stem
            if args.only and name not in args.only:
                continue
            todo = [
                (f"{name}:{index}", pair)
                for index, pair in enumerate(drawn_pairs(args.data, path, draw, args.seed)[:n])
                if f"{name}:{index}" not in done
            ]
            for start in range(0, len(todo), args.batch):
                batch = todo[start : start + args.batch]
                tasks = [CheckTask(pair.claim, (pair.premise,)) for _, pair in batch]
                began = time.perf_counter()
                judged = checker.judgements(tasks)
                verdicts = [checker.decide_without_claim_decision(task, found) for task, found in zip(tasks, judged)]
                seconds = time.perf_counter() - began
                for (pair_id, pair), task, found, verdict in zip(batch, tasks, judged, verdicts):
                    row = {
                        "id": pair_id,
                        "set": name,
                        "family": family,
                        "column": column,
                        "gold": pair.label,
                        "supported": pair.supported,
                        "label": verdict.label.value if verdict.label else None,
                        "rule": verdict.rule,
                        "measured": claim_measurements(task, found, verdict),
                        "windows": len(found),
                        "seconds": seconds / len(batch),
                    }
                    sink.write(json.dumps(row) + "\n")
                sink.flush()
                print(f"{name}: {start + len(batch)}/{len(todo)} ({seconds / len(batch):.2f} s a pair)", flush=True)


def scores_file(scores: Path, checker: str) -> Path:
    """The scores file of ``checker`` (a spec, or ``SPEC.int8`` for one scored in int8) in the folder ``scores``."""
    return scores / f"{checker.replace(':', '_').replace('/', '_')}.jsonl"


def load(scores: Path, checker: str) -> list[dict]:
    """The scored pairs of one checker."""
    rows = [json.loads(line) for line in scores_file(scores, checker).read_text().splitlines() if line.strip()]
    for row in rows:
        row["measured"].setdefault("entailed", float(row["label"] == "Entailment"))
        row["measured"].setdefault("contradicted", float(row["label"] == "Contradiction"))
    return rows


def _ba(gold: np.ndarray, called: np.ndarray) -> float:
    return float(balanced_accuracy(gold.tolist(), called.tolist()))


def decision_support(fit_rows: list[dict], rows: list[dict], features: tuple[str, ...] | None = None) -> tuple:
    """A claim decision on ``features`` (default: ``DEFAULT_FEATURES``) fitted on ``fit_rows``: its P(supported)
    for each of ``rows``, and whether it calls each supported."""
    from factscope.checkers.claim_decision import DEFAULT_FEATURES, ClaimDecision, feature_row

    chosen = features or DEFAULT_FEATURES
    decision = ClaimDecision.fit(
        [row["measured"] for row in fit_rows], [row["supported"] for row in fit_rows], features=chosen
    )
    support = decision.probabilities(np.stack([feature_row(row["measured"], chosen) for row in rows]))
    return support, support >= decision.threshold


def family_figures(rows: list[dict], fit_rows: list[dict]) -> dict[str, dict[str, float]]:
    """Each decision's balanced accuracy (and AUROC of its score) on ``rows``, fitted on ``fit_rows`` only."""
    from factscope.checkers.claim_decision import FEATURES

    gold = np.array([row["supported"] for row in rows])
    p_entail = np.array([row["measured"]["entailment"] for row in rows])
    fit_gold = [row["supported"] for row in fit_rows]
    fit_p = [row["measured"]["entailment"] for row in fit_rows]
    figures: dict[str, dict[str, float]] = {}
    labels = np.array([row["label"] == "Entailment" for row in rows])
    figures["labels"] = {"ba": _ba(gold, labels), "auroc": float(auroc(gold.tolist(), p_entail.tolist()))}
    threshold = best_threshold(fit_p, fit_gold)
    figures["global_threshold"] = {"ba": _ba(gold, p_entail >= threshold), "threshold": float(threshold)}
    own = best_threshold(p_entail.tolist(), gold.tolist())
    figures["oracle_threshold"] = {"ba": _ba(gold, p_entail >= own), "threshold": float(own)}
    for name, chosen in DECISION_FEATURES.items():
        support, called = decision_support(fit_rows, rows, {"default": None, "all": FEATURES}.get(chosen, (chosen,)))
        figures[name] = {"ba": _ba(gold, called), "auroc": float(auroc(gold.tolist(), support.tolist()))}
    return figures


def pair_parts(data: Path, draw: int, seed: int) -> dict[str, str]:
    """The part of the group split (validation or test) of every drawn users'-task pair, by its id."""
    from factscope.evaluation.splits import part_of

    return {
        f"{Path(path).stem}:{index}": part_of(pair.group)
        for path in USERS_TASK_SETS
        for index, pair in enumerate(drawn_pairs(data, path, draw, seed))
    }


def own_family_figures(rows: list[dict], parts: dict[str, str]) -> dict[str, float]:
    """A family's pairs of the test groups at the checker's labels, and with a threshold and a claim decision
    (``DEFAULT_FEATURES``) fitted on the same family's validation groups: what a user gets from
    ``eval-checker --fit-decision`` on labelled pairs of their own kind of output."""
    fit_rows = [row for row in rows if parts[row["id"]] == "validation"]
    test = [row for row in rows if parts[row["id"]] == "test"]
    gold = np.array([row["supported"] for row in test])
    fit_gold = [row["supported"] for row in fit_rows]
    threshold = best_threshold([row["measured"]["entailment"] for row in fit_rows], fit_gold)
    return {
        "fit_pairs": len(fit_rows),
        "test_pairs": len(test),
        "labels_ba": _ba(gold, np.array([row["label"] == "Entailment" for row in test])),
        "threshold_ba": _ba(gold, np.array([row["measured"]["entailment"] >= threshold for row in test])),
        "claim_decision_ba": _ba(gold, decision_support(fit_rows, test)[1]),
    }


def mean_of(table: dict[str, dict[str, float]]) -> dict[str, float]:
    """The mean of each figure over the families of ``table``."""
    names = [name for name in next(iter(table.values())) if name.endswith("_ba")]
    return {name: float(np.mean([entry[name] for entry in table.values()])) for name in names}


DECISION_FEATURES = {"claim_decision": "default", "claim_decision_all": "all", "threshold_decision": "entailment"}
"""The claim decisions compared: on ``DEFAULT_FEATURES``, on every feature, on P(Entailment) alone."""


def fit(args: argparse.Namespace) -> None:
    """Leave-one-family-out figures of every decision, the NLI column, and the shipped decision."""
    from factscope.checkers.claim_decision import ClaimDecision

    rows = load(args.scores, args.checker)
    users = [row for row in rows if row["column"] == "users"]
    nli = [row for row in rows if row["column"] == "nli"]
    families = sorted({row["family"] for row in users})
    per_family = {}
    for family in families:
        held = [row for row in users if row["family"] == family]
        others = [row for row in users if row["family"] != family]
        per_family[family] = {"pairs": len(held), **family_figures(held, others)}
    per_set_nli = {}
    for name in sorted({row["set"] for row in nli}):
        held = [row for row in nli if row["set"] == name]
        per_set_nli[name] = {"pairs": len(held), **family_figures(held, users)}
    decisions = ("labels", "global_threshold", "oracle_threshold", *DECISION_FEATURES)

    def means(table: dict) -> dict[str, float]:
        return {
            f"{decision}_{measure}": float(np.mean([entry[decision][measure] for entry in table.values()]))
            for decision in decisions
            for measure in ("ba", "auroc")
            if all(measure in entry[decision] for entry in table.values())
        }

    seconds = float(np.mean([row["seconds"] for row in users]))
    figures = {
        "checker": args.checker,
        "users_task": {"per_family": per_family, "mean": means(per_family)},
        "nli_column": {"per_set": per_set_nli, "mean": means(per_set_nli) if per_set_nli else {}},
        "seconds_per_pair": seconds,
    }
    parts = pair_parts(args.data, args.draw, args.seed)
    own = {family: own_family_figures([row for row in users if row["family"] == family], parts) for family in families}
    figures["own_family"] = {"per_family": own, "mean": mean_of(own)}
    if args.second:
        figures["cascade"] = cascade(users, load(args.scores, args.second), args.second)
        if args.write_band:
            write_band(args.checker, figures["cascade"])
    if args.write_decision:
        decision = ClaimDecision.fit(
            [row["measured"] for row in users],
            [row["supported"] for row in users],
            fitted_on=(
                f"benchmarks/users_task.py: {len(users)} pairs of the validation and test groups of "
                + ", ".join(Path(path).stem for path in USERS_TASK_SETS)
                + f" ({args.checker}, no claim decision)"
            ),
        )
        decision.save(args.write_decision)
        figures["shipped_decision"] = decision.to_json()
    print(json.dumps({key: figures[key] for key in figures if key != "shipped_decision"}, indent=1)[:6000])
    write_results("users_task", args, figures)


def cascade(first: list[dict], second: list[dict], second_name: str) -> dict:
    """The cascade first -> second on the pairs both scored, as ``cascade:FIRST,SECOND,LOW,HIGH`` decides: a pair
    whose best-window P(Entailment) under the first checker lies in [low, high] takes the second checker's label,
    the others keep the first's. The band is chosen leave one family out: the best mean balanced accuracy over the
    other families among the bands that escalate at most 40% of their pairs."""
    by_id = {row["id"]: row for row in second}
    shared = [row for row in first if row["id"] in by_id]
    families = sorted({row["family"] for row in shared})
    bands = [(round(low, 2), round(high, 2)) for low in np.arange(0.0, 0.5, 0.05) for high in np.arange(0.5, 1.0, 0.05)]

    def called(rows: list[dict], low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
        p = np.array([row["measured"]["entailment"] for row in rows])
        band = (p >= low) & (p <= high)
        own = np.array([row["label"] == "Entailment" for row in rows])
        other = np.array([by_id[row["id"]]["label"] == "Entailment" for row in rows])
        return np.where(band, other, own), band

    def gold(rows: list[dict]) -> np.ndarray:
        return np.array([row["supported"] for row in rows])

    def best_band(groups: list[list[dict]]) -> tuple[float, float, float]:
        """The band with the best mean balanced accuracy over ``groups`` among those escalating at most 40%."""
        best: tuple[float, float, float] | None = None
        for low, high in bands:
            results = [called(rows, low, high) for rows in groups]
            if np.mean(np.concatenate([band for _, band in results])) > 0.4:
                continue
            score = float(np.mean([_ba(gold(rows), calls) for rows, (calls, _) in zip(groups, results)]))
            if best is None or score > best[0]:
                best = (score, low, high)
        assert best is not None
        return best

    by_family = {family: [row for row in shared if row["family"] == family] for family in families}
    table = {}
    for family in families:
        held = by_family[family]
        best = best_band([rows for other, rows in by_family.items() if other != family])
        calls, band = called(held, best[1], best[2])
        table[family] = {
            "pairs": len(held),
            "band": [best[1], best[2]],
            "escalated": float(band.mean()),
            "cascade_ba": _ba(gold(held), calls),
            "first_ba": _ba(gold(held), np.array([row["label"] == "Entailment" for row in held])),
            "second_ba": _ba(gold(held), np.array([by_id[row["id"]]["label"] == "Entailment" for row in held])),
        }
    mean = {
        key: float(np.mean([entry[key] for entry in table.values()]))
        for key in ("cascade_ba", "first_ba", "second_ba", "escalated")
    }
    everything = best_band(list(by_family.values()))
    fitted = {"low": everything[1], "high": everything[2], "mean_ba": everything[0]}
    return {"second": second_name, "pairs": len(shared), "per_family": table, "mean": mean, "fitted_on_all": fitted}


def write_band(first: str, fitted: dict) -> None:
    """Keep the band fitted on every users'-task family as the shipped band of the cascade ``first`` -> second."""
    from factscope.checkers.cascade import BANDS_FILE

    bands = json.loads(BANDS_FILE.read_text(encoding="utf-8"))
    everything = fitted["fitted_on_all"]
    escalated = float(np.mean([entry["escalated"] for entry in fitted["per_family"].values()]))
    bands[first] = {
        "low": everything["low"],
        "high": everything["high"],
        "fitted_on": f"the users'-task benchmark, {fitted['pairs']} pairs of four families (validation and test groups)",
        "second": fitted["second"],
        "rule": "among the bands escalating at most 40% of the pairs, the best mean balanced accuracy over the families",
        "left_out_family_mean_ba": {
            "cascade": round(fitted["mean"]["cascade_ba"], 3),
            "first_alone": round(fitted["mean"]["first_ba"], 3),
        },
        "left_out_share_escalated": round(escalated, 3),
        "benchmark": "benchmarks/users_task.py fit --second mpnet --write-band, benchmarks/results/users_task.json",
    }
    BANDS_FILE.write_text(json.dumps(bands, indent=2) + "\n", encoding="utf-8")


def paired_difference(before_rows: list[dict], after_rows: list[dict], resamples: int, seed: int) -> dict:
    """Two checkers' users'-task rows on the pairs both scored: each family's balanced accuracy at the checkers'
    labels and AUROC of the best window's P(Entailment), the family means, and the mean differences (after minus
    before) with a 95% paired bootstrap interval (each family's supported and unsupported pairs resampled with
    replacement apart, so every resample has both classes; the same resample for both checkers)."""
    before = {row["id"]: row for row in before_rows if row["column"] == "users"}
    after = {row["id"]: row for row in after_rows if row["column"] == "users"}
    shared = sorted(before.keys() & after.keys())
    families = sorted({before[key]["family"] for key in shared})
    rng = np.random.default_rng(seed)

    def measures(rows: list[dict]) -> tuple[float, float]:
        gold = np.array([row["supported"] for row in rows])
        labels = np.array([row["label"] == "Entailment" for row in rows])
        return _ba(gold, labels), float(auroc(gold.tolist(), [row["measured"]["entailment"] for row in rows]))

    keys_of = {family: [key for key in shared if before[key]["family"] == family] for family in families}
    per_family = {}
    draws: dict[str, list[np.ndarray]] = {}
    for family, keys in keys_of.items():
        ba_before, auroc_before = measures([before[key] for key in keys])
        ba_after, auroc_after = measures([after[key] for key in keys])
        per_family[family] = {
            "pairs": len(keys),
            "supported_share": float(np.mean([before[key]["supported"] for key in keys])),
            "before": {
                "ba": ba_before,
                "auroc": auroc_before,
                "called_supported": float(np.mean([before[key]["label"] == "Entailment" for key in keys])),
            },
            "after": {
                "ba": ba_after,
                "auroc": auroc_after,
                "called_supported": float(np.mean([after[key]["label"] == "Entailment" for key in keys])),
            },
        }
        classes = [
            np.array([i for i, key in enumerate(keys) if before[key]["supported"] == side]) for side in (True, False)
        ]
        draws[family] = [
            np.concatenate([rng.choice(positions, len(positions)) for positions in classes])
            for _ in range(resamples)
        ]

    def mean_difference(index: int | None) -> tuple[float, float]:
        deltas = []
        for family, keys in keys_of.items():
            chosen = keys if index is None else [keys[i] for i in draws[family][index]]
            old, new = measures([before[key] for key in chosen]), measures([after[key] for key in chosen])
            deltas.append((new[0] - old[0], new[1] - old[1]))
        return float(np.mean([d[0] for d in deltas])), float(np.mean([d[1] for d in deltas]))

    boot = [mean_difference(index) for index in range(resamples)]
    point = mean_difference(None)
    return {
        "pairs": len(shared),
        "labels_same": float(np.mean([before[key]["label"] == after[key]["label"] for key in shared])),
        "per_family": per_family,
        "mean": {
            side: {m: float(np.mean([entry[side][m] for entry in per_family.values()])) for m in ("ba", "auroc")}
            for side in ("before", "after")
        },
        "difference": {
            "ba": point[0],
            "ba_interval": [float(np.percentile([b[0] for b in boot], q)) for q in (2.5, 97.5)],
            "auroc": point[1],
            "auroc_interval": [float(np.percentile([b[1] for b in boot], q)) for q in (2.5, 97.5)],
        },
    }


def compare(args: argparse.Namespace) -> None:
    """Two scored checkers side by side on the pairs both scored (:func:`paired_difference`)."""
    figures = {
        "before": args.before,
        "after": args.after,
        **paired_difference(
            load(args.scores, args.before), load(args.scores, args.after), args.resamples, args.seed
        ),
    }
    print(json.dumps(figures, indent=1))
    write_results("users_task_compare", args, figures)


def seconds(args: argparse.Namespace) -> None:
    """Mean seconds a pair of each checker on each set it scored (a scores folder scored on a quiet machine)."""
    figures = {}
    for checker in args.checkers:
        rows = load(args.scores, checker)
        names = sorted({row["set"] for row in rows})
        figures[checker] = {
            name: {
                "pairs": len([row for row in rows if row["set"] == name]),
                "seconds_per_pair": float(np.mean([row["seconds"] for row in rows if row["set"] == name])),
            }
            for name in names
        }
    print(json.dumps(figures, indent=1))
    write_results("users_task_speed", args, figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    scoring = commands.add_parser("score", help="score a checker on the drawn pairs (continues the file)")
    scoring.add_argument("--checker", default="embedded")
    scoring.add_argument("--precision", choices=("fp32", "int8"), default="fp32", help="the checker's arithmetic")
    scoring.add_argument("--draw", type=int, default=DRAW, help="pairs drawn from each users'-task set")
    scoring.add_argument("--per-set", type=int, default=400, help="of those, the first N scored")
    scoring.add_argument("--nli-draw", type=int, default=80, help="pairs drawn from each NLI-column set")
    scoring.add_argument("--nli-per-set", type=int, default=80, help="of those, the first N scored")
    scoring.add_argument("--only", nargs="+", help="score only these sets (file stems)")
    scoring.add_argument("--batch", type=int, default=16)
    scoring.add_argument("--seed", type=int, default=0)
    fitting = commands.add_parser("fit", help="leave-one-family-out figures of each decision")
    fitting.add_argument("--checker", default="embedded")
    fitting.add_argument("--second", help="a second scored checker: simulate the cascade checker -> second")
    fitting.add_argument(
        "--write-band", action="store_true", help="with --second: ship the band fitted on every family"
    )
    fitting.add_argument("--write-decision", type=Path, help="save the decision fitted on every users'-task family")
    fitting.add_argument("--draw", type=int, default=DRAW, help="the draw the scores were made with")
    fitting.add_argument("--seed", type=int, default=0, help="the seed the scores were made with")
    add_out_option(fitting)
    comparing = commands.add_parser("compare", help="two scored checkers on the pairs both scored, with intervals")
    comparing.add_argument("--before", required=True, help="the checker as it was")
    comparing.add_argument("--after", required=True, help="the checker changed")
    comparing.add_argument("--resamples", type=int, default=1000)
    comparing.add_argument("--seed", type=int, default=0)
    add_out_option(comparing)
    timing = commands.add_parser("seconds", help="seconds a pair of each checker, per set, from its scores")
    timing.add_argument("--checkers", nargs="+", default=["embedded", "mpnet"])
    add_out_option(timing)
    for sub in (scoring, fitting, comparing, timing):
        sub.add_argument("--data", type=Path, default=default_data_dir())
        sub.add_argument("--scores", type=Path, default=DEFAULT_SCORES)
    args = parser.parse_args()
    if args.command == "score":
        score(args)
    elif args.command == "seconds":
        seconds(args)
    elif args.command == "compare":
        compare(args)
    else:
        fit(args)


if __name__ == "__main__":
    main()
