"""Vectara's HHEM-2.1-open as a PairScorer, built natively from its published weights (never its remote code).

Facts of the published model (``vectara/hallucination_evaluation_model``) that this follows:

- the model is a T5 encoder with a token-classification head of 2 outputs (transformers' ``T5ForTokenClassification``)
  whose architecture is the ``foundation`` named in its config.json (``google/flan-t5-base``), and whose weights
  are stored under the prefix ``t5.``;
- its input is one text, the prompt template
  ``<pad> Determine if the hypothesis is true given the premise?\\n\\nPremise: {text1}\\n\\nHypothesis: {text2}``
  with the premise as ``text1`` and the hypothesis as ``text2``, tokenised by the foundation's tokenizer with no
  truncation (T5's relative positions take any length);
- the score is the softmax of the head's two logits at the first token, column 1: the probability that the
  hypothesis is consistent with the premise; under 0.5 it is judged hallucinated.

The tokenizer is read from MODEL's folder when it has one, else from the foundation (hub cache or folder).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np
from scipy.special import softmax

from factscope.core.errors import ConfigError
from factscope.hf.loading import load_pretrained, model_file
from factscope.hf.sorted_batches import padded_batches
from factscope.hf.state_dict import load_exactly, read_safetensors
from factscope.hf.token_counts import TokenCounts
from factscope.hf.two_way import two_way_probs

HHEM_PROMPT = (
    "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: {text2}"
)
"""The authors' prompt template (used when the config gives none)."""
WEIGHTS_PREFIX = "t5."
TIED = {"transformer.encoder.embed_tokens.weight": "transformer.shared.weight"}
"""The encoder's embedding shares its tensor with the shared embedding; a checkpoint stores one of them."""


class HHEMScorer:
    """P(consistent) of HHEM-2.1-open as (n, 3) probabilities (the rest Neutral: HHEM does not tell a
    contradiction from a hallucination)."""

    def __init__(self, name_or_path: str, *, batch_size: int = 16, device: str = "cpu") -> None:
        from transformers import AutoConfig, AutoTokenizer, T5ForTokenClassification

        self.name = f"hhem:{name_or_path}"
        self.batch_size = batch_size
        self.device = device
        config = json.loads(
            model_file(name_or_path, "config.json", "HHEM config").read_text(encoding="utf-8")
        )
        foundation = config.get("foundation")
        if not foundation:
            raise ConfigError(
                f"'{name_or_path}' is not HHEM-2.1-open: its config.json names no 'foundation' model"
            )
        self.prompt: str = config.get("prompt") or HHEM_PROMPT
        t5_config = load_pretrained(AutoConfig, foundation, "HHEM foundation config", num_labels=2)
        self.model = cast(Any, T5ForTokenClassification(t5_config))
        weights = {
            key.removeprefix(WEIGHTS_PREFIX): value
            for key, value in read_safetensors(
                model_file(name_or_path, "model.safetensors", "HHEM weights")
            ).items()
        }
        load_exactly(self.model, weights, f"HHEM '{name_or_path}'", tied=TIED)
        self.model.to(device).eval()
        self.tokenizer = load_pretrained(
            AutoTokenizer, _tokenizer_source(name_or_path, foundation), "HHEM tokenizer"
        )
        self._token_counts = TokenCounts(self.tokenizer)

    def model_input(self, premise: str, hypothesis: str) -> str:
        """The text the model is given for one pair: the prompt template filled in."""
        return self.prompt.format(text1=premise, text2=hypothesis)

    def count_tokens(self, text: str) -> int:
        """Number of tokens of ``text`` without special tokens."""
        return self._token_counts(text)

    def support(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """P(consistent) for each (premise, hypothesis) pair, in batches of similar length."""
        import torch

        if len(premises) != len(hypotheses):
            raise ValueError("premises and hypotheses differ in length")
        texts = list(dict.fromkeys(self.model_input(p, h) for p, h in zip(premises, hypotheses)))
        encoded = self.tokenizer(texts)
        found: dict[str, float] = {}
        for batch, inputs in padded_batches(self.tokenizer, encoded, self.batch_size, self.device):
            with torch.inference_mode():
                logits = self.model(**inputs).logits[:, 0, :].float().cpu().numpy()
            found.update(zip((texts[i] for i in batch), softmax(logits.astype(np.float64), axis=1)[:, 1]))
        return np.array(
            [found[self.model_input(p, h)] for p, h in zip(premises, hypotheses)], dtype=np.float64
        )

    def score(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Probabilities (n, 3) in LABELS order: P(consistent), the rest Neutral, no Contradiction."""
        return two_way_probs(self.support(premises, hypotheses))


def _tokenizer_source(name_or_path: str, foundation: str) -> str:
    """MODEL's folder when it holds a tokenizer, else the foundation model."""
    local = Path(name_or_path).expanduser()
    return str(local) if (local / "tokenizer_config.json").is_file() else foundation
