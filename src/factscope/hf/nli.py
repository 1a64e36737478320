"""A PairScorer over any Hugging Face NLI sequence classifier (a sentence-transformers CrossEncoder folder too)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.special import softmax

from factscope.core.schema import LABELS, Label
from factscope.hf.label_map import label_columns
from factscope.hf.loading import load_pretrained
from factscope.hf.sorted_batches import TorchClassifier
from factscope.hf.token_counts import TokenCounts


def to_label_order(probs: np.ndarray, columns: dict[int, Label]) -> np.ndarray:
    """Reorder model probabilities into LABELS order (a label no column stands for gets 0)."""
    out = np.zeros((probs.shape[0], len(LABELS)), dtype=np.float64)
    for column, label in columns.items():
        out[:, LABELS.index(label)] += probs[:, column]
    return out


class HFNLIScorer(TorchClassifier):
    """3-way probabilities for (premise, hypothesis) pairs from a sequence-classification NLI model.

    Pairs run through :meth:`~factscope.hf.sorted_batches.TorchClassifier.logits`: deduplicated, tokenised once
    per chunk of ``chunk_batches`` batches, each chunk sorted by token count, so little compute goes to padding.
    """

    def __init__(
        self,
        name_or_path: str,
        *,
        batch_size: int = 32,
        max_length: int = 512,
        label_order: Sequence[str] | None = None,
        device: str = "cpu",
        chunk_batches: int = 64,
    ) -> None:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.name = f"nli:{name_or_path}"
        self.batch_size = batch_size
        self.chunk_batches = chunk_batches
        self.device = device
        self.tokenizer = load_pretrained(AutoTokenizer, name_or_path, "NLI tokenizer")
        self.model = (
            load_pretrained(AutoModelForSequenceClassification, name_or_path, "NLI model").to(device).eval()
        )
        self.max_length = min(
            max_length, getattr(self.tokenizer, "model_max_length", max_length) or max_length
        )
        self.columns = label_columns(self.model.config.id2label, label_order)
        self._token_counts = TokenCounts(self.tokenizer)

    def count_tokens(self, text: str) -> int:
        """Number of tokens of ``text`` without special tokens (the ``CACHED_TOKEN_COUNTS`` most recent texts'
        are memoised: ``factscope.hf.token_counts``)."""
        return self._token_counts(text)

    def score(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Probabilities (n, 3) in LABELS order for each (premise, hypothesis) pair."""
        if len(premises) != len(hypotheses):
            raise ValueError("premises and hypotheses differ in length")
        return to_label_order(softmax(self.logits(premises, hypotheses), axis=1), self.columns)
