"""Fine-tuning batches bucketed by characters or by tokens: padded tokens per epoch and seconds per step.

Builds one epoch of the `train-checker` recipe from an NLI JSONL file (seed-13 split; `--epoch plain` is the
train pairs, `--epoch last` adds the long-context and unrelated-segment copies of the last epoch), draws the
epoch's batches with `finetune._length_bucketed_batches` keyed by character count (before session 7) and by
token count (now), counts the padded tokens of every batch, then times the same number of training steps
(forward, backward, clipping, fused AdamW; the default speed settings) on the first batches of each order,
starting from the same weights. The projection is seconds per step times the epoch's batches.

    HF_HUB_OFFLINE=1 python benchmarks/bench_finetune_buckets.py --data ../shared/data/nli/mnli_dev_matched.jsonl \
        --epoch plain --steps 60
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def epoch_pairs(data: Path, epoch: str, seed: int) -> list:
    """The pairs of one epoch of the default recipe (train.py's split and copy seeds)."""
    from factscope.checker_training.long_context import context_copies, unrelated_copies
    from factscope.checker_training.nli_data import load_nli_jsonl, split_dataset

    dataset = load_nli_jsonl(data)
    train = split_dataset(dataset, seed=seed).train
    if epoch == "plain":
        return train
    neutral = dataset.classes.index("neutral")
    return train + context_copies(train, 0.5, 150, seed) + unrelated_copies(train, 0.25, 150, seed + 3, neutral)


def time_steps(encodings, labels, batches, steps: int) -> float:
    """Seconds for ``steps`` training steps of a fresh MiniLM classifier on the first ``batches``."""
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    from factscope.checkers.embedded import PACKAGED_ENCODER, resolve_encoder

    encoder = resolve_encoder(PACKAGED_ENCODER)
    torch.manual_seed(0)
    config = AutoConfig.from_pretrained(encoder, num_labels=3)
    config.attention_probs_dropout_prob = 0.0
    model = AutoModelForSequenceClassification.from_pretrained(encoder, config=config).train()
    model.get_input_embeddings().weight.requires_grad_(False)
    trained = [parameter for parameter in model.parameters() if parameter.requires_grad]
    optimizer = torch.optim.AdamW(trained, lr=1e-4, fused=True)
    tokenizer = AutoTokenizer.from_pretrained(encoder)
    started = time.perf_counter()
    for batch in batches[:steps]:
        encoded = tokenizer.pad({key: [values[i] for i in batch] for key, values in encodings.items()}, return_tensors="pt")
        loss = model(**encoded, labels=torch.tensor([labels[i] for i in batch])).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trained, 1.0)
        optimizer.step()
        optimizer.zero_grad()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=Path("../shared/data/nli/mnli_dev_matched.jsonl"))
    parser.add_argument("--epoch", choices=["plain", "last"], default="plain")
    parser.add_argument("--steps", type=int, default=60, help="training steps timed per bucketing key")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    import numpy as np
    import torch
    from transformers import AutoTokenizer

    from factscope.checker_training.finetune import _length_bucketed_batches
    from factscope.checkers.embedded import PACKAGED_ENCODER, resolve_encoder

    torch.set_num_threads(args.threads)
    pairs = epoch_pairs(args.data, args.epoch, args.seed)
    tokenizer = AutoTokenizer.from_pretrained(resolve_encoder(PACKAGED_ENCODER))
    encodings = tokenizer(
        [e.premise for e in pairs], [e.hypothesis for e in pairs], truncation="longest_first", max_length=256
    )
    tokens = np.array([len(ids) for ids in encodings["input_ids"]])
    keys = {"characters": np.array([len(e.premise) + len(e.hypothesis) for e in pairs]), "tokens": tokens}
    print(f"{args.epoch} epoch: {len(pairs)} pairs, {tokens.sum()} real tokens")
    for name, lengths in keys.items():
        batches = _length_bucketed_batches(lengths, 32, np.random.default_rng(args.seed))
        padded = sum(len(batch) * int(tokens[batch].max()) for batch in batches)
        sample = sum(len(batch) * int(tokens[batch].max()) for batch in batches[: args.steps])
        seconds = time_steps(encodings, [e.label for e in pairs], batches, args.steps)
        per_step = seconds / min(args.steps, len(batches))
        print(
            f"by {name}: {len(batches)} batches, {padded} padded tokens; {args.steps} steps ({sample} padded tokens)"
            f" in {seconds:.1f} s = {1000 * seconds / sample:.3f} ms a padded token; epoch projected"
            f" {per_step * len(batches) / 60:.1f} min (from s/step) or {seconds / sample * padded / 60:.1f} min"
            " (from s/token)"
        )


if __name__ == "__main__":
    main()
