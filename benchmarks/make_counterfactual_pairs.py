"""Counterfactual evaluation (and training) pairs from text factscope has, by factscope.evaluation.counterfactuals.

Three outputs, from disjoint source texts:

- ``--evaluation`` (default ``benchmarks/data/counterfactual_pairs.jsonl``, committed): from the project's own
  texts, the example references and knowledge in ``src/factscope/examples`` and the short premises of the
  hand-written ``benchmarks/data/hard_pairs.jsonl``. ``--check`` says whether the committed file is up to date.
- ``--claims-test-out FILE``: from the entailment pairs of the claims data (``--claims DIR``, the
  ``{id, premise, hypothesis, label, group}`` JSONL files) whose group falls in the test part
  (``factscope.evaluation.splits.part_of``).
- ``--train-out FILE``: from the entailment pairs of the claims data whose group falls in the train part, and of
  an NLI file (``--mnli FILE``) whose id falls in the train part. Only these may be trained on. ``--sets``
  keeps only the named claims files, ``--kinds`` the named kinds of edit, and ``--dataset`` gives every pair one
  set name (so that ``train-checker --max-per-set`` caps them together); ``--max-per-kind KIND=N`` keeps a seeded
  sample of N pairs of a kind.

``--score CHECKER`` (repeatable) checks every pair of the evaluation outputs and of the hard pairs (by
phenomenon) with a factscope checker and writes the accuracy per dataset, with the pair counts, to
``benchmarks/results/make_counterfactual_pairs.json``.

    HF_HUB_OFFLINE=1 python benchmarks/make_counterfactual_pairs.py --score embedded --score similarity
    HF_HUB_OFFLINE=1 python benchmarks/make_counterfactual_pairs.py --claims DATA/claims \\
        --claims-test-out /tmp/claims_counterfactual_test.jsonl --mnli DATA/nli/mnli_dev_matched.jsonl \\
        --train-out /tmp/counterfactual_train.jsonl
    HF_HUB_OFFLINE=1 python benchmarks/make_counterfactual_pairs.py --claims DATA/claims \\
        --sets summedits,begin,faithdial_audit,factcheckgpt --kinds number,date,entity,negation \\
        --max-per-kind negation=300 --dataset document-edits --train-out /tmp/document_edits.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from results_file import add_out_option, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "src" / "factscope" / "examples"
HARD_PAIRS = REPO / "benchmarks" / "data" / "hard_pairs.jsonl"
EVALUATION = REPO / "benchmarks" / "data" / "counterfactual_pairs.jsonl"
HARD_PREMISE_WORDS = 120
"""Hard-pair premises up to this many words are sources; the long ones are sources' mixtures already."""


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def project_sources() -> list[Any]:
    """The project's own texts, one source each (identical texts once)."""
    from factscope.evaluation.counterfactuals import Source

    texts: dict[str, str] = {}
    for record in _jsonl(EXAMPLES / "check.jsonl"):
        references = record.get("references") or [record["reference"]]
        for index, reference in enumerate(references):
            texts.setdefault(reference, f"examples-check-{record['id']}-{index}")
    for folder, field in (("knowledge", "text"), ("ground", "text")):
        for record in _jsonl(EXAMPLES / folder / "corpus.jsonl"):
            texts.setdefault(record[field], f"examples-{folder}-corpus-{record['id']}")
    for record in _jsonl(EXAMPLES / "knowledge" / "records.jsonl"):
        texts.setdefault(record["knowledge"], f"examples-knowledge-record-{record['id']}")
    contexts = json.loads((EXAMPLES / "ground" / "original.json").read_text(encoding="utf-8"))
    for key, question in contexts.items():
        for index, context in enumerate(question["context_list"]):
            body = context.split("\n\n", 1)[-1].strip()
            texts.setdefault(body, f"examples-ground-context-{key}-{index}")
    for record in _jsonl(EXAMPLES / "attribute" / "seeds.jsonl"):
        texts.setdefault(record["paragraph"], f"examples-attribute-seed-{record['id']}")
    for record in _jsonl(HARD_PAIRS):
        if len(record["premise"].split()) <= HARD_PREMISE_WORDS:
            texts.setdefault(record["premise"], f"hard-pairs-{record['id']}")
    return [Source(id=source_id, premise=text) for text, source_id in texts.items()]


def claims_sources(folder: Path, part: str, sets: list[str] | None = None) -> list[Any]:
    """Entailment pairs of the claims files (only those named by ``sets``, when given) whose group (else id, as the
    pair reader does) falls in ``part``."""
    from factscope.evaluation.counterfactuals import Source
    from factscope.evaluation.splits import part_of

    sources = []
    for path in sorted(folder.glob("*.jsonl")):
        if sets is not None and path.stem not in sets:
            continue
        for record in _jsonl(path):
            group = record.get("group") or record["id"]
            if record["label"] == "entailment" and part_of(group) == part:
                sources.append(
                    Source(
                        id=f"{path.stem}:{record['id']}",
                        premise=record["premise"],
                        facts=(record["hypothesis"],),
                        group=group,
                    )
                )
    return sources


def nli_sources(path: Path, part: str) -> list[Any]:
    """Entailment pairs of an NLI file whose id falls in ``part``."""
    from factscope.evaluation.counterfactuals import Source
    from factscope.evaluation.splits import part_of

    return [
        Source(id=record["id"], premise=record["premise"], facts=(record["hypothesis"],))
        for record in _jsonl(path)
        if record["label"] == "entailment" and part_of(record["id"]) == part
    ]


