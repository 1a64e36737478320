"""AlignScore (Zha et al. 2023) as a PairScorer, from its released Lightning checkpoint, in its default ``nli_sp``
mode.

Facts of the authors' published code that this follows:

- the checkpoint (``AlignScore-base.ckpt``, ``AlignScore-large.ckpt``) is a Lightning file whose ``state_dict``
  holds a RoBERTa model with its pooler under ``base_model.``, a masked-LM head under ``mlm_head.`` (used in
  training only) and three heads on the dropout of the pooled output: ``bin_layer`` (2-way), ``tri_layer`` (3-way:
  aligned, neutral, contradiction, MNLI's order) and ``reg_layer`` (1); ``hyper_parameters.model`` names the
  backbone (``roberta-base`` / ``roberta-large``);
- the context is split into sentences, and the sentences are grouped into chunks of about 350 words:
  ``n = words // 350 + 1`` chunks wanted, so ``max(sentences // n, 1)`` consecutive sentences per chunk, joined
  with a space; the claim is split into sentences;
- every (chunk, claim sentence) pair is one input, the chunk first, truncated from the chunk only to the
  tokenizer's maximum length; the pair's score is the softmax of ``tri_layer``'s logits, column 0 (aligned);
- a claim's AlignScore is the mean over its sentences of their highest score over the chunks.

The (n, 3) probabilities given to factscope are, for each claim sentence, the 3-way probabilities of its best
chunk, averaged over the sentences: P(Entailment) is the AlignScore exactly, and Neutral and Contradiction keep
the 3-way head's split of the rest. factscope's sentence splitter stands in for NLTK's. The backbone's config and
tokenizer are read from the checkpoint's folder when it holds a config.json, else from the backbone named in the
checkpoint (hub cache or folder).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import softmax

from factscope.core.errors import ConfigError
from factscope.core.text import split_sentences
from factscope.hf.loading import load_pretrained
from factscope.hf.sorted_batches import padded_batches
from factscope.hf.state_dict import load_exactly
from factscope.hf.token_counts import TokenCounts

CHUNK_WORDS = 350
"""The authors' chunk size, in whitespace words of the context."""
UNUSED_PREFIXES = ("mlm_head.", "base_model.embeddings.position_ids")
"""Checkpoint keys inference does not use: the masked-LM head, and the position-id buffer older transformers
saved."""


