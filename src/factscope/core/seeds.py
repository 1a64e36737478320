"""The range of a seed."""

SEED_MAX = 2**32 - 1
"""The largest seed: seeds are used by Python's, numpy's and torch's generators, and numpy takes 0 to 2**32 - 1."""
