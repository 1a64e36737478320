"""A PyTorch sequence classifier run by ONNX Runtime, exported once into the user cache.

On a CPU, ONNX Runtime runs the embedded checker's cross-encoder with the same labels (probabilities within about
1e-6) in less CPU time than PyTorch; how much less wall-clock time depends on the machine's load (the benchmarks
page, ``benchmarks/record_speed.py --targets``). The model is exported on first use (a few seconds, shown as a
setup stage) to ``$XDG_CACHE_HOME/factscope/onnx/<digest>.onnx``, where ``<digest>`` covers the weights: a copy of
a checker shares its export, a retrained one gets its own. It needs the ``onnx`` extra (onnxruntime, and onnx for
the export); without it the PyTorch model runs.

With ``precision='int8'`` the export is quantised once more, to ``<digest>-int8.onnx``: ONNX Runtime's dynamic
int8 quantisation (int8 weights, one scale per output channel; activations quantised per batch). It takes less
time and changes some labels; the embedded checker's card gives both, measured.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from factscope.core.files.user_dirs import cache_home
from factscope.core.runs.loop import setup_stage
from factscope.hf.sorted_batches import sorted_logits

EXPORT_FORMAT = 2
"""Part of every exported file's digest: raised when the export changes, so older files are not reused (2: the
attention exported in its eager form)."""
OPSET = 17
KEPT_BYTES = 2 << 30
"""What the exports in the cache may take: the most recently used are kept up to 2 GiB (the shipped checker's is
91 MB, the mpnet checker's 438 MB), and the one just written always."""
INPUTS = ("input_ids", "attention_mask", "token_type_ids")

OnnxPrecision = Literal["fp32", "int8"]
"""The arithmetic of an exported checker in ONNX Runtime: the export as it is, or its dynamic int8 quantisation."""

INT8_SUFFIX = "-int8"
"""Added to an export's key for its int8 quantisation."""


def onnx_runtime_installed() -> bool:
    """True when onnxruntime and onnx (the ``onnx`` extra) can be imported."""
    return all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "onnx"))


def onnx_cache() -> Path:
    """``$XDG_CACHE_HOME/factscope/onnx`` (``~/.cache/factscope/onnx``)."""
    return cache_home() / "onnx"


class OnnxClassifier:
    """An exported sequence classifier in an ONNX Runtime session on the CPU.

    The session's threads sleep rather than spin while they wait for work: on a CPU shared with other processes
    (a server's workers, other jobs) spinning threads burn the cores that the work needs.
    """

    def __init__(self, path: Path, num_labels: int) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.path = path
        self.num_labels = num_labels
        self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self._inputs = [found.name for found in self._session.get_inputs()]

    def logits(
        self,
        tokenizer: Any,
        first: Sequence[str],
        second: Sequence[str] | None = None,
        *,
        batch_size: int = 32,
        max_length: int = 512,
        batch_tokens: int | None = None,
    ) -> np.ndarray:
        """Logits (n, labels) for each text of ``first``, or each (first[i], second[i]) pair, in the deduplicated,
        length-sorted batches of :func:`~factscope.hf.sorted_batches.sorted_logits` (of at most ``batch_size``
        items and, with ``batch_tokens``, that many tokens)."""
        return sorted_logits(
            self._forward,
            self.num_labels,
            tokenizer,
            first,
            second,
            batch_size=batch_size,
            max_length=max_length,
            tensors="np",
            batch_tokens=batch_tokens,
        )

    def _forward(self, inputs: Any) -> np.ndarray:
        feed = {name: np.asarray(inputs[name], dtype=np.int64) for name in self._inputs}
        return np.asarray(self._session.run(None, feed)[0], dtype=np.float32)


def weights_digest(model: Any) -> str:
    """A key of ``model``'s export: the first 32 hex digits of a SHA-256 over its class, its state dict (names,
    shapes and values), ``EXPORT_FORMAT`` and ``OPSET``."""
    digest = hashlib.sha256(f"{type(model).__name__}:{EXPORT_FORMAT}:{OPSET}".encode())
    for name, tensor in model.state_dict().items():
        values = tensor.detach().float().contiguous().cpu().numpy()
        digest.update(f"{name}{tuple(values.shape)}".encode())
        digest.update(values.tobytes())
    return digest.hexdigest()[:32]


