"""Bi-encoders (sentence embeddings, cosine similarity) and cross-encoders (pair scores)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from factscope.core.bounded_cache import BoundedCache
from factscope.hf.embedded import minilm_path, resolve_encoder
from factscope.hf.loading import load_pretrained
from factscope.hf.sorted_batches import TorchClassifier

CACHED_EMBEDDINGS = 20_000
"""Embeddings a BiEncoder keeps for repeated texts (about 30 MB at 384 dimensions)."""


class TextEncoder(Protocol):
    """Embeds texts as rows of a matrix whose dot products are their similarities (``BiEncoder`` is one)."""

    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class BiEncoder:
    """A sentence-transformers bi-encoder; the packaged all-MiniLM-L6-v2 when no model is named.

    Embeddings are L2-normalised and cached per text (the ``CACHED_EMBEDDINGS`` most recent), so repeated texts
    are encoded once.
    """

    def __init__(self, name_or_path: str | None = None, *, batch_size: int = 64, device: str = "cpu") -> None:
        from sentence_transformers import SentenceTransformer

        source = resolve_encoder(name_or_path) if name_or_path else minilm_path()
        self.name = name_or_path or "all-MiniLM-L6-v2 (packaged)"
        self.batch_size = batch_size
        self.model = load_pretrained(
            _SentenceTransformerLoader(SentenceTransformer, device), source, "bi-encoder"
        )
        self._cache: BoundedCache[str, np.ndarray] = BoundedCache(CACHED_EMBEDDINGS)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised embeddings (n, d) of ``texts``; unseen texts are encoded in length-sorted batches."""
        found = self._cache.held(texts)
        missing = [text for text in dict.fromkeys(texts) if text not in found]
        if missing:
            vectors = self.model.encode(
                missing,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
            for text, vector in zip(missing, vectors):
                found[text] = vector
                self._cache.put(
                    text, vector.copy()
                )  # a row of its own: a view would keep the whole batch alive
        if not texts:
            return np.zeros((0, self.model.get_sentence_embedding_dimension()), dtype=np.float32)
        return np.stack([found[text] for text in texts])

    def cosine(self, a_texts: Sequence[str], b_texts: Sequence[str]) -> np.ndarray:
        """Cosine similarity of each pair (a_texts[i], b_texts[i])."""
        if len(a_texts) != len(b_texts):
            raise ValueError("the two text lists differ in length")
        vectors = self.encode(list(a_texts) + list(b_texts))
        a, b = vectors[: len(a_texts)], vectors[len(a_texts) :]
        return np.einsum("ij,ij->i", a, b)


class _SentenceTransformerLoader:
    """Adapts SentenceTransformer to ``load_pretrained``'s ``from_pretrained`` call."""

    def __init__(self, cls: type, device: str) -> None:
        self._cls = cls
        self._device = device

    def from_pretrained(self, source: str, **kwargs: object) -> object:
        return self._cls(source, device=self._device, local_files_only=bool(kwargs.get("local_files_only")))


class SequenceClassifier(TorchClassifier):
    """Any Hugging Face sequence classifier over texts or text pairs: logits in deduplicated, length-sorted batches."""

    def __init__(
        self,
        name_or_path: str,
        *,
        what: str = "classifier",
        batch_size: int = 32,
        max_length: int = 512,
        device: str = "cpu",
    ) -> None:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.name = name_or_path
        self.batch_size = batch_size
        self.device = device
        self.tokenizer = load_pretrained(AutoTokenizer, name_or_path, f"{what} tokenizer")
        self.model = load_pretrained(AutoModelForSequenceClassification, name_or_path, what).to(device).eval()
        self.max_length = min(
            max_length, getattr(self.tokenizer, "model_max_length", max_length) or max_length
        )
        self.id2label = {int(k): str(v) for k, v in (self.model.config.id2label or {}).items()}


class CrossEncoderScorer:
    """Raw relevance scores (the first logit) of a cross-encoder, e.g. an MS MARCO re-ranker."""

    def __init__(
        self, name_or_path: str, *, batch_size: int = 32, max_length: int = 512, device: str = "cpu"
    ) -> None:
        self.name = name_or_path
        self.classifier = SequenceClassifier(
            name_or_path, what="cross-encoder", batch_size=batch_size, max_length=max_length, device=device
        )

    def score(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """One score per (query, passage) pair: the first logit, unnormalised (thresholds refer to it)."""
        return self.classifier.logits([a for a, _ in pairs], [b for _, b in pairs])[:, 0]
