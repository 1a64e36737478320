"""Exact against fast checking mode on guardrail-like records, and RefChecker's default NLI checker per pair.

A record is a response of ``--claims`` claims checked against ``--references`` cited pages. They are built from
SummEdits (``--data``, the ``claims/summedits.jsonl`` of the shared data): each claim is the first sentence of a
summary of one document, and each reference holds one claim's own document among other documents until it
reaches about ``--reference-tokens`` tokens (cycled over the records, so agreement can be read by reference
length). Both modes run the shipped embedded checker (or ``--checker-dir``'s) with the default decision settings on the same records in
one batch, each timed from loading the model to the last verdict. The figures: seconds,
(segment, claim) pairs scored, label agreement overall and by reference length, and the confusion of labels.

RefChecker's default checker (NLIChecker: RoBERTa-large, 24 layers, hidden 1024, 3 labels) is timed with random
weights on ``--refchecker-pairs`` of the same (segment, claim) pairs, against the embedded checker's pairs per
second in exact mode. ``top_k_sweep`` replays the exact run's probabilities through fast mode at several ``top_k``
(10000: no top-k cut, only the relevance floors) to show agreement against pairs scored. Figures go to ``benchmarks/results/fast_mode.json`` (see ``results_file``).

    HF_HUB_OFFLINE=1 python benchmarks/fast_mode.py --records 12 --device cpu
    HF_HUB_OFFLINE=1 python benchmarks/fast_mode.py --records 12 --device cuda --data /path/summedits.jsonl
    HF_HUB_OFFLINE=1 python benchmarks/fast_mode.py --records 2 --reference-tokens 2000 --fast-only \
        --checker-dir /path/checker --window-sentences 2 --min-window-sentences 1 --refchecker-pairs 0
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from results_file import add_out_option, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")

DEFAULT_DATA = Path("/work/shared/data/claims/summedits.jsonl")
TOKENS_PER_WORD = 1.3
"""Word-piece tokens per whitespace word in English prose, to size references before any tokenizer is loaded."""


def first_sentence(text: str) -> str:
    """The summary's first sentence (up to the first full stop followed by a space)."""
    return re.split(r"(?<=[.!?])\s+", text.strip(), maxsplit=1)[0]


def build_records(
    data: Path, n_records: int, n_claims: int, n_references: int, lengths: Sequence[int], seed: int
) -> list[dict[str, Any]]:
    """Records of ``n_claims`` claims and ``n_references`` references of about ``lengths[i % len]`` tokens each."""
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines() if line.strip()]
    summaries: dict[str, list[str]] = {}
    for row in rows:
        summaries.setdefault(row["premise"].strip(), []).append(row["hypothesis"])
    documents = sorted(summaries)
    if len(documents) < n_references + 1:
        raise SystemExit(f"{data} has only {len(documents)} documents")
    generator = random.Random(seed)
    records = []
    for number in range(n_records):
        target = lengths[number % len(lengths)]
        own = generator.sample(documents, n_references)
        claims = [first_sentence(generator.choice(summaries[doc])) for doc in own[:n_claims]]
        fillers = [doc for doc in documents if doc not in own]
        references = []
        for doc in own:
            parts = [doc]
            while sum(len(part.split()) for part in parts) * TOKENS_PER_WORD < target:
                parts.insert(generator.randint(0, len(parts)), generator.choice(fillers))
            references.append("\n\n".join(parts))
        generator.shuffle(references)
        records.append(
            {"id": f"r{number}", "target_tokens": target, "claims": claims, "references": references}
        )
    return records


class CountingScorer:
    """A PairScorer that counts the distinct (segment, claim) pairs of each call before passing it on."""

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer
        self.name = scorer.name
        self.pairs = 0
        self.seen: dict[tuple[str, str], Any] = {}

    def score(self, premises: Sequence[str], hypotheses: Sequence[str]) -> Any:
        self.pairs += len(set(zip(premises, hypotheses)))
        probs = self.scorer.score(premises, hypotheses)
        self.seen.update(zip(zip(premises, hypotheses), probs))
        return probs

    def count_tokens(self, text: str) -> int:
        return self.scorer.count_tokens(text)


