"""A GGUF causal LM run in-process by llama.cpp (the optional ``llamacpp`` extra): token log-probabilities.

``LlamaCppLM`` gives the token log-probabilities CONNER's sentence coherence (eq. 3), informativeness (eq. 5) and
helpfulness (eq. 6) use, as ``HFCausalLM`` does for a Hugging Face model, from a GGUF file run by
``llama-cpp-python`` (``--lm llamacpp:FILE.gguf``, ``--lm llamacpp:embedded`` for the embedded SmolLM2). It is the
reference the transformers path of the embedded LM (``factscope.hf.embedded_lm``) is compared with. llama-cpp-python
builds llama.cpp from C++ source on install, so the extra is left out of ``all``.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import sys
import threading
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from factscope.core.bounded_cache import BoundedCache
from factscope.core.errors import ConfigError
from factscope.hf.causal_lm import scoring_window
from factscope.hf.embedded_lm import DEFAULT_WINDOW, DOCUMENT_START, embedded_model_path

LLAMACPP_HINT = "pip install 'factscope[llamacpp]'"
"""How to install llama-cpp-python (built from C++ source) with the embedded model's package."""
CACHED_SCORES = 10_000
"""Scored (context, continuation) pairs kept for repeated pairs."""


def llama_cpp_available() -> bool:
    """Whether llama-cpp-python is installed, checked without importing it."""
    return importlib.util.find_spec("llama_cpp") is not None


def cpu_threads() -> int:
    """llama.cpp's threads: half the cores this process may run on (llama.cpp's own default), at least one.

    Measured on 2 cores shared with other work: one thread scored a 43-token pair in 0.46 s, two in 0.61 s, and
    two in 2.2 s once torch had loaded its OpenMP runtime first (whose threads then wait by spinning)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cores = os.cpu_count() or 1
    return max(1, cores // 2)


def load_llama(model_path: str | Path, *, window: int = DEFAULT_WINDOW, threads: int | None = None) -> Any:
    """A ``llama_cpp.Llama`` of ``model_path`` that keeps the logits of every position (for log-probabilities)."""
    if "llama_cpp" not in sys.modules:
        # llama.cpp's threads wait for work by spinning (OpenMP's default): on a machine busy with other processes
        # that makes a forward pass several times slower; sleeping waits cost little on a small model.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import llama_cpp
    except ImportError:
        raise ConfigError(
            f"running a GGUF file with llama.cpp needs llama-cpp-python: {LLAMACPP_HINT}"
        ) from None
    path = Path(model_path)
    if not path.is_file():
        raise ConfigError(f"no GGUF model file at {path}")
    try:
        model = llama_cpp.Llama(
            model_path=str(path),
            n_ctx=window,
            logits_all=True,
            verbose=False,
            n_threads=threads or cpu_threads(),
            n_threads_batch=threads or cpu_threads(),
        )
    except (ValueError, RuntimeError) as error:
        raise ConfigError(f"llama.cpp cannot load {path}: {error}") from None
    _OPEN.add(model)
    return model


_OPEN: weakref.WeakSet[Any] = weakref.WeakSet()
"""Models still loaded, closed before the interpreter tears down its modules (llama-cpp-python's own finaliser
then fails with a TypeError that Python prints at exit)."""


@atexit.register
def _close_open_models() -> None:
    for model in list(_OPEN):
        model.close()


class LlamaCppLM:
    """Token log-probabilities from a GGUF causal LM run in-process by llama.cpp (default: the embedded
    SmolLM2-135M-Instruct).

    As in ``HFCausalLM``, the context and the continuation are tokenized separately and concatenated, so the
    continuation's tokens are exactly its own tokenization; with an empty context the document-start token is the
    context (``<|endoftext|>`` as for GPT-2, else BOS), so the first token is scored too; inputs longer than the
    window lose context tokens from the left. Pairs are scored one at a time, each reusing the model's state for
    the tokens it shares with the previous one (pairs of one record share their context). Calls are serialised:
    one llama.cpp context serves one sequence at a time.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        window: int = DEFAULT_WINDOW,
        threads: int | None = None,
    ) -> None:
        path = Path(model_path) if model_path is not None else embedded_model_path()
        self.model = load_llama(path, window=window, threads=threads)
        self.name = "llamacpp:embedded" if model_path is None else f"llamacpp:{path.name}"
        self.max_length = min(
            window, int(self.model.n_ctx())
        )  # llama.cpp rounds its context up (256 at least)
        self.start_id = self._start_token()
        self._cache: BoundedCache[tuple[str, str], np.ndarray] = BoundedCache(CACHED_SCORES)
        self._lock = threading.Lock()

    def logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[np.ndarray]:
        """Token log-probabilities of each continuation; duplicates are scored once (and the ``CACHED_SCORES``
        most recent are kept across calls)."""
        with self._lock:
            found = self._cache.held(pairs)
            for pair in dict.fromkeys(pairs):
                if pair not in found:
                    found[pair] = self._score(*self._encode(*pair))
                    self._cache.put(pair, found[pair])
        return [found[pair] for pair in pairs]

    def _start_token(self) -> int | None:
        """The token an empty context stands for: ``<|endoftext|>`` where the vocabulary has it (GPT-2's BOS, and
        the document separator of SmolLM2's pretraining), else BOS, else EOS."""
        separator = self.model.tokenize(DOCUMENT_START.encode(), add_bos=False, special=True)
        if len(separator) == 1:
            return int(separator[0])
        bos, eos = int(self.model.token_bos()), int(self.model.token_eos())
        return bos if bos >= 0 else eos if eos >= 0 else None

    def _tokens(self, text: str) -> list[int]:
        return list(self.model.tokenize(text.encode("utf-8"), add_bos=False, special=False)) if text else []

    def _encode(self, context: str, continuation: str) -> tuple[list[int], int]:
        """Token ids of context + continuation, and the index of the first continuation token."""
        return scoring_window(
            self._tokens(context), self._tokens(continuation), self.start_id, self.max_length
        )

    def _score(self, ids: list[int], first: int) -> np.ndarray:
        if first >= len(ids):
            return np.zeros(0, dtype=float)
        model = self.model
        held = model.input_ids[: model.n_tokens].tolist()
        shared = 0
        for old, new in zip(held, ids):
            if old != new:
                break
            shared += 1
        model.n_tokens = shared  # the state of the shared prefix is kept; the rest is evaluated afresh
        if shared < len(ids):
            model.eval(ids[shared:])
        logits = np.asarray(model.scores[first - 1 : len(ids) - 1], dtype=np.float64)
        top = logits.max(axis=1, keepdims=True)
        normaliser = top[:, 0] + np.log(np.exp(logits - top).sum(axis=1))
        targets = np.asarray(ids[first:], dtype=np.int64)
        return logits[np.arange(len(targets)), targets] - normaliser
