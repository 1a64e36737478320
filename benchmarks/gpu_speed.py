"""Pairs a second and realistic records a second of the offline checkers on a device, batch sizes swept.

For each checker (``--checkers``: the default ``embedded`` and the larger ``mpnet``) built on ``--device`` (``cuda``
by default; ``cpu`` runs the same measurement, with small sizes, where no GPU is), and for each batch size
(``--batch-sizes``, pairs per forward pass of each model):

- **pairs a second**: the checker's model scores ``--pairs`` (window, claim) pairs of realistic records (each
  claim with the sentence windows of the record's pages, in order) in one call;
- **records a second**: the checker checks each realistic record (six claims against six pages of about
  ``--page-tokens`` tokens, ``long_page_records``) in exact mode, one call a record.

The checker is loaded and warmed up before any timing (loading is timed apart); each batch size first scores one
batch untimed. The machine, the GPU's name and the date go in the results file.

    HF_HUB_OFFLINE=1 python benchmarks/gpu_speed.py --device cuda
    HF_HUB_OFFLINE=1 python benchmarks/gpu_speed.py --device cpu --batch-sizes 8 32 --pairs 64 --sets factcheckgpt=1
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from exact_baseline import tasks_of
from long_page_records import add_record_options, records_from_options
from results_file import add_out_option, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")

CHECKERS = ("embedded", "mpnet")
BATCH_SIZES = (32, 64, 128, 256, 512)
SETS = ("contractnli=2", "factcheckgpt=2", "control=2", "summedits=2")


def record_pairs(checker: Any, records: list[dict[str, Any]], count: int) -> tuple[list[str], list[str]]:
    """The first ``count`` (window, claim) pairs of ``records``: each claim with every window of its pages."""
    premises: list[str] = []
    hypotheses: list[str] = []
    for record in records:
        for task in tasks_of(record):
            for candidate in checker.candidates(task):
                premises.append(candidate.text)
                hypotheses.append(task.claim)
                if len(premises) == count:
                    return premises, hypotheses
    return premises, hypotheses


def set_batch_size(scorer: Any, batch_size: int) -> None:
    """Score ``batch_size`` pairs per forward pass in each model of an embedded checker's scorer."""
    for member in scorer._model.members:
        member.batch_size = batch_size


def synchronize(device: str) -> None:
    """Wait for the device's queued work (a no-op on the CPU)."""
    if device == "cuda":
        import torch

        torch.cuda.synchronize()


def measure(spec: str, device: str, batch_sizes: list[int], records: list[dict[str, Any]], pairs: int) -> dict[str, Any]:
    """Load ``spec`` on ``device``, then its pairs a second and records a second at each batch size."""
    from factscope.checkers.base import CheckTask
    from factscope.checkers.registry import make_checker

    started = time.perf_counter()
    checker: Any = make_checker(spec, mode="exact", device=device)
    checker.check([CheckTask(claim="The museum opened in 1990.", references=("The museum opened in 1990.",))])
    synchronize(device)
    load_seconds = time.perf_counter() - started
    premises, hypotheses = record_pairs(checker, records, pairs)
    sizes = {}
    for batch_size in batch_sizes:
        set_batch_size(checker.scorer, batch_size)
        checker.scorer.score(premises[:batch_size], hypotheses[:batch_size])
        synchronize(device)
        began = time.perf_counter()
        checker.scorer.score(premises, hypotheses)
        synchronize(device)
        pair_seconds = time.perf_counter() - began
        record_seconds = []
        for record in records:
            began = time.perf_counter()
            checker.check(tasks_of(record))
            synchronize(device)
            record_seconds.append(time.perf_counter() - began)
        sizes[str(batch_size)] = {
            "pairs": len(premises),
            "pairs_per_second": round(len(premises) / pair_seconds, 2),
            "records": len(records),
            "records_per_second": round(len(records) / sum(record_seconds), 3),
            "record_seconds": [round(seconds, 3) for seconds in record_seconds],
        }
        print(f"{spec} on {device}, batch {batch_size}: {sizes[str(batch_size)]}", flush=True)
    return {"load_seconds": round(load_seconds, 3), "batch_sizes": sizes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_record_options(parser, SETS)
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda", help="where the checkers run")
    parser.add_argument("--checkers", nargs="+", default=list(CHECKERS), help="checker specs to measure")
    parser.add_argument(
        "--batch-sizes", nargs="+", type=int, default=list(BATCH_SIZES), help="pairs per forward pass, swept"
    )
    parser.add_argument("--pairs", type=int, default=4096, help="(window, claim) pairs timed at each batch size")
    add_out_option(parser)
    args = parser.parse_args()
    if any(size < 1 for size in args.batch_sizes) or args.pairs < 1:
        parser.error("--batch-sizes and --pairs must be positive")
    records = records_from_options(args, claims=6)
    figures: dict[str, Any] = {"device": args.device, "records": [record["id"] for record in records]}
    figures["checkers"] = {
        spec: measure(spec, args.device, args.batch_sizes, records, args.pairs) for spec in args.checkers
    }
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
