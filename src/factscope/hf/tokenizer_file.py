"""A model folder's ``tokenizer.json`` read by the tokenizers library alone, without transformers or torch.

It gives what the length-sorted batches and the token counts call a transformers fast tokenizer for, with the same
ids: the Rust tokenizer underneath is the same, truncated the same way (longest first, from the right) and padded on
the right with the pad token and type 0. A checker run in ONNX Runtime loads it in a fraction of a second, where
importing transformers (and with it torch) takes seconds.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

TOKENIZER_FILE = "tokenizer.json"
TOKENIZER_CONFIG = "tokenizer_config.json"


def tokenizer_file(folder: Path) -> TokenizerFile | None:
    """The tokenizer of ``folder`` as a :class:`TokenizerFile`, or None where it needs transformers: no
    ``tokenizer.json``, or padding or truncation on the left."""
    config_path = folder / TOKENIZER_CONFIG
    config = json.loads(config_path.read_text(encoding="utf-8")) if config_path.is_file() else {}
    if not (folder / TOKENIZER_FILE).is_file():
        return None
    if config.get("padding_side", "right") != "right" or config.get("truncation_side", "right") != "right":
        return None
    pad = config.get("pad_token", "[PAD]")
    return TokenizerFile(folder, pad["content"] if isinstance(pad, dict) else str(pad))


class TokenizerFile:
    """The tokenizer of ``folder/tokenizer.json``: call it like a transformers tokenizer, pad with :meth:`pad`."""

    def __init__(self, folder: Path, pad_token: str = "[PAD]") -> None:
        from tokenizers import Tokenizer

        self._json = (folder / TOKENIZER_FILE).read_text(encoding="utf-8")
        self._plain = Tokenizer.from_str(self._json)
        self._plain.no_truncation()
        self._plain.no_padding()
        self._truncating: dict[int, Any] = {}
        self._lock = threading.Lock()
        padding = self._plain.token_to_id(pad_token)
        self.pad_token_id = 0 if padding is None else padding

    def _truncated(self, max_length: int) -> Any:
        """A tokenizer that truncates to ``max_length``, one for each length, never changed once made (a Rust
        tokenizer whose settings change while another thread encodes with it raises)."""
        with self._lock:
            found = self._truncating.get(max_length)
            if found is None:
                from tokenizers import Tokenizer

                found = Tokenizer.from_str(self._json)
                found.no_padding()
                found.enable_truncation(max_length, stride=0, strategy="longest_first", direction="right")
                self._truncating[max_length] = found
            return found

    def __call__(
        self,
        first: str | Sequence[str],
        second: Sequence[str] | None = None,
        *,
        truncation: bool = False,
        max_length: int | None = None,
        add_special_tokens: bool = True,
    ) -> dict[str, Any]:
        """``input_ids``, ``token_type_ids`` and ``attention_mask`` of one text (lists) or of many texts or text
        pairs (lists of lists), unpadded; with ``truncation`` each item has at most ``max_length`` tokens."""
        tokenizer = self._truncated(max_length) if truncation and max_length is not None else self._plain
        if isinstance(first, str):
            one = tokenizer.encode(first, add_special_tokens=add_special_tokens)
            return {
                "input_ids": one.ids,
                "token_type_ids": one.type_ids,
                "attention_mask": one.attention_mask,
            }
        inputs: list[Any] = list(zip(first, second)) if second is not None else list(first)
        found = tokenizer.encode_batch(inputs, add_special_tokens=add_special_tokens)
        return {
            "input_ids": [item.ids for item in found],
            "token_type_ids": [item.type_ids for item in found],
            "attention_mask": [item.attention_mask for item in found],
        }

    def pad(self, features: dict[str, list[list[int]]], return_tensors: str = "np") -> dict[str, np.ndarray]:
        """``features`` padded on the right to their longest item, as int64 NumPy arrays (``return_tensors``
        must be "np")."""
        if return_tensors != "np":
            raise ValueError(f"a TokenizerFile pads to NumPy arrays only, not {return_tensors!r}")
        longest = max(len(ids) for ids in features["input_ids"])
        padded = {}
        for name, rows in features.items():
            value = self.pad_token_id if name == "input_ids" else 0
            array = np.full((len(rows), longest), value, dtype=np.int64)
            for number, row in enumerate(rows):
                array[number, : len(row)] = row
            padded[name] = array
        return padded
