"""The defaults of the checkers' settings that several front-ends name: declared here once."""

from __future__ import annotations

from typing import Final

DEFAULT_CHECKER: Final = "embedded"
"""The checker of a run that names none: the embedded checker, offline and shipped with factscope."""

DEFAULT_MAX_TOKENS: Final = 200
"""Tokens per reference segment of the model checkers, as RefChecker segments long references."""

DEFAULT_RELEVANCE: Final = "lexical"
"""The model checkers' relevance rule: a segment counts only when it shares enough of the claim's content words."""

DEFAULT_MISMATCH: Final = "all"
"""The value mismatch checks of the model checkers: numbers, dates, quantities and named entities."""

DEFAULT_MODE: Final = "exact"
"""How model checks read their text when a run names no mode: every segment or window that can decide is scored
(the checkers' and the presence models' `mode`; the presence models' 'fast' scores only the most relevant ones,
the checkers' 'fast' is deprecated and scores as 'exact')."""

DEFAULT_SIMILARITY_THRESHOLD: Final = 0.7
"""The cosine from which the similarity checker calls a claim entailed by its closest reference sentence."""

DEFAULT_LLM_PASSAGES: Final = "each"
"""How the llm checker reads a record's passages: each on its own, the labels merged."""
