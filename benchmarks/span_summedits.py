"""Span-level hallucination detection on SummEdits: which words of a summary its document does not bear.

SummEdits' inconsistent summaries are minimal edits of a consistent one of the same document, so the edited words
are the gold span: each inconsistent summary is diffed, word by word (difflib), against the most similar
consistent summary of its group, and the words it replaces or inserts are its gold span (an edit that only deletes
words marks none, and the summary is left out). A consistent summary's gold is no span. A seeded sample of
``--groups`` groups of the chosen split gives one inconsistent and one consistent summary each; every summary is
checked against its document by `factscope check` (the rules extractor, ``--checker``), and its span view (the
text its Neutral or Contradiction claims cover, ``--overlap`` worst and best) is scored by
``factscope.refchecker.span_evaluation``'s measures: character-level and example-level precision, recall, F1.
The baseline that marks every character of every summary hallucinated is scored beside it.

    python benchmarks/span_summedits.py --data /path/to/summedits.jsonl --groups 40
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from results_file import add_out_option, write_results

import factscope
from factscope.metrics.span_scores import CharRange, span_scores

WORD = re.compile(r"\S+")


def edited_spans(consistent: str, edited: str) -> list[CharRange]:
    """The character ranges of ``edited``'s words that replace or add to ``consistent``'s (a word-level diff)."""
    before = [m.group() for m in WORD.finditer(consistent)]
    after = list(WORD.finditer(edited))
    matcher = difflib.SequenceMatcher(a=before, b=[m.group() for m in after], autojunk=False)
    spans: list[CharRange] = []
    for tag, _, _, first, last in matcher.get_opcodes():
        if tag in ("replace", "insert") and first < last:
            spans.append((after[first].start(), after[last - 1].end()))
    return spans


def gold_pairs(rows: list[dict[str, Any]], split: str, groups: int, seed: int) -> list[dict[str, Any]]:
    """One inconsistent summary with its gold spans and one consistent summary per sampled group."""
    by_group: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["split"] == split:
            by_group[row["group"]].append(row)
    rng = random.Random(seed)
    names = sorted(by_group)
    rng.shuffle(names)
    chosen = []
    for name in names:
        members = by_group[name]
        consistent = [r for r in members if r["label"] == "entailment"]
        inconsistent = [r for r in members if r["label"] != "entailment"]
        if not consistent or not inconsistent:
            continue
        edited = rng.choice(inconsistent)
        seed_summary = max(
            consistent, key=lambda r: difflib.SequenceMatcher(a=r["hypothesis"], b=edited["hypothesis"]).ratio()
        )
        spans = edited_spans(seed_summary["hypothesis"], edited["hypothesis"])
        if not spans:
            continue
        kept = rng.choice(consistent)
        chosen.append({"id": edited["id"], "premise": edited["premise"], "response": edited["hypothesis"],
                       "labels": spans})
        chosen.append({"id": kept["id"] + "#consistent", "premise": kept["premise"], "response": kept["hypothesis"],
                       "labels": []})
        if len(chosen) == 2 * groups:
            break
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="summedits.jsonl")
    parser.add_argument("--split", default="evaluation")
    parser.add_argument("--groups", type=int, default=40)
    parser.add_argument("--checker", default="embedded")
    parser.add_argument("--seed", type=int, default=13)
    add_out_option(parser)
    args = parser.parse_args()

    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    examples = gold_pairs(rows, args.split, args.groups, args.seed)
    records = [{"id": e["id"], "response": e["response"], "references": [e["premise"]]} for e in examples]
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "records.jsonl"
        source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        run = factscope.check(source, extractor="rules", checker=args.checker)
    seconds = time.perf_counter() - began
    results = {row.id: row for row in run.results}
    gold = {e["id"]: e["labels"] for e in examples}
    figures: dict[str, Any] = {
        "responses": len(examples),
        "inconsistent": sum(1 for e in examples if e["labels"]),
        "claims": run.claims,
        "claims_located_by_words": sum(
            1 for row in run.results for item in row.claims if item.claim.spans_cover == "words"
        ),
        "gold_characters_share": sum(end - start for e in examples for start, end in e["labels"])
        / sum(len(e["response"]) for e in examples),
        "check_seconds": round(seconds, 1),
    }
    every = {key: [(0, len(e["response"]))] for key, e in zip(gold, examples, strict=True)}
    figures["baseline_every_response_all_hallucinated"] = span_scores((every[key], gold[key]) for key in gold).figures()
    for overlap in ("worst", "best"):
        predicted = {
            key: [(s.start, s.end) for s in row.hallucination_labels(overlap).labels] for key, row in results.items()
        }
        scores = span_scores((predicted[key], gold[key]) for key in gold)
        figures[f"overlap_{overlap}"] = scores.figures()
    path = write_results(__file__, args, figures)
    print(json.dumps(figures, indent=2))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