def context_chunks(context: str, chunk_words: int = CHUNK_WORDS) -> list[str]:
    """The authors' chunks of a context: its sentences in ``words // chunk_words + 1`` groups of
    ``max(sentences // groups, 1)`` consecutive sentences, each joined with a space."""
    sentences = split_sentences(context) or [""]
    wanted = len(context.split()) // chunk_words + 1
    per_chunk = max(len(sentences) // wanted, 1)
    return [" ".join(sentences[i : i + per_chunk]) for i in range(0, len(sentences), per_chunk)]


def claim_sentences(claim: str) -> list[str]:
    """The sentences of a claim that are scored one by one (the claim itself when it has none)."""
    return split_sentences(claim) or [claim]


def aggregate(tri: np.ndarray) -> np.ndarray:
    """(3,) probabilities of one claim from (chunks, sentences, 3) 3-way probabilities: per sentence the
    probabilities of the chunk with the highest P(aligned), averaged over the sentences."""
    best = tri[np.argmax(tri[:, :, 0], axis=0), np.arange(tri.shape[1])]
    return np.asarray(best.mean(axis=0), dtype=np.float64)


class AlignScoreScorer:
    """AlignScore's ``nli_sp`` score of (context, claim) pairs as (n, 3) probabilities (see the module)."""

    def __init__(self, checkpoint: str, *, batch_size: int = 16, device: str = "cpu") -> None:
        from transformers import AutoConfig, AutoTokenizer

        path = Path(checkpoint).expanduser()
        self.name = f"alignscore:{checkpoint}"
        self.batch_size = batch_size
        self.device = device
        state, backbone = _read_checkpoint(path)
        source = str(path.parent) if (path.parent / "config.json").is_file() else backbone
        config = load_pretrained(AutoConfig, source, "AlignScore backbone config")
        from factscope.hf.alignscore_model import AlignScoreModel

        self.model = AlignScoreModel(config)
        weights = {key: value for key, value in state.items() if not key.startswith(UNUSED_PREFIXES)}
        load_exactly(self.model, weights, f"AlignScore '{checkpoint}'")
        self.model.to(device).eval()
        self.tokenizer = load_pretrained(AutoTokenizer, source, "AlignScore tokenizer")
        self.max_length = min(512, self.tokenizer.model_max_length or 512)
        self._token_counts = TokenCounts(self.tokenizer)

    def model_inputs(self, premise: str, hypothesis: str) -> list[tuple[str, str]]:
        """The (chunk, claim sentence) pairs the model is given for one (context, claim), chunk by chunk."""
        return [
            (chunk, sentence) for chunk in context_chunks(premise) for sentence in claim_sentences(hypothesis)
        ]

    def count_tokens(self, text: str) -> int:
        """Number of tokens of ``text`` without special tokens."""
        return self._token_counts(text)

    def pair_probs(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], np.ndarray]:
        """The 3-way head's probabilities of each distinct (chunk, sentence) pair, in batches of similar length."""
        import torch

        unique = list(dict.fromkeys(pairs))
        found: dict[tuple[str, str], np.ndarray] = {}
        if not unique:
            return found
        encoded = self.tokenizer(
            [chunk for chunk, _ in unique],
            [sentence for _, sentence in unique],
            truncation="only_first",
            max_length=self.max_length,
        )
        for batch, inputs in padded_batches(self.tokenizer, encoded, self.batch_size, self.device):
            with torch.inference_mode():
                logits = self.model(inputs["input_ids"], inputs["attention_mask"]).float().cpu().numpy()
            found.update(zip((unique[i] for i in batch), softmax(logits.astype(np.float64), axis=1)))
        return found

    def score(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Probabilities (n, 3) in LABELS order; column 0 is each pair's AlignScore."""
        if len(premises) != len(hypotheses):
            raise ValueError("premises and hypotheses differ in length")
        grids = [
            (context_chunks(premise), claim_sentences(hypothesis))
            for premise, hypothesis in zip(premises, hypotheses)
        ]
        probs = self.pair_probs([(c, s) for chunks, sentences in grids for c in chunks for s in sentences])
        rows = [
            aggregate(np.array([[probs[(c, s)] for s in sentences] for c in chunks]))
            for chunks, sentences in grids
        ]
        return np.array(rows, dtype=np.float64).reshape(len(rows), 3)


def _read_checkpoint(path: Path) -> tuple[dict[str, Any], str]:
    """The state dict and the backbone name of an AlignScore checkpoint, read without running pickled code."""
    import pickle

    import torch

    if not path.is_file():
        raise ConfigError(
            f"AlignScore checkpoint '{path}' does not exist; download AlignScore-base.ckpt or "
            "AlignScore-large.ckpt from the authors' release first"
        )
    try:
        checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError) as error:
        raise ConfigError(
            f"cannot read '{path}' as an AlignScore checkpoint with weights only: {error}"
        ) from None
    if not isinstance(checkpoint, dict) or "state_dict" not in checkpoint:
        raise ConfigError(f"'{path}' is not a Lightning checkpoint: it has no state_dict")
    state = checkpoint["state_dict"]
    hidden = state.get("tri_layer.weight")
    if hidden is None:
        raise ConfigError(f"'{path}' is not an AlignScore checkpoint: it has no tri_layer")
    default = "roberta-large" if hidden.shape[1] == 1024 else "roberta-base"
    backbone = (checkpoint.get("hyper_parameters") or {}).get("model") or default
    return state, str(backbone)
