"""RefChecker's human-annotation layout in small: per context setting, each model's annotated answers to the
setting's benchmark, and the benchmark's questions with their passages (what `factscope agree` reads)."""

from __future__ import annotations

import json
from pathlib import Path

BENCHMARKS = {"zero_context": "nq", "noisy_context": "msmarco", "accurate_context": "dolly"}
"""RefChecker's context settings and the benchmark each draws its questions from."""

MODELS = ("gpt4", "claude2")
"""The models the small layout holds annotations of."""

PASSAGE = "Paris is the capital and most populous city of France. Berlin is the capital of Germany."
QUESTIONS = {"1": "What is the capital of France?", "2": "What is the capital of Germany?"}
_CLAIMS = {
    "1": ("Paris is the capital of France.", [(["Paris", "capital of", "France"], "Entailment")]),
    "2": (
        "Berlin is the capital of Germany. It is in France.",
        [(["Berlin", "capital of", "Germany"], "Entailment"), (["Berlin", "in", "France"], "Contradiction")],
    ),
}


def write_annotations(path: Path, model: str) -> Path:
    """``model``'s annotated answers to QUESTIONS, as RefChecker's ``<model>_response_kg`` file."""
    answers = [
        {
            "id": key,
            "response": response,
            f"{model}_response_kg": [{"triplet": triplet, "human_label": label} for triplet, label in claims],
        }
        for key, (response, claims) in _CLAIMS.items()
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(answers), encoding="utf-8")
    return path


def write_benchmark(path: Path) -> Path:
    """A benchmark file: QUESTIONS with the passage as their context."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps([{"id": key, "question": text, "context": PASSAGE} for key, text in QUESTIONS.items()]),
        encoding="utf-8",
    )
    return path


def write_layout(root: Path) -> Path:
    """``root/SETTING/BENCHMARK_MODEL_answers.json`` for every setting and model."""
    for setting, benchmark in BENCHMARKS.items():
        for model in MODELS:
            write_annotations(root / setting / f"{benchmark}_{model}_answers.json", model)
    return root


def write_references(path: Path) -> Path:
    """QUESTIONS as records to check against the passage (JSONL), for annotations named by model alone."""
    path.write_text(
        "".join(
            json.dumps({"id": key, "question": text, "response": _CLAIMS[key][0], "reference": PASSAGE})
            + "\n"
            for key, text in QUESTIONS.items()
        ),
        encoding="utf-8",
    )
    return path
