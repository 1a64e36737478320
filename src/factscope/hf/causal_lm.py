"""Token log-probabilities of a continuation given a context, from a causal language model.

Two sources share the ``TokenLogProbs`` interface: a local Hugging Face causal LM (any ``AutoModelForCausalLM``,
GPT-2 style included), or an OpenAI-compatible completions endpoint that echoes prompt log-probabilities.
CONNER's coherence (eq. 3), informativeness (eq. 5) and helpfulness (eq. 6) are computed from these.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from factscope.core.bounded_cache import BoundedCache
from factscope.core.errors import BackendError, ConfigError
from factscope.hf.loading import load_pretrained

if TYPE_CHECKING:
    from factscope.llm.client import LLMClient

CACHED_SCORES = 10_000
"""Scored (context, continuation) pairs a causal LM keeps for repeated pairs."""


class TokenLogProbs(Protocol):
    """Scores continuations: ln P(c_t | context, c_<t) for every token c_t of each continuation."""

    name: str

    def logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[np.ndarray]:
        """One array of token log-probabilities per (context, continuation) pair, in order."""
        ...


class HFCausalLM:
    """A local Hugging Face causal LM, batched and right-padded with attention masks.

    The context and the continuation are tokenized separately and concatenated, so the continuation's
    tokens are exactly its own tokenization. With an empty context the BOS token (GPT-2: <|endoftext|>) is
    the context, so the first token is scored too; a model with neither BOS nor EOS leaves the first token
    unscored. Inputs longer than the model's window lose context tokens from the left.

    ``start_token`` names the token an empty context stands for instead of BOS (when the vocabulary has it as one
    token); ``window`` bounds the tokens scored at once below the model's own window; ``name`` replaces the
    ``hf:NAME`` shown in summaries.
    """

    def __init__(
        self,
        name_or_path: str,
        batch_size: int = 8,
        device: str | None = None,
        *,
        start_token: str | None = None,
        window: int | None = None,
        name: str | None = None,
    ) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        try:
            self.tokenizer = load_pretrained(AutoTokenizer, name_or_path, "causal LM tokenizer")
            self.model = load_pretrained(AutoModelForCausalLM, name_or_path, "causal LM")
        except ConfigError as error:
            raise ConfigError(
                f"{error}; pass `lm` with a local causal-LM folder or a cached hub name, "
                "or `lm='endpoint'` (with `llm`) for an OpenAI-compatible completions endpoint"
            ) from None
        self.name = name or f"hf:{name_or_path}"
        self.batch_size = batch_size
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.model.to(self.device).eval()
        config = self.model.config
        own_window = int(
            getattr(config, "n_positions", 0) or getattr(config, "max_position_embeddings", 1024)
        )
        self.max_length = min(own_window, window) if window else own_window
        bos = self.tokenizer.bos_token_id
        self.start_id = bos if bos is not None else self.tokenizer.eos_token_id
        if start_token is not None:
            ids = self.tokenizer(start_token, add_special_tokens=False)["input_ids"]
            self.start_id = ids[0] if len(ids) == 1 else self.start_id
        pad = self.tokenizer.pad_token_id
        self.pad_id = pad if pad is not None else (self.tokenizer.eos_token_id or 0)
        self._cache: BoundedCache[tuple[str, str], np.ndarray] = BoundedCache(CACHED_SCORES)

    def logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[np.ndarray]:
        """Token log-probabilities of each continuation; duplicates are scored once (and the ``CACHED_SCORES``
        most recent are kept across calls)."""
        found = self._cache.held(pairs)
        todo = [pair for pair in dict.fromkeys(pairs) if pair not in found]
        encoded = [self._encode(context, continuation) for context, continuation in todo]
        order = sorted(range(len(todo)), key=lambda i: len(encoded[i][0]))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            for index, values in zip(batch, self._score_batch([encoded[i] for i in batch])):
                found[todo[index]] = values
                self._cache.put(todo[index], values)
        return [found[pair] for pair in pairs]

    def _encode(self, context: str, continuation: str) -> tuple[list[int], int]:
        """Token ids of context + continuation, and the index of the first continuation token."""
        context_ids = self.tokenizer(context, add_special_tokens=False)["input_ids"] if context else []
        continuation_ids = self.tokenizer(continuation, add_special_tokens=False)["input_ids"]
        return scoring_window(list(context_ids), list(continuation_ids), self.start_id, self.max_length)

    def _score_batch(self, batch: list[tuple[list[int], int]]) -> list[np.ndarray]:
        import torch

        width = max(len(ids) for ids, _ in batch)
        input_ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for row, (ids, _) in enumerate(batch):
            input_ids[row, : len(ids)] = torch.tensor(ids, dtype=torch.long)
            mask[row, : len(ids)] = 1
        with torch.inference_mode():
            logits = self.model(
                input_ids=input_ids.to(self.device), attention_mask=mask.to(self.device)
            ).logits
            logprobs = torch.log_softmax(logits.float(), dim=-1).cpu()
        results = []
        for row, (ids, first) in enumerate(batch):
            targets = torch.tensor(ids[first:], dtype=torch.long)
            positions = torch.arange(first - 1, len(ids) - 1)
            results.append(logprobs[row, positions, targets].numpy().astype(float))
        return results


def scoring_window(
    context_ids: list[int], continuation_ids: list[int], start_id: int | None, max_length: int
) -> tuple[list[int], int]:
    """The token ids to score for a (context, continuation) pair and the index of the first continuation token: an
    empty context becomes ``start_id`` (so the first continuation token has a context), and a pair over
    ``max_length`` tokens loses context from the left (never all of it), then continuation from the right."""
    if not context_ids and start_id is not None:
        context_ids = [start_id]
    ids = context_ids + continuation_ids
    first = len(context_ids)
    overflow = len(ids) - max_length
    if overflow > 0:
        cut = min(overflow, max(0, len(context_ids) - 1))
        ids, first = ids[cut:], first - cut
        ids = ids[:max_length]
    return ids, max(first, 1)


class EndpointCausalLM:
    """Prompt log-probabilities from an OpenAI-compatible completions endpoint (``echo`` + ``logprobs``).

    The context and continuation are sent as one prompt; the reply's tokens (which concatenate to the prompt)
    are placed by their character offsets, and those starting at or after the end of the context belong to the continuation. The
    endpoint gives no log-probability for a prompt's very first token, so with an empty context the first
    continuation token is unscored. One token is generated (servers differ on ``max_tokens=0``: llama.cpp reads it
    as "no limit"); tokens past the prompt's end are left out.
    """

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self.name = f"endpoint:{client.config.model}"
        self._cache: BoundedCache[tuple[str, str], np.ndarray] = BoundedCache(CACHED_SCORES)

    def logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[np.ndarray]:
        """Token log-probabilities of each continuation; duplicates are requested once (and the
        ``CACHED_SCORES`` most recent are kept across calls)."""
        found = self._cache.held(pairs)
        for pair in dict.fromkeys(pairs):
            if pair not in found:
                found[pair] = self._score(*pair)
                self._cache.put(pair, found[pair])
        return [found[pair] for pair in pairs]

    def _score(self, context: str, continuation: str) -> np.ndarray:
        prompt = context + continuation
        reply = self.client.complete(prompt, max_tokens=1, echo=True, logprobs=0)
        if getattr(reply, "failed", False):
            raise BackendError(f"the completions endpoint failed to score a prompt: {reply.error}")
        tokens = list(reply.tokens or [])
        values = list(reply.token_logprobs or [])
        offsets = _offsets(tokens)
        if len(tokens) != len(values):
            raise BackendError(
                "the completions endpoint returned tokens and log-probabilities of unequal length"
            )
        boundary = len(context)
        scored = [
            value
            for offset, value in zip(offsets, values)
            if boundary <= offset < len(prompt) and value is not None
        ]
        if not scored:
            raise BackendError(
                "the completions endpoint returned no prompt log-probabilities; it must support "
                "echo=true with logprobs (e.g. vLLM or llama.cpp completions)"
            )
        return np.asarray(scored, dtype=float)


def _offsets(tokens: Sequence[str]) -> list[int]:
    """Character offsets of tokens that concatenate to the prompt."""
    offsets, position = [], 0
    for token in tokens:
        offsets.append(position)
        position += len(token)
    return offsets
