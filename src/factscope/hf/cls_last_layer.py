"""Run a BERT classifier's last layer for the [CLS] position only: the same logits, less work.

A BERT sequence classifier reads its class logits from the [CLS] vector of the last layer (through the pooler).
The other positions of that layer only matter as keys and values of [CLS]'s attention, so the query, the
attention output and the feed-forward block (10 of the layer's 12 d^2 multiply-adds a token) can be computed for
[CLS] alone. With six layers that removes about a seventh of the work of a training step or a forward pass
(`benchmarks/bench_embedded.py`, README "Measured figures"); the logits agree with the full model to float
rounding (`tests/hf/test_cls_last_layer.py`).
"""

from __future__ import annotations

import types
from typing import Any


def restrict_last_layer_to_cls(model: Any) -> bool:
    """Patch ``model``'s last layer in place to compute [CLS] only; True if applied.

    Applied to ``BertForSequenceClassification`` with the sdpa or eager attention only. Afterwards the model's
    last hidden state holds the [CLS] row alone, so do not patch a model whose hidden states or attention maps
    are read. The weights and ``state_dict`` are unchanged, so saving and loading work as before; the patch
    lives on the loaded object.
    """
    from transformers import BertForSequenceClassification

    if not isinstance(model, BertForSequenceClassification):
        return False
    if model.config._attn_implementation not in ("sdpa", "eager"):
        return False
    last = model.bert.encoder.layer[-1]
    last.forward = types.MethodType(_cls_only_forward, last)
    return True


def _cls_only_forward(
    layer: Any, hidden_states: Any, attention_mask: Any = None, *args: Any, **kwargs: Any
) -> Any:
    """A BertLayer forward whose output is the [CLS] row only, shape (batch, 1, hidden)."""
    import torch.nn.functional as F

    attention = layer.attention.self
    batch, length, _ = hidden_states.shape
    cls = hidden_states[:, :1]

    def heads(states: Any, positions: int) -> Any:
        return states.view(
            batch, positions, attention.num_attention_heads, attention.attention_head_size
        ).transpose(1, 2)

    query = heads(attention.query(cls), 1)
    key = heads(attention.key(hidden_states), length)
    value = heads(attention.value(hidden_states), length)
    if attention_mask is not None and attention_mask.shape[-2] > 1:
        attention_mask = attention_mask[..., :1, :]
    context = F.scaled_dot_product_attention(
        query,
        key,
        value,
        attn_mask=attention_mask,
        dropout_p=attention.dropout.p if layer.training else 0.0,
        scale=attention.scaling,
    )
    attended = layer.attention.output(context.transpose(1, 2).reshape(batch, 1, -1), cls)
    return layer.output(layer.intermediate(attended), attended)