def layout(window_sentences: int, min_window_sentences: int | None) -> Any:
    """The checker options of this benchmark: windows of ``min_window_sentences`` to ``window_sentences`` sentences
    (200-token segments when 0), without the value check."""
    from factscope.checkers.options import CheckerOptions

    return CheckerOptions(
        window_sentences=window_sentences, min_window_sentences=min_window_sentences, mismatch="off"
    )


def run_mode(
    mode: str,
    records: list[dict[str, Any]],
    device: str,
    window_sentences: int = 0,
    min_window_sentences: int | None = None,
    checker_dir: Path | None = None,
) -> dict[str, Any]:
    """Load the embedded checker (``checker_dir``, else the shipped one) in ``mode`` (with windows of
    ``min_window_sentences`` to ``window_sentences`` sentences, or 200-token segments when 0) and check every
    claim; seconds, pairs and labels."""
    from factscope.checkers.base import CheckTask
    from factscope.checkers.embedded import EmbeddedScorer, shipped_checker_dir
    from factscope.checkers.pruning import FastSettings
    from factscope.checkers.segmented import SegmentedChecker

    tasks = [
        CheckTask(claim=claim, references=tuple(r["references"])) for r in records for claim in r["claims"]
    ]
    started = time.perf_counter()
    checker: Any = SegmentedChecker(
        EmbeddedScorer.from_dir(checker_dir or shipped_checker_dir(), device=device),
        layout(window_sentences, min_window_sentences),
        name="embedded",
        fast=FastSettings() if mode == "fast" else None,
    )
    loaded = time.perf_counter()
    counting = CountingScorer(checker.scorer)
    checker.scorer = counting
    verdicts = checker.check(tasks)
    finished = time.perf_counter()
    segments = sum(len(checker.segments(ref)) for task in tasks for ref in task.references)
    return {
        "probs": counting.seen,
        "seconds": finished - started,
        "load_seconds": loaded - started,
        "check_seconds": finished - loaded,
        "pairs_scored": counting.pairs,
        "segment_claim_pairs": segments,
        "labels": [v.label.value if v.label else None for v in verdicts],
        "segment_tokens": [
            checker.scorer.count_tokens(s) for s, _ in checker.segments(tasks[0].references[0])
        ],
        "reference_tokens": [
            sum(checker.scorer.count_tokens(s) for s, _ in checker.segments(ref))
            for ref in records[0]["references"]
        ],
    }


class ReplayScorer:
    """Scores pairs with the probabilities an exact run gave them (every pair was scored there)."""

    name = "replay"

    def __init__(self, probs: dict[tuple[str, str], Any], count_tokens: Any) -> None:
        self.probs = probs
        self.count_tokens = count_tokens

    def score(self, premises: Sequence[str], hypotheses: Sequence[str]) -> Any:
        import numpy as np

        return np.array([self.probs[pair] for pair in zip(premises, hypotheses)])


def sweep(
    records: list[dict[str, Any]],
    exact: dict[str, Any],
    top_ks: Sequence[int],
    window_sentences: int = 0,
    min_window_sentences: int | None = None,
    checker_dir: Path | None = None,
) -> list[dict[str, Any]]:
    """Label agreement and pairs scored of fast mode at each ``top_k``, replaying the exact run's probabilities."""
    from factscope.checkers.base import CheckTask
    from factscope.checkers.embedded import load_embedded_scorer
    from factscope.checkers.pruning import FastSettings
    from factscope.checkers.segmented import SegmentedChecker

    tasks = [
        CheckTask(claim=claim, references=tuple(r["references"])) for r in records for claim in r["claims"]
    ]
    rows = []
    for top_k in top_ks:
        counting = CountingScorer(ReplayScorer(exact["probs"], load_embedded_scorer(checker_dir).count_tokens))
        checker = SegmentedChecker(
            counting, layout(window_sentences, min_window_sentences), fast=FastSettings(top_k=top_k)
        )
        labels = [v.label.value if v.label else None for v in checker.check(tasks)]
        rows.append(
            {"top_k": top_k, "pairs_scored": counting.pairs, "agreement": agreement(exact["labels"], labels)}
        )
    return rows