def hard_pairs() -> list[Any]:
    """The hand-written hard pairs, their dataset named by phenomenon (``hard-pairs/negation``)."""
    return [
        SimpleNamespace(**{**record, "dataset": f"hard-pairs/{record['phenomenon']}"})
        for record in _jsonl(HARD_PAIRS)
    ]


def capped(pairs: list[Any], caps: dict[str, int], seed: int) -> list[Any]:
    """``pairs`` with at most ``caps[kind]`` of each capped kind: a seeded sample, the pairs kept in order."""
    rng = random.Random(seed)
    dropped: set[str] = set()
    for kind, cap in caps.items():
        of_kind = [pair.id for pair in pairs if pair.kind == kind]
        if len(of_kind) > cap:
            dropped |= set(of_kind) - set(rng.sample(of_kind, cap))
    return [pair for pair in pairs if pair.id not in dropped]


def _lines(pairs: list[Any]) -> str:
    return "".join(json.dumps(pair.model_dump(), ensure_ascii=False) + "\n" for pair in pairs)


def _write(path: Path, pairs: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_lines(pairs), encoding="utf-8")
    counts = Counter(f"{pair.dataset} {pair.label}" for pair in pairs)
    print(f"{path}: {len(pairs)} pairs", file=sys.stderr)
    for key, count in sorted(counts.items()):
        print(f"  {key}: {count}", file=sys.stderr)


def accuracy_by_dataset(checker_spec: str, pairs: list[Any]) -> dict[str, Any]:
    """Accuracy of a checker on each dataset (not_entailment is right for Neutral and Contradiction)."""
    from factscope.checkers.base import CheckTask
    from factscope.checkers.registry import make_checker

    checker = make_checker(checker_spec)
    verdicts = checker.check([CheckTask(claim=pair.hypothesis, references=(pair.premise,)) for pair in pairs])
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for pair, verdict in zip(pairs, verdicts, strict=True):
        predicted = str(verdict.label.value).lower()
        correct = predicted != "entailment" if pair.label == "not_entailment" else predicted == pair.label
        for key in (pair.dataset, "all"):
            total[key] += 1
            right[key] += correct
    return {key: {"pairs": total[key], "accuracy": right[key] / total[key]} for key in sorted(total)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--evaluation", type=Path, default=EVALUATION, help="pairs from the project's texts")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if --evaluation is not what the script makes"
    )
    parser.add_argument("--claims", type=Path, help="folder of the claims JSONL files")
    parser.add_argument("--claims-test-out", type=Path, help="pairs from the claims data's test groups")
    parser.add_argument("--mnli", type=Path, help="an NLI JSONL file {id, premise, hypothesis, label}")
    parser.add_argument(
        "--train-out", type=Path, help="training pairs (claims train groups and --mnli train ids)"
    )
    parser.add_argument(
        "--max-facts", type=int, default=3, help="facts per source for the claims and NLI data"
    )
    parser.add_argument(
        "--sets", help="comma-separated claims file stems to draw --train-out from (default: every file)"
    )
    parser.add_argument(
        "--kinds", help="comma-separated kinds of --train-out pairs (default: every kind)"
    )
    parser.add_argument(
        "--dataset", help="one dataset name for every --train-out pair (default: counterfactual-<kind>)"
    )
    parser.add_argument(
        "--max-per-kind", action="append", default=[], metavar="KIND=N",
        help="keep a seeded sample of N --train-out pairs of KIND (repeatable)",
    )
    parser.add_argument(
        "--score", action="append", default=[], help="checker spec to score the evaluation pairs"
    )
    add_out_option(parser)
    args = parser.parse_args()

    from factscope.evaluation.counterfactuals import KINDS, counterfactual_pairs

    evaluation = counterfactual_pairs(project_sources(), seed=args.seed)
    if args.check:
        current = args.evaluation.read_text(encoding="utf-8") if args.evaluation.exists() else ""
        if current != _lines(evaluation):
            sys.exit(f"{args.evaluation} is out of date: run benchmarks/make_counterfactual_pairs.py")
        print(f"{args.evaluation} is up to date ({len(evaluation)} pairs)", file=sys.stderr)
        return
    _write(args.evaluation, evaluation)
    scored = {"project": evaluation, "hard-pairs": hard_pairs()}
    if (args.claims_test_out or args.train_out) and args.claims is None:
        parser.error("--claims-test-out and --train-out need --claims")
    if args.claims_test_out:
        test = counterfactual_pairs(
            claims_sources(args.claims, "test"), seed=args.seed, max_facts=args.max_facts
        )
        _write(args.claims_test_out, test)
        scored["claims-test"] = test
    if args.train_out:
        sets = args.sets.split(",") if args.sets else None
        train_sources = claims_sources(args.claims, "train", sets)
        if args.mnli:
            train_sources += nli_sources(args.mnli, "train")
        kinds = args.kinds.split(",") if args.kinds else KINDS
        train = counterfactual_pairs(train_sources, seed=args.seed, max_facts=args.max_facts, kinds=kinds)
        caps = {kind: int(count) for kind, count in (cap.split("=") for cap in args.max_per_kind)}
        train = capped(train, caps, args.seed)
        if args.dataset:
            train = [pair.model_copy(update={"dataset": args.dataset}) for pair in train]
        _write(args.train_out, train)
    if args.score:
        figures: dict[str, Any] = {
            "pairs": {name: dict(Counter(pair.dataset for pair in pairs)) for name, pairs in scored.items()}
        }
        for spec in args.score:
            figures[spec] = {name: accuracy_by_dataset(spec, pairs) for name, pairs in scored.items()}
        print(f"results: {write_results(__file__, args, figures)}", file=sys.stderr)


if __name__ == "__main__":
    main()
