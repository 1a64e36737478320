"""RepC (RefChecker, section 4.2), inference side: a shallow classifier on a frozen encoder's internal representations.

Features of a (premise, hypothesis) pair come from the frozen encoder in one or both of two ways:
- ``pair``: the pair encoded jointly ("[CLS] premise [SEP] hypothesis [SEP]"), each chosen layer's hidden states
  mean-pooled over the tokens; one layer is layer selection (LS), several are concatenated (layer ensemble, LE);
- ``sentence``: premise and hypothesis encoded apart, last layer mean-pooled and L2-normalised (the sentence
  embedding of all-MiniLM-L6-v2), combined as [u, v, |u - v|, u * v].
The classifier is logistic regression, a linear SVM, a 2-layer MLP or kNN. Its parameters are stored in
``head.npz`` (no pickle) and applied with numpy at inference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np

from factscope.core.errors import ConfigError
from factscope.hf.embedded import resolve_encoder
from factscope.hf.loading import load_pretrained

RepCClassifier = Literal["logreg", "svm", "mlp", "knn"]
"""RepC's shallow classifier."""
RepCFeatures = Literal["pair", "sentence", "both"]
"""RepC's features: the pair encoded jointly, the two sentences apart, or both."""
CLASSIFIERS: tuple[RepCClassifier, ...] = get_args(RepCClassifier)
FEATURES: tuple[RepCFeatures, ...] = get_args(RepCFeatures)


class LayersError(ConfigError, ValueError):
    """A ``layers`` value that names no layer of the encoder: a settings error (the CLI exits 2), and still the
    ValueError that ``parse_layers`` raised before."""


def check_layer_spec(text: str) -> str:
    """``text`` when it is 'all' or comma-separated whole numbers (the encoder, loaded later, checks that they name
    its layers); else a LayersError."""
    if text.strip().lower() == "all":
        return text
    parts = [part.strip() for part in text.split(",")]
    if not all(part.lstrip("-").isdigit() for part in parts):
        raise LayersError(
            f"{text!r}: give 'all' or comma-separated layer numbers (0 the embeddings, negative from the last), "
            "e.g. 3,4,5,6"
        )
    return text


def parse_layers(text: str, n_hidden_states: int) -> list[int]:
    """Layer indices from "all", "6", "3,4,5" or "-1" (0 is the embedding output, n is the last layer)."""
    if text.strip().lower() == "all":
        return list(range(1, n_hidden_states))
    valid = (
        f"this encoder has layers 0..{n_hidden_states - 1} (0 the embeddings; -1..-{n_hidden_states} count from the "
        "last); give 'all' or comma-separated numbers in that range"
    )
    layers = []
    for part in text.split(","):
        try:
            index = int(part)
        except ValueError:
            raise LayersError(f"`layers`: {part.strip()!r} is not a layer number; {valid}") from None
        index = index if index >= 0 else n_hidden_states + index
        if not 0 <= index < n_hidden_states:
            raise LayersError(f"`layers`: layer {part.strip()} is outside the encoder; {valid}")
        layers.append(index)
    return layers