def folder_digest(folder: Path) -> str:
    """A key of the export of the model a folder holds, known before the model is loaded: the first 32 hex digits
    of a SHA-256 over its files (names and bytes), ``EXPORT_FORMAT`` and ``OPSET``."""
    digest = hashlib.sha256(f"folder:{EXPORT_FORMAT}:{OPSET}".encode())
    for path in sorted(found for found in folder.rglob("*") if found.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def cached_export(key: str, cache: Path | None = None) -> Path | None:
    """The export of ``key`` in the cache (marked as just used), or None when there is none."""
    path = (cache or onnx_cache()) / f"{key}.onnx"
    if not path.is_file():
        return None
    path.touch()
    return path


def onnx_classifier(
    model: Any, tokenizer: Any, key: str, cache: Path | None = None, precision: OnnxPrecision = "fp32"
) -> OnnxClassifier:
    """``model`` (a PyTorch sequence classifier on the CPU, in eval mode) in ONNX Runtime at ``precision``, from the
    cached export of ``key`` (:func:`weights_digest` or :func:`folder_digest`), exported (and quantised) first when
    there is none; the cache keeps the most recently used, up to ``KEPT_BYTES``."""
    folder = cache or onnx_cache()
    name = export_name(key, precision)
    path = cached_export(name, folder)
    if path is None:
        path = folder / f"{name}.onnx"
        full = cached_export(key, folder)
        if full is None:
            full = folder / f"{key}.onnx"
            export_classifier(model, tokenizer, full)
        if precision == "int8":
            quantize_export(full, path)
        prune_exports(folder, path)
    return OnnxClassifier(path, int(model.config.num_labels))


def export_name(key: str, precision: OnnxPrecision) -> str:
    """The cache's name of the export of ``key`` at ``precision``."""
    return key + INT8_SUFFIX if precision == "int8" else key


def quantize_export(source: Path, path: Path) -> None:
    """Write ``source``'s dynamic int8 quantisation (ONNX Runtime's ``quantize_dynamic``: int8 weights with one
    scale per output channel) to ``path``, under another name first, so a reader never sees a partial file."""
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    partial = path.with_name(f"{path.stem}.partial-{os.getpid()}")
    quantizer_log = logging.getLogger()
    level = quantizer_log.level
    try:
        with setup_stage(f"quantising the checker to int8 in {path.parent} (first use only)", None):
            # the quantizer logs a hint about shape pre-processing to the root logger: not the user's concern
            quantizer_log.setLevel(logging.ERROR)
            quantize_dynamic(str(source), str(partial), weight_type=QuantType.QInt8, per_channel=True)
        os.replace(partial, path)
    finally:
        quantizer_log.setLevel(level)
        partial.unlink(missing_ok=True)


def prune_exports(folder: Path, kept: Path, budget: int = KEPT_BYTES) -> None:
    """Remove the least recently used exports of ``folder`` beyond ``budget`` bytes in all, never ``kept``."""
    recent = sorted(folder.glob("*.onnx"), key=lambda found: (found != kept, -found.stat().st_mtime))
    total = 0
    for found in recent:
        total += found.stat().st_size
        if total > budget and found != kept:
            found.unlink(missing_ok=True)


def export_classifier(model: Any, tokenizer: Any, path: Path) -> None:
    """Write ``model`` to ``path`` as an ONNX graph over batches of any size and length; written under another
    name and renamed, so a reader never sees a partial file.

    The attention is exported in its eager form (``model``'s own is restored after): the graph transformers'
    scaled-dot-product attention traces to scales queries and keys apart and guards the softmax against NaN, and
    ONNX Runtime runs it more slowly on a CPU, with the same probabilities (the benchmarks page has the figures).
    """
    import torch

    sample = tokenizer(
        ["a first text", "a second"], ["its pair", "another pair"], padding=True, return_tensors="pt"
    )
    names = [name for name in INPUTS if name in sample]
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.stem}.partial-{os.getpid()}")
    axes = {name: {0: "batch", 1: "tokens"} for name in names}
    attention = getattr(model.config, "_attn_implementation", None)
    try:
        if attention not in (None, "eager"):
            model.set_attn_implementation("eager")
        stage = setup_stage(f"exporting the checker for ONNX Runtime to {path.parent} (first use only)", None)
        with stage, torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tracer's notes on shapes it records as constants
            torch.onnx.export(
                model,
                tuple(sample[name] for name in names),
                str(partial),
                input_names=names,
                output_names=["logits"],
                dynamic_axes={**axes, "logits": {0: "batch"}},
                opset_version=OPSET,
                dynamo=False,
            )
        os.replace(partial, path)
    finally:
        if attention not in (None, "eager"):
            model.set_attn_implementation(attention)
        partial.unlink(missing_ok=True)
