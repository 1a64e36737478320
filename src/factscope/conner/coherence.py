"""Paragraph-level coherence (CONNER eq. 4): a pluggable scorer of how well a paragraph's sentences hang together.

The paper uses a discourse coherence model (Jwalapuram et al., 2021). Any Hugging Face sequence classifier
that scores a passage's coherence can stand in (``ClassifierCoherence``); with no such model offline,
``AdjacentSimilarityCoherence`` is a documented proxy: the mean cosine similarity of adjacent sentences
under the packaged bi-encoder, clipped to [0, 1].
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np
from scipy.special import softmax

if TYPE_CHECKING:
    from factscope.hf.encoders import BiEncoder


class ParagraphCoherence(Protocol):
    """Scores each paragraph (a list of sentences) in [0, 1]; higher is more coherent."""

    name: str

    def score(self, paragraphs: Sequence[Sequence[str]]) -> list[float]: ...


class AdjacentSimilarityCoherence:
    """Offline proxy: mean over adjacent sentence pairs of max(0, cos(s_i, s_i+1)).

    A one-sentence paragraph has no transition to judge and scores 1.0.
    """

    def __init__(self, encoder: BiEncoder | None = None) -> None:
        if encoder is None:
            from factscope.hf.encoders import BiEncoder

            encoder = BiEncoder()
        self.encoder = encoder
        self.name = f"adjacent-similarity:{encoder.name}"

    def score(self, paragraphs: Sequence[Sequence[str]]) -> list[float]:
        """One proxy coherence score per paragraph."""
        left = [p[i] for p in paragraphs for i in range(len(p) - 1)]
        right = [p[i + 1] for p in paragraphs for i in range(len(p) - 1)]
        cosines = iter(np.clip(self.encoder.cosine(left, right), 0.0, 1.0).tolist()) if left else iter(())
        scores = []
        for paragraph in paragraphs:
            pairs = [next(cosines) for _ in range(len(paragraph) - 1)]
            scores.append(float(np.mean(pairs)) if pairs else 1.0)
        return scores


class ClassifierCoherence:
    """A Hugging Face sequence classifier over the whole paragraph, normalised to [0, 1].

    One output: sigmoid of the logit. Several: the softmax probability of the label named like
    "coherent" in the model's id2label, else of the last label.
    """

    def __init__(self, name_or_path: str, batch_size: int = 16, max_length: int = 512, device: str = "cpu") -> None:
        from factscope.hf.encoders import SequenceClassifier

        self.name = f"classifier:{name_or_path}"
        self.classifier = SequenceClassifier(
            name_or_path, what="coherence model", batch_size=batch_size, max_length=max_length, device=device
        )
        labels = {index: name.lower() for index, name in self.classifier.id2label.items()}
        coherent = [i for i, name in labels.items() if name in {"coherent", "coherence", "positive", "label_1"}]
        self.column = coherent[0] if coherent else self.classifier.model.config.num_labels - 1

    def score(self, paragraphs: Sequence[Sequence[str]]) -> list[float]:
        """One normalised coherence score per paragraph (sentences joined by spaces)."""
        logits = self.classifier.logits([" ".join(sentences) for sentences in paragraphs])
        if logits.shape[1] == 1:
            return (1.0 / (1.0 + np.exp(-logits[:, 0]))).tolist()
        return softmax(logits, axis=-1)[:, self.column].tolist()
