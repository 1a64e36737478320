"""Query-knowledge relevance (CONNER eq. 2): a ranking cross-encoder, or the packaged bi-encoder as a fallback."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np
from scipy.special import softmax

if TYPE_CHECKING:
    from factscope.hf.encoders import BiEncoder


class RelevanceModel(Protocol):
    """Matching(k, q) of eq. 2: one relevance score in [0, 1] per (query, knowledge) pair."""

    name: str

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray: ...


class CrossEncoderRelevance:
    """A query-passage ranking cross-encoder (the paper uses a BERT MS MARCO ranker), by hub name or folder.

    One output logit (sentence-transformers MS MARCO rankers): sigmoid of the logit. Two outputs (monoBERT
    style, not-relevant / relevant): the softmax probability of the second.
    """

    def __init__(self, name_or_path: str, batch_size: int = 32, max_length: int = 512, device: str = "cpu") -> None:
        from factscope.hf.encoders import SequenceClassifier

        self.name = f"cross-encoder:{name_or_path}"
        self.classifier = SequenceClassifier(
            name_or_path, what="relevance cross-encoder", batch_size=batch_size, max_length=max_length, device=device
        )

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Relevance in [0, 1] per (query, knowledge) pair, batched by length, duplicates scored once."""
        logits = self.classifier.logits([q for q, _ in pairs], [k for _, k in pairs])
        if logits.shape[1] == 1:
            return 1.0 / (1.0 + np.exp(-logits[:, 0]))
        return softmax(logits, axis=-1)[:, -1]


class BiEncoderRelevance:
    """Offline fallback: cosine similarity of query and knowledge under a bi-encoder, clipped to [0, 1].

    Not the paper's ranking model: a similarity proxy for when no cross-encoder is available.
    """

    def __init__(self, encoder: BiEncoder | None = None) -> None:
        if encoder is None:
            from factscope.hf.encoders import BiEncoder

            encoder = BiEncoder()
        self.encoder = encoder
        self.name = f"bi-encoder fallback:{encoder.name}"

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Clipped cosine per (query, knowledge) pair."""
        if not pairs:
            return np.zeros(0)
        cosines = self.encoder.cosine([q for q, _ in pairs], [k for _, k in pairs])
        return np.clip(np.asarray(cosines, dtype=float), 0.0, 1.0)
