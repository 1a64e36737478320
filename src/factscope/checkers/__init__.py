"""Checkers: decide Entailment / Neutral / Contradiction for claims against references."""
