"""Seconds the default checker's cross-encoder takes on the decisive pairs of realistic records, in batches of a
fixed count of pairs against batches of a budget of tokens (``sorted_batches.padded_batches``).

The records are those of ``record_speed.py`` (six claims against six pages of about 2,000 tokens each); their
pairs are the (window, claim) pairs exact mode scores (``exact_scoring="decisive"``). Each batching scores every
record's pairs in turn, ``--repeats`` times, in one process, so that the machine's other work falls on all of
them alike. For each it reports the median seconds over all records, the process CPU seconds, the share of padding
in its batches and the largest difference of its probabilities from the fixed-count batches' (with the labels
compared). It also reports the arithmetic rate the scoring reached, the multiply-adds of the model's layers over
the padded batches (the last layer for [CLS] alone, as the checker runs it) a second, beside the CPU's rate on a
float32 matrix product of the same size as the model's feed-forward layer: how much room a faster runtime has left.

    HF_HUB_OFFLINE=1 python benchmarks/batch_tokens.py --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

import numpy as np
from exact_baseline import tasks_of
from long_page_records import add_record_options, records_from_options
from results_file import add_out_option, load_average, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")

SETS = ("contractnli=1", "factcheckgpt=1", "control=1", "summedits=1")
BUDGETS = (256, 512, 1024)
FIXED = 32


def decisive_pairs(records: list[dict[str, Any]]) -> dict[str, list[tuple[str, str]]]:
    """Each record's distinct (window, claim) pairs that exact mode scores with the default checker."""
    from factscope.checkers.registry import make_checker

    checker = make_checker("embedded")
    found = {}
    for record in records:
        pairs = [
            (candidate.text, task.claim)
            for task in tasks_of(record)
            for candidate in checker._scored(checker.candidates(task))
        ]
        found[record["id"]] = list(dict.fromkeys(pairs))
    return found


def padded_sizes(lengths: list[int], batch_size: int, batch_tokens: int | None) -> list[tuple[int, int]]:
    """(pairs, padded length) of each batch ``padded_batches`` cuts ``lengths`` into."""
    from factscope.hf.sorted_batches import _batches

    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    return [(len(batch), max(lengths[i] for i in batch)) for batch in _batches(order, lengths, batch_size, batch_tokens)]


def padding_share(lengths: list[int], batch_size: int, batch_tokens: int | None) -> float:
    """Padding tokens over real tokens when ``lengths`` are cut as ``padded_batches`` cuts them."""
    padded = sum(pairs * length for pairs, length in padded_sizes(lengths, batch_size, batch_tokens))
    return padded / sum(lengths) - 1


def model_flops(sizes: list[tuple[int, int]], config: Any) -> float:
    """Floating-point operations (two a multiply-add) of a BERT classifier over padded batches of ``sizes``: every
    layer but the last for every position (projections, feed-forward, attention scores and context), the last for
    the keys and values of every position and [CLS]'s own work."""
    hidden, inner, layers = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    per_position = 4 * hidden * hidden + 2 * hidden * inner
    total = 0.0
    for pairs, length in sizes:
        full = pairs * length * (per_position + 2 * length * hidden)
        last = pairs * (length * 2 * hidden * hidden + 2 * hidden * hidden + 2 * hidden * inner + 2 * length * hidden)
        total += (layers - 1) * full + last
    return 2 * total


def matmul_flops_per_second(hidden: int, inner: int, rows: int = 512, repeats: int = 200) -> float:
    """The rate of a float32 product (rows x hidden) @ (hidden x inner) on this CPU with torch's threads."""
    import torch

    left, right = torch.randn(rows, hidden), torch.randn(hidden, inner)
    for _ in range(10):
        left @ right
    began = time.perf_counter()
    for _ in range(repeats):
        left @ right
    return 2 * rows * hidden * inner * repeats / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_record_options(parser, SETS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--torch", action="store_true", help="run the PyTorch model instead of ONNX Runtime")
    add_out_option(parser)
    args = parser.parse_args()

    from factscope.checkers.embedded import EmbeddedScorer, shipped_checker_dir

    records = records_from_options(args, 6)
    pairs = decisive_pairs(records)
    scorer = EmbeddedScorer.from_dir(shipped_checker_dir(), onnx=not args.torch)
    member = scorer._model.members[0]
    batchings: dict[str, int | None] = {f"{FIXED} pairs": None, **{f"{b} tokens": b for b in BUDGETS}}
    load_start = load_average()
    probs: dict[str, dict[str, np.ndarray]] = {}
    seconds: dict[str, list[float]] = {name: [] for name in batchings}
    cpu: dict[str, float] = dict.fromkeys(batchings, 0.0)
    for name, budget in batchings.items():
        member.batch_tokens = budget
        probs[name] = {rid: scorer.score(*zip(*found)) for rid, found in pairs.items()}
    for _ in range(args.repeats):
        for found in pairs.values():
            for name, budget in batchings.items():
                member.batch_tokens = budget
                began, cpu_began = time.perf_counter(), time.process_time()
                scorer.score(*zip(*found))
                seconds[name].append(time.perf_counter() - began)
                cpu[name] += time.process_time() - cpu_began
        print(f"repeat done: {', '.join(f'{n} {sum(s[-len(pairs):]):.2f} s' for n, s in seconds.items())}",
              flush=True)
    tokenizer = member.tokenizer
    lengths = {
        rid: [len(ids) for ids in tokenizer([p for p, _ in found], [h for _, h in found], truncation=True,
                                            max_length=member.max_length)["input_ids"]]
        for rid, found in pairs.items()
    }
    import json

    config = json.loads((shipped_checker_dir() / "encoder" / "config.json").read_text(encoding="utf-8"))
    shape = argparse.Namespace(**config)
    matmul_rate = matmul_flops_per_second(shape.hidden_size, shape.intermediate_size)
    baseline = f"{FIXED} pairs"
    figures: dict[str, Any] = {
        "load_average_start": load_start,
        "runtime": "torch" if args.torch else "onnx",
        "pairs": {rid: len(found) for rid, found in pairs.items()},
        "seconds_all_records": {},
    }
    per_repeat = {name: [sum(found[i : i + len(pairs)]) for i in range(0, len(found), len(pairs))]
                  for name, found in seconds.items()}
    figures["matmul_gflops"] = matmul_rate / 1e9
    for name, budget in batchings.items():
        flops = sum(model_flops(padded_sizes(found, FIXED, budget), shape) for found in lengths.values())
        figures["seconds_all_records"][name] = {
            "model_gflops": flops / 1e9,
            "gflops_per_second": flops / statistics.median(per_repeat[name]) / 1e9,
            "median": statistics.median(per_repeat[name]),
            "min": min(per_repeat[name]),
            "max": max(per_repeat[name]),
            "cpu_seconds": cpu[name],
            "padding": statistics.mean(padding_share(found, FIXED, budget) for found in lengths.values()),
            "share_of_matmul_rate": flops / statistics.median(per_repeat[name]) / matmul_rate,
            "max_probability_difference": max(
                float(np.abs(probs[name][rid] - probs[baseline][rid]).max()) for rid in pairs
            ),
            "labels_identical": all(
                (probs[name][rid].argmax(1) == probs[baseline][rid].argmax(1)).all() for rid in pairs
            ),
        }
    figures["times_as_fast_as_fixed"] = {
        name: statistics.median(per_repeat[baseline]) / statistics.median(per_repeat[name]) for name in batchings
    }
    figures["load_average_end"] = load_average()
    print(write_results(__file__, args, figures))


if __name__ == "__main__":
    main()
