"""Speed of the shipped embedded checker on (claim, 200-token segment) pairs, against a plain MiniLM forward pass.

Segments are built from the premises of an NLI JSONL file (consecutive premises joined, then cut into
200-token windows by factscope.core.text.segment_spans); claims are that file's hypotheses. The baseline is one
forward pass of the packaged all-MiniLM-L6-v2 (AutoModel, no head) over the same (segment, claim) pairs with the
same batch size, tokenizer and length sorting. The figures go to ``benchmarks/results/bench_embedded.json`` (see
``results_file``).

    HF_HUB_OFFLINE=1 python benchmarks/bench_embedded.py --data mnli_dev_matched.jsonl --pairs 256
"""

from __future__ import annotations

import argparse
import json
import os
import time

from results_file import add_out_option, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def build_pairs(data: str, n_pairs: int, count_tokens, max_tokens: int) -> tuple[list[str], list[str]]:
    """``n_pairs`` (segment, claim) pairs: 200-token windows of joined premises, each with one hypothesis."""
    from factscope.core.text import segment_spans

    with open(data, encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    text = " ".join(record["premise"].strip().rstrip(".") + "." for record in records[: n_pairs * 12])
    windows = [text[span.start : span.end] for span in segment_spans(text, count_tokens, max_tokens)]
    segments = [s for s in windows if count_tokens(s) > max_tokens * 0.8]
    if len(segments) < n_pairs:
        raise SystemExit(f"only {len(segments)} full segments; use a larger --data file or fewer --pairs")
    claims = [record["hypothesis"] for record in records[:n_pairs]]
    return segments[:n_pairs], claims


def time_plain_forward(premises: list[str], hypotheses: list[str], batch_size: int) -> float:
    """Seconds for a plain forward pass of the packaged MiniLM over the pairs (length-sorted batches)."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    from factscope.hf.embedded import minilm_path

    tokenizer = AutoTokenizer.from_pretrained(minilm_path())
    model = AutoModel.from_pretrained(minilm_path()).eval()
    order = sorted(range(len(premises)), key=lambda i: len(premises[i]) + len(hypotheses[i]))
    started = time.perf_counter()
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            encoded = tokenizer(
                [premises[i] for i in batch], [hypotheses[i] for i in batch], padding=True, truncation=True,
                max_length=320, return_tensors="pt",
            )
            model(**encoded)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--data",
        required=True,
        help="NLI JSONL with premise and hypothesis (not shipped with factscope; e.g. MultiNLI dev matched)",
    )
    parser.add_argument("--pairs", type=int, default=256, help="timed (segment, claim) pairs (default 256)")
    parser.add_argument("--max-tokens", type=int, default=200, help="segment length in tokens (default 200)")
    parser.add_argument("--threads", type=int, default=2, help="torch intra-op threads (default 2)")
    parser.add_argument("--batch-size", type=int, default=32, help="of the plain pass (the checker batches 32)")
    parser.add_argument("--repeats", type=int, default=2, help="best of N timings")
    parser.add_argument("--checker", default=None, help="a checker directory (default: the shipped checker)")
    add_out_option(parser)
    args = parser.parse_args()

    import torch

    from factscope.checkers.embedded import load_embedded_scorer

    torch.set_num_threads(args.threads)
    scorer = load_embedded_scorer(args.checker)
    premises, hypotheses = build_pairs(args.data, args.pairs, scorer.count_tokens, args.max_tokens)
    batch_size = args.batch_size
    scorer.score(premises[:8], hypotheses[:8])
    time_plain_forward(premises[:8], hypotheses[:8], batch_size)
    checker_seconds, plain_seconds = [], []
    for _ in range(args.repeats):
        started = time.perf_counter()
        scorer.score(premises, hypotheses)
        checker_seconds.append(time.perf_counter() - started)
        plain_seconds.append(time_plain_forward(premises, hypotheses, batch_size))
    checker, plain = min(checker_seconds), min(plain_seconds)
    figures = {
        "checker": args.checker or "shipped",
        "pairs": len(premises),
        "mean_segment_tokens": sum(scorer.count_tokens(p) for p in premises) / len(premises),
        "checker_seconds": checker_seconds,
        "plain_seconds": plain_seconds,
        "checker_pairs_per_second": len(premises) / checker,
        "plain_minilm_forward_pairs_per_second": len(premises) / plain,
        "checker_time_over_plain_forward": checker / plain,
    }
    print(json.dumps(figures, indent=2))
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
