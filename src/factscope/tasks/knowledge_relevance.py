"""Query-knowledge relevance (CONNER eq. 2): a ranking cross-encoder, or the packaged bi-encoder as a fallback."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from factscope.backends.hf.loading import load_pretrained

if TYPE_CHECKING:
    from factscope.backends.hf.encoders import BiEncoder


class RelevanceModel(Protocol):
    """Matching(k, q) of eq. 2: one relevance score in [0, 1] per (query, knowledge) pair."""

    name: str

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray: ...


class CrossEncoderRelevance:
    """A query-passage ranking cross-encoder (the seed uses a BERT MS MARCO ranker), by hub name or folder.

    One output logit (sentence-transformers MS MARCO rankers): sigmoid of the logit. Two outputs (monoBERT
    style, not-relevant / relevant): the softmax probability of the second.
    """

    def __init__(self, name_or_path: str, batch_size: int = 32, max_length: int = 512, device: str = "cpu") -> None:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.name = f"cross-encoder:{name_or_path}"
        self.batch_size = batch_size
        self.max_length = max_length
        self.device = device
        self.tokenizer = load_pretrained(AutoTokenizer, name_or_path, "relevance cross-encoder tokenizer")
        self.model = load_pretrained(AutoModelForSequenceClassification, name_or_path, "relevance cross-encoder")
        self.model.to(device).eval()

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Relevance in [0, 1] per (query, knowledge) pair, batched by length, duplicates scored once."""
        import torch

        unique = sorted(set(pairs), key=lambda pair: len(pair[0]) + len(pair[1]))
        results: dict[tuple[str, str], float] = {}
        for start in range(0, len(unique), self.batch_size):
            batch = unique[start : start + self.batch_size]
            encoded = self.tokenizer(
                [q for q, _ in batch], [k for _, k in batch],
                padding=True, truncation=True, max_length=self.max_length, return_tensors="pt",
            ).to(self.device)
            with torch.inference_mode():
                logits = self.model(**encoded).logits.float().cpu()
            if logits.shape[1] == 1:
                values = torch.sigmoid(logits[:, 0])
            else:
                values = torch.softmax(logits, dim=-1)[:, -1]
            results.update(zip(batch, values.tolist()))
        return np.array([results[pair] for pair in pairs], dtype=float)


class BiEncoderRelevance:
    """Offline fallback: cosine similarity of query and knowledge under a bi-encoder, clipped to [0, 1].

    Not the seed's ranking model: a similarity proxy for when no cross-encoder is available.
    """

    def __init__(self, encoder: BiEncoder | None = None) -> None:
        if encoder is None:
            from factscope.backends.hf.encoders import BiEncoder

            encoder = BiEncoder()
        self.encoder = encoder
        self.name = f"bi-encoder fallback:{encoder.name}"

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Clipped cosine per (query, knowledge) pair."""
        if not pairs:
            return np.zeros(0)
        cosines = self.encoder.cosine([q for q, _ in pairs], [k for _, k in pairs])
        return np.clip(np.asarray(cosines, dtype=float), 0.0, 1.0)