def agreement(exact: list[str], fast: list[str]) -> float:
    return sum(a == b for a, b in zip(exact, fast)) / len(exact) if exact else float("nan")


REFCHECKER_BATCH_SIZE = 16
"""NLIChecker's default batch size."""


def time_refchecker_nli(
    premises: list[str], hypotheses: list[str], device: str, batch_size: int
) -> dict[str, Any]:
    """Pairs per second of RoBERTa-large (RefChecker's NLIChecker architecture) with random weights, where
    refchecker itself is not installed.

    No RoBERTa tokenizer is available offline; the pairs are tokenised by the packaged MiniLM's word-piece
    tokenizer (about the same number of tokens for English prose), the ids taken modulo RoBERTa's vocabulary.
    """
    import torch
    from refchecker_nli import random_roberta_large
    from transformers import AutoTokenizer

    from factscope.hf.embedded import minilm_path

    torch.manual_seed(0)
    model = random_roberta_large().eval().to(device)
    tokenizer = AutoTokenizer.from_pretrained(minilm_path())
    encoded = tokenizer(premises, hypotheses, truncation=True, max_length=512)
    order = list(range(len(premises)))  # NLIChecker batches pairs in input order
    started = time.perf_counter()
    with torch.inference_mode():
        for offset in range(0, len(order), batch_size):
            batch = order[offset : offset + batch_size]
            inputs = tokenizer.pad(
                {"input_ids": [encoded["input_ids"][i] for i in batch]}, return_tensors="pt"
            )
            ids = (inputs["input_ids"] % model.config.vocab_size).to(device)
            model(input_ids=ids, attention_mask=inputs["attention_mask"].to(device))
    if device == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - started
    return {
        "pairs": len(premises),
        "seconds": seconds,
        "pairs_per_second": len(premises) / seconds,
        "mean_tokens": sum(len(ids) for ids in encoded["input_ids"]) / len(premises),
    }


