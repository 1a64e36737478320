"""Time RefChecker's own NLIChecker (PyPI ``refchecker``) on (segment, claim) pairs, with random weights.

Run with the Python of an environment where ``refchecker`` is installed (it pins its own dependencies, so it
lives apart from factscope's); ``fast_mode.py --refchecker-python PATH`` calls it. NLIChecker's default model,
RoBERTa-large (24 layers, hidden 1024, 3 labels), is built from its configuration with random weights, which
take as long to run as the trained ones; no RoBERTa tokenizer is available offline, so the pairs are tokenised by
the word-piece tokenizer in ``--tokenizer`` (about as many tokens for English prose). NLIChecker's own ``_check``
does the batching (16 pairs, in input order, padded, truncated to 512 tokens).

    python benchmarks/refchecker_nli.py --pairs pairs.json --tokenizer MINILM_FOLDER --device cpu
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any


class ZeroTypeTokenizer:
    """A tokenizer whose token type ids are all 0, as RoBERTa's are (its type vocabulary has one entry)."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        encoded = self.tokenizer(*args, **kwargs)
        if "token_type_ids" in encoded:
            encoded["token_type_ids"] = encoded["token_type_ids"] * 0
        return encoded


def random_roberta_large() -> Any:
    """RoBERTa-large for 3-way classification (NLIChecker's default architecture) with random weights."""
    from transformers import RobertaConfig, RobertaForSequenceClassification

    config = RobertaConfig(
        vocab_size=50265,
        hidden_size=1024,
        num_hidden_layers=24,
        num_attention_heads=16,
        intermediate_size=4096,
        max_position_embeddings=514,
        type_vocab_size=1,
        num_labels=3,
    )
    return RobertaForSequenceClassification(config)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=Path, required=True, help="JSON list of [segment, claim]")
    parser.add_argument("--tokenizer", required=True, help="a word-piece tokenizer folder")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()

    import torch
    from refchecker.checker import nli_checker
    from transformers import AutoTokenizer

    torch.manual_seed(0)

    class RandomRoberta:
        @staticmethod
        def from_pretrained(name: str) -> Any:
            return random_roberta_large()

    class WordPieces:
        @staticmethod
        def from_pretrained(name: str) -> Any:
            return ZeroTypeTokenizer(AutoTokenizer.from_pretrained(args.tokenizer))

    nli_checker.AutoModelForSequenceClassification = RandomRoberta  # type: ignore[assignment]
    nli_checker.AutoTokenizer = WordPieces  # type: ignore[assignment]
    checker = nli_checker.NLIChecker(device=args.device)
    pairs = json.loads(args.pairs.read_text(encoding="utf-8"))
    started = time.perf_counter()
    labels = checker._check([claim for _, claim in pairs], [segment for segment, _ in pairs])
    seconds = time.perf_counter() - started
    print(
        json.dumps(
            {
                "implementation": "refchecker NLIChecker._check",
                "refchecker_version": _version("refchecker"),
                "torch": torch.__version__,
                "pairs": len(labels),
                "seconds": seconds,
                "pairs_per_second": len(labels) / seconds,
            }
        )
    )


def _version(package: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


if __name__ == "__main__":
    main()
