"""Fine-tuning batches bucketed by characters or by tokens: padded tokens per epoch and seconds per step.

Builds one epoch of the `train-checker` recipe from an NLI JSONL file (seed-13 split; `--epoch plain` is the
train pairs, `--epoch last` adds the long-context and unrelated-segment copies of the last epoch), draws the
epoch's batches with `finetune._length_bucketed_batches` keyed by character count and by token count (what
training does), counts the padded tokens of every batch, then times the same number of training steps
(`finetune.train_step` on `finetune.load_classifier`'s model: the default speed settings, fused AdamW, fp32)
on the first batches of each order, starting from the same weights. The projection is seconds per step times
the epoch's batches. The figures go to `benchmarks/results/bench_finetune_buckets.json` (see `results_file`).

    HF_HUB_OFFLINE=1 python benchmarks/bench_finetune_buckets.py --data mnli_dev_matched.jsonl --epoch plain --steps 60
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

from results_file import add_out_option, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def epoch_pairs(data: Path, epoch: str, seed: int) -> list:
    """The pairs of one epoch of the default recipe (train.py's split and copy seeds)."""
    from factscope.training.long_context import context_copies, unrelated_copies
    from factscope.training.nli_data import load_nli_jsonl, split_dataset

    dataset = load_nli_jsonl(data)
    train = split_dataset(dataset, seed=seed).train
    if epoch == "plain":
        return train
    neutral = dataset.classes.index("neutral")
    return train + context_copies(train, 0.5, 150, seed) + unrelated_copies(train, 0.25, 150, seed + 3, neutral)


def time_steps(encodings: dict, labels: list[int], batches: list[list[int]], steps: int) -> float:
    """Seconds for ``steps`` training steps of a fresh MiniLM classifier (the default recipe's setup, fp32)."""
    import torch

    from factscope.hf.embedded import PACKAGED_ENCODER, resolve_encoder
    from factscope.training.finetune import FinetuneConfig, load_classifier, pad_batch, train_step

    torch.manual_seed(0)
    config = FinetuneConfig()
    classes = ("entailment", "neutral", "contradiction")
    tokenizer, model, trained = load_classifier(resolve_encoder(PACKAGED_ENCODER), classes, config)
    optimizer = torch.optim.AdamW(trained, lr=config.learning_rate, weight_decay=config.weight_decay, fused=True)
    model.train()
    started = time.perf_counter()
    for batch in batches[:steps]:
        target = torch.tensor([labels[i] for i in batch])
        train_step(model, optimizer, trained, pad_batch(tokenizer, encodings, batch), target, bf16=False)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--data",
        type=Path,
        required=True,
        help="NLI JSONL with premise, hypothesis and label (not shipped with factscope; MultiNLI dev matched)",
    )
    parser.add_argument(
        "--epoch", choices=["plain", "last"], default="plain", help="plain: train pairs; last: with copies"
    )
    parser.add_argument("--steps", type=int, default=60, help="training steps timed per bucketing key")
    parser.add_argument("--seed", type=int, default=13, help="split and batch-order seed (default 13)")
    parser.add_argument("--threads", type=int, default=2, help="torch intra-op threads (default 2)")
    add_out_option(parser)
    args = parser.parse_args()

    import numpy as np
    import torch
    from transformers import AutoTokenizer

    from factscope.hf.embedded import PACKAGED_ENCODER, resolve_encoder
    from factscope.training.finetune import _length_bucketed_batches, tokenize_pairs

    torch.set_num_threads(args.threads)
    pairs = epoch_pairs(args.data, args.epoch, args.seed)
    tokenizer = AutoTokenizer.from_pretrained(resolve_encoder(PACKAGED_ENCODER))
    encodings = tokenize_pairs(tokenizer, pairs, max_length=256)
    tokens = np.array([len(ids) for ids in encodings["input_ids"]])
    keys = {"characters": np.array([len(e.premise) + len(e.hypothesis) for e in pairs]), "tokens": tokens}
    print(f"{args.epoch} epoch: {len(pairs)} pairs, {tokens.sum()} real tokens")
    by_key: dict[str, dict[str, Any]] = {}
    for name, lengths in keys.items():
        batches = _length_bucketed_batches(lengths, 32, np.random.default_rng(args.seed))
        padded = sum(len(batch) * int(tokens[batch].max()) for batch in batches)
        sample = sum(len(batch) * int(tokens[batch].max()) for batch in batches[: args.steps])
        seconds = time_steps(encodings, [e.label for e in pairs], batches, args.steps)
        per_step = seconds / min(args.steps, len(batches))
        by_key[name] = {
            "batches": len(batches),
            "padded_tokens": padded,
            "timed_steps": min(args.steps, len(batches)),
            "timed_padded_tokens": sample,
            "seconds": seconds,
            "seconds_per_step": per_step,
            "ms_per_padded_token": 1000 * seconds / sample,
            "epoch_minutes_from_steps": per_step * len(batches) / 60,
            "epoch_minutes_from_tokens": seconds / sample * padded / 60,
        }
        print(
            f"by {name}: {len(batches)} batches, {padded} padded tokens; {args.steps} steps ({sample} padded tokens)"
            f" in {seconds:.1f} s = {1000 * seconds / sample:.3f} ms a padded token; epoch projected"
            f" {per_step * len(batches) / 60:.1f} min (from s/step) or {seconds / sample * padded / 60:.1f} min"
            " (from s/token)"
        )
    figures = {"pairs": len(pairs), "real_tokens": int(tokens.sum()), "bucketed_by": by_key}
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
