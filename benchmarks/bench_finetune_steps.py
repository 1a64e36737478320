"""Seconds for the first batches of a real `train-checker` epoch, by attention choice and dropout masks.

Builds one epoch of the default recipe from an NLI JSONL file (seed-13 split; `--epoch plain` is the train pairs,
`--epoch last` adds the long-context and unrelated-segment copies), draws its batches as training does (token
buckets), and times `--batches` training steps (after two warm-up steps) of `finetune.load_classifier`'s model
with `finetune.train_step`. `--attention auto` is what training does (under bf16: eager attention for batches of
at most 128 tokens, sdpa above); `sdpa` keeps the fused attention for every batch. `--dropout fast` draws the
masks from numpy (the default), `torch` with torch's own dropout. Run one configuration per process, alternating,
and repeat: single runs on a 2-core machine vary by about 10%. Each run writes one results file, by default
`benchmarks/results/bench_finetune_steps.json` (see `results_file`); give each configuration its own `--out`:

    for rep in 1 2; do for a in sdpa auto; do for d in torch fast; do
        HF_HUB_OFFLINE=1 python benchmarks/bench_finetune_steps.py --data mnli_dev_matched.jsonl --epoch last \
            --attention $a --dropout $d --out benchmarks/results/bench_finetune_steps-$a-$d-$rep.json
    done; done; done
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from results_file import add_out_option, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--data",
        type=Path,
        required=True,
        help="NLI JSONL with premise, hypothesis and label (not shipped with factscope; MultiNLI dev matched)",
    )
    parser.add_argument(
        "--epoch", choices=["plain", "last"], default="last", help="plain: train pairs; last: with copies"
    )
    parser.add_argument("--batches", type=int, default=40, help="timed training steps (default 40)")
    parser.add_argument("--attention", choices=["auto", "sdpa"], default="auto")
    parser.add_argument("--dropout", choices=["fast", "torch"], default="fast")
    parser.add_argument("--precision", choices=["auto", "fp32", "bf16"], default="auto")
    parser.add_argument("--seed", type=int, default=13, help="split and batch-order seed (default 13)")
    add_out_option(parser)
    args = parser.parse_args()

    import numpy as np
    import torch
    from bench_finetune_buckets import epoch_pairs

    from factscope.hf.embedded import PACKAGED_ENCODER, resolve_encoder
    from factscope.training.finetune import (
        FinetuneConfig,
        _length_bucketed_batches,
        choose_attention,
        load_classifier,
        pad_batch,
        resolve_precision,
        tokenize_pairs,
        train_step,
    )

    config = FinetuneConfig(precision=args.precision, fast_dropout=args.dropout == "fast")
    torch.set_num_threads(config.threads)
    torch.manual_seed(0)
    bf16 = resolve_precision(config.precision) == "bf16"
    pairs = epoch_pairs(args.data, args.epoch, args.seed)
    classes = ("entailment", "neutral", "contradiction")
    tokenizer, model, trained = load_classifier(resolve_encoder(PACKAGED_ENCODER), classes, config)
    optimizer = torch.optim.AdamW(trained, lr=config.learning_rate, weight_decay=config.weight_decay, fused=True)
    encodings = tokenize_pairs(tokenizer, pairs, config.max_length)
    lengths = np.array([len(ids) for ids in encodings["input_ids"]])
    batches = _length_bucketed_batches(lengths, config.batch_size, np.random.default_rng(args.seed))
    model.train()
    timed = batches[2 : 2 + args.batches]
    started = 0.0
    for step, batch in enumerate(batches[: 2 + args.batches]):
        if step == 2:
            started = time.perf_counter()
        encoded = pad_batch(tokenizer, encodings, batch)
        if args.attention == "auto":
            choose_attention(model, encoded["input_ids"].shape[1], bf16)
        train_step(model, optimizer, trained, encoded, torch.tensor([pairs[i].label for i in batch]), bf16)
    seconds = time.perf_counter() - started
    padded = sum(len(batch) * int(lengths[batch].max()) for batch in timed)
    print(
        f"{args.epoch} epoch, {'bf16' if bf16 else 'fp32'}, attention {args.attention}, dropout {args.dropout}:"
        f" {seconds:.1f} s for {len(timed)} batches ({padded} padded tokens), {seconds / len(timed):.3f} s a batch"
    )
    figures = {
        "precision": "bf16" if bf16 else "fp32",
        "batches": len(timed),
        "padded_tokens": padded,
        "mean_padded_length": padded / sum(len(batch) for batch in timed),
        "seconds": seconds,
        "seconds_per_batch": seconds / len(timed),
    }
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
