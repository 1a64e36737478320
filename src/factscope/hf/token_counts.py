"""The token counts of texts under a tokenizer, memoised: segmenting a reference counts its pieces again and again."""

from __future__ import annotations

from typing import Any

from factscope.core.bounded_cache import BoundedCache

CACHED_TOKEN_COUNTS = 8_192
"""Texts whose token counts a scorer keeps."""


class TokenCounts:
    """How many tokens ``tokenizer`` makes of a text, special tokens left out; the counts of the ``size`` most
    recent texts are kept."""

    def __init__(self, tokenizer: Any, size: int = CACHED_TOKEN_COUNTS) -> None:
        self.tokenizer = tokenizer
        self._counts: BoundedCache[str, int] = BoundedCache(size)

    def __call__(self, text: str) -> int:
        """The number of tokens of ``text`` without special tokens."""
        count = self._counts.get(text)
        if count is None:
            count = len(self.tokenizer(text, add_special_tokens=False)["input_ids"])
            self._counts.put(text, count)
        return count
