"""An encoder cut to its first layers: a smaller, faster model whose layers are the base's own.

Loading a base with its configuration's ``num_hidden_layers`` lowered keeps the embeddings and the first N layers
of its weights and drops the rest, so a checker trained on the cut base (a LoRA delta or a full fine-tune) is read
back the same way.
"""

from __future__ import annotations

from typing import Any

from factscope.core.errors import ConfigError


def keep_first_layers(config: Any, layers: int, source: str) -> None:
    """Lower ``config.num_hidden_layers`` to ``layers``, in place; a ConfigError when the encoder at ``source`` has
    fewer layers (more would be randomly initialised, not the base's)."""
    available = int(config.num_hidden_layers)
    if not 1 <= layers <= available:
        raise ConfigError(f"`encoder_layers`: the encoder '{source}' has {available} layers; give 1 to {available}")
    config.num_hidden_layers = layers
