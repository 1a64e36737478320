"""AlignScore's network: RoBERTa with its pooler and three heads, under the names of the released checkpoint."""

from __future__ import annotations

from typing import Any

import torch
from transformers import RobertaModel


class AlignScoreModel(torch.nn.Module):
    """``base_model`` (RoBERTa with pooler), ``bin_layer`` (2), ``tri_layer`` (3) and ``reg_layer`` (1) on the
    pooled output; ``forward`` gives the 3-way head's logits, the ones AlignScore's default mode reads."""

    def __init__(self, config: Any) -> None:
        super().__init__()
        self.base_model = RobertaModel(config, add_pooling_layer=True)
        self.bin_layer = torch.nn.Linear(config.hidden_size, 2)
        self.tri_layer = torch.nn.Linear(config.hidden_size, 3)
        self.reg_layer = torch.nn.Linear(config.hidden_size, 1)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Logits (batch, 3) of aligned, neutral and contradiction."""
        pooled = self.base_model(input_ids=input_ids, attention_mask=attention_mask).pooler_output
        return self.tri_layer(pooled)
