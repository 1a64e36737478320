"""How a ratio with an empty denominator counts, one policy for every metric that has such ratios."""

from typing import Literal

EmptyPolicy = Literal["skip", "zero"]
"""What a ratio with an empty denominator becomes: undefined and left out of averages ("skip"), or 0.0 ("zero")."""