def time_refchecker_package(python: Path, pairs: list[tuple[str, str]], device: str) -> dict[str, Any]:
    """RefChecker's own NLIChecker, run by ``refchecker_nli.py`` under the Python of its environment."""
    import subprocess
    import tempfile

    from factscope.hf.embedded import minilm_path

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as handle:
        json.dump(pairs, handle)
    helper = Path(__file__).with_name("refchecker_nli.py")
    command = [
        str(python),
        str(helper),
        "--pairs",
        handle.name,
        "--tokenizer",
        minilm_path(),
        "--device",
        device,
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    Path(handle.name).unlink()
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help="SummEdits JSONL (premise, hypothesis)"
    )
    parser.add_argument("--records", type=int, default=12)
    parser.add_argument("--claims", type=int, default=6)
    parser.add_argument("--references", type=int, default=6)
    parser.add_argument(
        "--reference-tokens", default="1000,2000,3000", help="reference lengths, cycled over records"
    )
    parser.add_argument("--device", default="cpu", choices=["auto", "cpu", "cuda"])
    parser.add_argument(
        "--refchecker-pairs", type=int, default=8, help="pairs timed on RoBERTa-large; 0: skip"
    )
    parser.add_argument(
        "--refchecker-python",
        type=Path,
        help="Python of an environment with refchecker installed: time its NLIChecker itself (else the same "
        "architecture is built here)",
    )
    parser.add_argument(
        "--window-sentences", type=int, default=0,
        help="check against windows of this many sentences (0: 200-token segments)",
    )
    parser.add_argument(
        "--min-window-sentences", type=int, default=None,
        help="with --window-sentences, also windows of every width from this many sentences up",
    )
    parser.add_argument("--checker-dir", type=Path, help="a factscope checker folder (default: the shipped one)")
    parser.add_argument(
        "--fast-only", action="store_true",
        help="time fast mode alone (no exact run, agreement or top-k sweep): for a checker whose exact run is long",
    )
    parser.add_argument("--seed", type=int, default=13)
    add_out_option(parser)
    args = parser.parse_args()

    from factscope.hf.device import resolve_device

    device = resolve_device(args.device)
    lengths = [int(value) for value in args.reference_tokens.split(",")]
    records = build_records(args.data, args.records, args.claims, args.references, lengths, args.seed)
    layout = (args.window_sentences, args.min_window_sentences)
    if args.fast_only:
        fast_run = run_mode("fast", records, device, *layout, checker_dir=args.checker_dir)
        figures = {
            "device": device,
            "checker_dir": str(args.checker_dir) if args.checker_dir else None,
            "records": len(records),
            "claims": len(fast_run["labels"]),
            "reference_target_tokens": lengths,
            "fast": {k: v for k, v in fast_run.items() if k not in ("labels", "probs")},
            "fast_check_seconds_per_record": fast_run["check_seconds"] / len(records),
            "labels_fast": dict(Counter(fast_run["labels"])),
        }
        print(json.dumps({k: v for k, v in figures.items() if k != "fast"}, indent=2))
        write_results(__file__, args, figures)
        return
    runs = {mode: run_mode(mode, records, device, *layout, checker_dir=args.checker_dir) for mode in ("exact", "fast")}
    exact, fast = runs["exact"]["labels"], runs["fast"]["labels"]
    targets = [r["target_tokens"] for r in records for _ in r["claims"]]
    by_length = {
        str(length): {
            "claims": sum(t == length for t in targets),
            "agreement": agreement(
                [e for e, t in zip(exact, targets) if t == length],
                [f for f, t in zip(fast, targets) if t == length],
            ),
        }
        for length in lengths
    }
    figures: dict[str, Any] = {
        "device": device,
        "records": len(records),
        "claims": len(exact),
        "reference_target_tokens": lengths,
        "exact": {k: v for k, v in runs["exact"].items() if k not in ("labels", "probs")},
        "fast": {k: v for k, v in runs["fast"].items() if k not in ("labels", "probs")},
        "top_k_sweep": sweep(records, runs["exact"], (4, 8, 16, 32, 10_000), *layout, checker_dir=args.checker_dir),
        "speedup": runs["exact"]["seconds"] / runs["fast"]["seconds"],
        "check_speedup": runs["exact"]["check_seconds"] / runs["fast"]["check_seconds"],
        "pair_reduction": runs["exact"]["pairs_scored"] / max(1, runs["fast"]["pairs_scored"]),
        "label_agreement": agreement(exact, fast),
        "agreement_by_reference_tokens": by_length,
        "labels_exact": dict(Counter(exact)),
        "labels_fast": dict(Counter(fast)),
        "confusion_exact_to_fast": dict(Counter(f"{e}->{f}" for e, f in zip(exact, fast) if e != f)),
        "embedded_pairs_per_second_exact": runs["exact"]["pairs_scored"] / runs["exact"]["check_seconds"],
    }
    if args.refchecker_pairs:
        from factscope.checkers.embedded import load_embedded_scorer
        from factscope.checkers.segmented import SegmentedChecker

        segmenter = SegmentedChecker(load_embedded_scorer(device=device))
        pairs = [
            (segment, claim)
            for record in records
            for claim in record["claims"]
            for reference in record["references"][:1]
            for segment, _ in segmenter.segments(reference)[:1]
        ][: args.refchecker_pairs]
        if args.refchecker_python:
            refchecker = time_refchecker_package(args.refchecker_python, pairs, device)
        else:
            refchecker = time_refchecker_nli(
                [p for p, _ in pairs], [h for _, h in pairs], device, batch_size=REFCHECKER_BATCH_SIZE
            )
        figures["refchecker_nli_random_weights"] = refchecker
        figures["embedded_over_refchecker_per_pair"] = (
            figures["embedded_pairs_per_second_exact"] / refchecker["pairs_per_second"]
        )
    print(json.dumps({k: v for k, v in figures.items() if k not in ("exact", "fast")}, indent=2))
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
