"""The sanity suite in full: pairs every checker must label Entailment (a sentence of the reference copied, one of
its clauses, its passive voice, the sentence with a modifier dropped), against references of 1, 2, 5 and 20
sentences, made by ``factscope.evaluation.sanity`` from the premises of claim sets, and the share a checker labels
Entailment per kind and per reference length.

The premises (distinct, of at least ``--min-words`` words) are read from ``--data``/claims/<set>.jsonl and drawn
evenly over ``--sets`` by a seeded generator; nothing of them is written into the repository unless
``--pairs-out`` asks for the pairs.

    HF_HUB_OFFLINE=1 python benchmarks/sanity_suite.py --checker embedded --sources 300
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path
from typing import Any

from results_file import REPO, add_out_option, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")

SETS = ("summedits", "fnc1", "factcheckgpt", "healthver")
EXAMPLES_PER_KIND = 5


def premises(path: Path, min_words: int) -> list[tuple[str, str]]:
    """(id, premise) for each distinct premise of a claims file with at least ``min_words`` words, by id."""
    found: dict[str, str] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                if len(record["premise"].split()) >= min_words:
                    found.setdefault(record["premise"], str(record["id"]))
    return sorted((record_id, text) for text, record_id in found.items())


def sources(folder: Path, sets: list[str], count: int, min_words: int, seed: int) -> list[Any]:
    """``count`` sources drawn evenly over ``sets`` (fewer where a set has fewer premises)."""
    from factscope.evaluation.sanity import SanitySource

    per_set = -(-count // len(sets))
    chosen: list[SanitySource] = []
    for name in sets:
        found = premises(folder / "claims" / f"{name}.jsonl", min_words)
        drawn = random.Random(f"{seed}:{name}").sample(found, min(per_set, len(found)))
        chosen += [SanitySource(id=f"{name}:{record_id}", text=text) for record_id, text in drawn]
    return chosen[:count]


def missed_examples(pairs: list[Any], missed: list[str]) -> list[dict[str, Any]]:
    """A few missed pairs of each kind: id, kind, reference length and edit (never the data's text)."""
    by_id = {pair.id: pair for pair in pairs}
    shown: dict[str, int] = {}
    examples = []
    for pair_id in missed:
        pair = by_id[pair_id]
        if shown.get(pair.kind, 0) < EXAMPLES_PER_KIND:
            shown[pair.kind] = shown.get(pair.kind, 0) + 1
            examples.append({
                "id": pair.id,
                "kind": pair.kind,
                "reference_sentences": pair.reference_sentences,
                "edit": pair.edit,
            })
    return examples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data", help="the data folder")
    parser.add_argument("--sets", nargs="+", default=list(SETS), help="claim sets whose premises are the sources")
    parser.add_argument("--sources", type=int, default=300, help="source texts drawn over the sets")
    parser.add_argument("--min-words", type=int, default=40, help="shortest premise taken, in words")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--checker", default="embedded", help="checker spec (factscope's --checker)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument(
        "--window-sentences", type=int,
        help="check against windows of this many sentences (default: the checker's own layout)",
    )
    parser.add_argument(
        "--min-window-sentences", type=int,
        help="with --window-sentences, also windows of every width from this many sentences up",
    )
    parser.add_argument("--pairs-out", type=Path, help="also write the pairs as JSONL (eval-checker reads it)")
    add_out_option(parser)
    args = parser.parse_args()

    from factscope.checkers.registry import make_checker
    from factscope.evaluation.sanity import sanity_pairs, write_sanity_pairs
    from factscope.evaluation.sanity_scores import score_sanity

    chosen = sources(args.data, args.sets, args.sources, args.min_words, args.seed)
    began = time.perf_counter()
    pairs = sanity_pairs(chosen, seed=args.seed)
    made_seconds = time.perf_counter() - began
    print(f"{len(pairs)} pairs from {len(chosen)} sources in {made_seconds:.0f} s")
    if args.pairs_out:
        write_sanity_pairs(args.pairs_out, pairs)
    layout = {} if args.window_sentences is None else {"window_sentences": args.window_sentences}
    if args.min_window_sentences is not None:
        layout["min_window_sentences"] = args.min_window_sentences
    checker = make_checker(args.checker, batch_size=args.batch_size, **layout)
    report = score_sanity(checker, pairs, batch_size=args.batch_size)
    for row in [*report.by_length, *report.by_kind]:
        print(f"{row.kind or 'all'} {row.reference_sentences or 'all'}: {row.entailed}/{row.n} = {row.share:.3f}")
    print(f"all: {report.share:.3f}; lowest over reference lengths: {report.lowest_length_share:.3f}")
    figures = {
        "sources": len(chosen),
        "sources_per_set": {name: sum(s.id.startswith(f"{name}:") for s in chosen) for name in args.sets},
        "generation_seconds": round(made_seconds, 1),
        "report": report.model_dump(exclude={"missed"}),
        "missed_examples": missed_examples(pairs, report.missed),
    }
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