class RepCFeaturizer:
    """Frozen-encoder features of (premise, hypothesis) pairs; batched, length-sorted, deduplicated."""

    def __init__(
        self,
        encoder: str,
        layers: Sequence[int],
        features: str = "both",
        max_length: int = 320,
        batch_size: int = 32,
    ) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        if features not in FEATURES:
            raise ValueError(f"features must be one of {FEATURES}")
        self.tokenizer = load_pretrained(AutoTokenizer, encoder, "encoder tokenizer")
        self.model = load_pretrained(AutoModel, encoder, "encoder", dtype=torch.float32).eval()
        self.layers = list(layers)
        self.features = features
        self.max_length = max_length
        self.batch_size = batch_size

    @property
    def n_hidden_states(self) -> int:
        """Number of hidden-state outputs (embeddings plus every layer)."""
        return int(self.model.config.num_hidden_layers) + 1

    def transform(
        self,
        premises: Sequence[str],
        hypotheses: Sequence[str],
        on_batch: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """One feature row per pair (float32)."""
        parts = []
        if self.features in ("pair", "both"):
            parts.append(self._pair_features(list(zip(premises, hypotheses)), on_batch))
        if self.features in ("sentence", "both"):
            embeddings = self._sentence_embeddings(list(premises) + list(hypotheses), on_batch)
            u, v = embeddings[: len(premises)], embeddings[len(premises) :]
            parts.append(np.hstack([u, v, np.abs(u - v), u * v]))
        return np.hstack(parts).astype(np.float32)

    def _pair_features(self, pairs: list[tuple[str, str]], on_batch: Callable[[int], None] | None) -> np.ndarray:
        unique = list(dict.fromkeys(pairs))
        rows = self._encode(unique, self.layers, on_batch, normalise=False)
        index = {pair: i for i, pair in enumerate(unique)}
        return rows[[index[pair] for pair in pairs]]

    def _sentence_embeddings(self, texts: list[str], on_batch: Callable[[int], None] | None) -> np.ndarray:
        unique = list(dict.fromkeys(texts))
        rows = self._encode([(text,) for text in unique], [self.n_hidden_states - 1], on_batch, normalise=True)
        index = {text: i for i, text in enumerate(unique)}
        return rows[[index[text] for text in texts]]

    def _encode(
        self,
        inputs: Sequence[tuple[str, ...]],
        layers: list[int],
        on_batch: Callable[[int], None] | None,
        normalise: bool,
    ) -> np.ndarray:
        """Mean-pooled hidden states of ``layers`` (concatenated) for single texts or text pairs."""
        import torch

        width = int(self.model.config.hidden_size) * len(layers)
        out = np.zeros((len(inputs), width), dtype=np.float32)
        order = sorted(range(len(inputs)), key=lambda i: sum(len(t) for t in inputs[i]))
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                batch = order[start : start + self.batch_size]
                columns = list(zip(*[inputs[i] for i in batch]))
                encoded = self.tokenizer(
                    *[list(column) for column in columns],
                    padding=True,
                    truncation="longest_first",
                    max_length=self.max_length,
                    return_tensors="pt",
                )
                states = self.model(**encoded, output_hidden_states=True).hidden_states
                mask = encoded["attention_mask"].unsqueeze(-1).float()
                pooled = [(states[k] * mask).sum(1) / mask.sum(1).clamp(min=1.0) for k in layers]
                if normalise:
                    pooled = [torch.nn.functional.normalize(p, dim=-1) for p in pooled]
                out[batch] = torch.cat(pooled, dim=-1).numpy()
                if on_batch is not None:
                    on_batch(len(batch))
        return out


@dataclass
class ShallowHead:
    """A fitted shallow classifier as plain arrays: standardisation, then the classifier's own parameters."""

    kind: str
    arrays: dict[str, np.ndarray]

    def probs(self, features: np.ndarray) -> np.ndarray:
        """Class probabilities (rows sum to 1)."""
        a = self.arrays
        x = (features - a["mean"]) / a["scale"]
        if self.kind == "logreg":
            return _softmax(x @ a["coef"].T + a["intercept"])
        if self.kind == "svm":
            return _softmax((x @ a["coef"].T + a["intercept"]) * float(a["temperature"]))
        if self.kind == "mlp":
            hidden = np.maximum(x @ a["w0"] + a["b0"], 0.0)
            return _softmax(hidden @ a["w1"] + a["b1"])
        if self.kind == "knn":
            return _knn_probs(x, a["train_x"].astype(np.float32), a["train_y"], int(a["k"]), int(a["n_classes"]))
        raise ValueError(f"unknown classifier {self.kind!r}")

    def save(self, path: Path) -> None:
        """Write the head to an .npz file."""
        # numpy >= 2.1's stubs add an ``allow_pickle: bool`` keyword that mypy thinks ``**self.arrays`` could
        # fill; passing it explicitly is no way out, as numpy < 2.1 would save it as an array named allow_pickle.
        np.savez_compressed(path, kind=np.array(self.kind), **self.arrays)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: Path) -> ShallowHead:
        """Read a head written by ``save``."""
        with np.load(path, allow_pickle=False) as data:
            arrays = {key: data[key] for key in data.files if key != "kind"}
            return cls(kind=str(data["kind"]), arrays=arrays)


class RepCModel:
    """A frozen-encoder featurizer and a shallow head: ``probs(premises, hypotheses)``."""

    def __init__(self, featurizer: RepCFeaturizer, head: ShallowHead) -> None:
        self.featurizer = featurizer
        self.head = head

    def probs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Class probabilities in the checker's class order."""
        return self.head.probs(self.featurizer.transform(premises, hypotheses))

    @classmethod
    def load(cls, directory: Path, manifest: dict[str, Any]) -> RepCModel:
        """Rebuild from a checker directory's manifest and head.npz."""
        featurizer = RepCFeaturizer(
            resolve_encoder(manifest["encoder"]),
            layers=manifest["layers"],
            features=manifest["features"],
            max_length=int(manifest.get("inference_max_length", 320)),
        )
        return cls(featurizer, ShallowHead.load(directory / "head.npz"))


def _softmax(logits: np.ndarray) -> np.ndarray:
    logits = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(logits)
    return exp / exp.sum(axis=1, keepdims=True)


def _knn_probs(x: np.ndarray, train_x: np.ndarray, train_y: np.ndarray, k: int, n_classes: int) -> np.ndarray:
    """Label shares among the k nearest training rows by cosine similarity."""
    def unit(m: np.ndarray) -> np.ndarray:
        return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)

    similarity = unit(x.astype(np.float32)) @ unit(train_x).T
    k = min(k, train_x.shape[0])
    nearest = np.argpartition(-similarity, k - 1, axis=1)[:, :k]
    counts = np.zeros((x.shape[0], n_classes))
    for row, neighbours in enumerate(nearest):
        counts[row] = np.bincount(train_y[neighbours], minlength=n_classes)
    return counts / k
