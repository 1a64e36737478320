"""Truly Ground: atomic facts, presence models, grounding precision / recall / F1, distractors and generation."""
