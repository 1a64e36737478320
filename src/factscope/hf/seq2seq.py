"""Logits of an encoder-decoder model's first decoded token, over many texts, in batches sorted by token count."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def first_token_logits(
    model: Any,
    tokenizer: Any,
    texts: Sequence[str],
    token_ids: Sequence[int],
    *,
    batch_size: int = 16,
    max_length: int = 2048,
    device: str = "cpu",
) -> np.ndarray:
    """Logits (n, len(token_ids)) of the tokens ``token_ids`` at the first decoding step for each text.

    The decoder is given only the model's decoder start token; texts are deduplicated, truncated to
    ``max_length`` tokens and run in batches of similar length.
    """
    import torch

    unique = list(dict.fromkeys(texts))
    if not unique:
        return np.zeros((0, len(token_ids)))
    encoded = tokenizer(unique, truncation=True, max_length=max_length)
    order = sorted(range(len(unique)), key=lambda i: len(encoded["input_ids"][i]))
    start_id = model.config.decoder_start_token_id
    columns = torch.tensor(list(token_ids))
    rows: dict[str, np.ndarray] = {}
    for offset in range(0, len(order), batch_size):
        batch = order[offset : offset + batch_size]
        inputs = tokenizer.pad(
            {key: [values[i] for i in batch] for key, values in encoded.items()}, return_tensors="pt"
        ).to(device)
        decoder_input_ids = torch.full((len(batch), 1), start_id, dtype=torch.long, device=device)
        with torch.inference_mode():
            logits = model(**inputs, decoder_input_ids=decoder_input_ids).logits[:, 0, :].float().cpu()
        rows.update(zip((unique[i] for i in batch), logits[:, columns].numpy()))
    return np.stack([rows[text] for text in texts]).astype(np.float64)
