"""Labelled NLI pairs from a few templates (balanced classes), written as a JSONL file for training tests."""

from __future__ import annotations

import json
from pathlib import Path

TEMPLATES = [
    ("the cat sat on the mat .", "the cat sat .", "entailment"),
    ("marie curie won the nobel prize in physics .", "curie won a prize .", "entailment"),
    ("paris is the capital of france .", "paris is a city in france .", "entailment"),
    ("the cat sat on the mat .", "the dog was born in berlin .", "neutral"),
    ("marie curie won the nobel prize in physics .", "curie was born in paris .", "neutral"),
    ("paris is the capital of france .", "paris is tall .", "neutral"),
    ("the cat sat on the mat .", "the cat is not on the mat .", "contradiction"),
    ("marie curie won the nobel prize in physics .", "curie won no prize .", "contradiction"),
    ("paris is the capital of france .", "paris is not in france .", "contradiction"),
]


def write_pairs(path: Path, n: int = 60, extra_lines: tuple[str, ...] = ()) -> Path:
    """``n`` pairs cycling over TEMPLATES (balanced classes), then any extra raw lines."""
    lines = []
    for i in range(n):
        premise, hypothesis, label = TEMPLATES[i % len(TEMPLATES)]
        lines.append(json.dumps({"id": str(i), "premise": premise, "hypothesis": hypothesis, "label": label}))
    path.write_text("\n".join([*lines, *extra_lines]) + "\n", encoding="utf-8")
    return path
