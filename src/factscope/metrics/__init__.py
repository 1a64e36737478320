"""Pure metric formulas (no models): hallucination rates, grounding, attribution, CONNER, agreement, G-Eval."""
