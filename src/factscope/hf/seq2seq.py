"""The first decoding step of an encoder-decoder model as a forward pass of length-sorted batches."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from factscope.hf.sorted_batches import BatchLogits


def first_token_forward(model: Any, token_ids: Sequence[int]) -> BatchLogits:
    """A forward pass (for :func:`~factscope.hf.sorted_batches.sorted_logits`) whose logits (batch,
    len(token_ids)) are those of the tokens ``token_ids`` at ``model``'s first decoding step, the decoder given
    only its start token."""
    import torch

    start_id = model.config.decoder_start_token_id
    columns = torch.tensor(list(token_ids))

    def forward(inputs: Any) -> Any:
        input_ids = inputs["input_ids"]
        decoder_input_ids = torch.full((len(input_ids), 1), start_id, dtype=torch.long, device=input_ids.device)
        with torch.inference_mode():
            logits = model(**inputs, decoder_input_ids=decoder_input_ids).logits[:, 0, :].float().cpu()
        return logits[:, columns].numpy()

    return forward
