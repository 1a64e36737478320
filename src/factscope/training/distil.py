"""Distillation: a teacher checker's class probabilities as soft targets for the checker being trained.

A larger checker (all-mpnet-base-v2 fine-tuned by `train-checker`, say) separates supported from unsupported
claims better than the small default but costs several times as much per pair. `train-checker --teacher DIR`
scores every training pair (copies inside other text included) with that checker once, and the student learns
from a mix of the gold label and the teacher's probabilities
(:func:`~factscope.training.finetune.distillation_loss`). A 2-way pair then also
learns how the teacher splits "not entailment" into neutral and contradiction.

The teacher's probabilities are the model's own, before the class log-biases its manifest ships for decisions.
They are kept in the run's staging folder, so a resumed run does not score the pairs again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from factscope.core.errors import ConfigError
from factscope.training.nli_data import NLIExample

TEACHER_FILE = "teacher_probs.npz"
"""The staging folder's cache of the teacher's probabilities, keyed by a digest of the pairs scored."""


def teacher_classes(teacher: Path) -> tuple[str, ...]:
    """The class names of the checker directory ``teacher``, read from its manifest."""
    manifest = teacher / "manifest.json"
    if not manifest.is_file():
        raise ConfigError(f"`teacher` {teacher}: no manifest.json there; give a folder written by train-checker")
    return tuple(json.loads(manifest.read_text(encoding="utf-8"))["classes"])


def student_columns(teacher: tuple[str, ...], student: tuple[str, ...]) -> np.ndarray:
    """How the teacher's columns map onto the student's classes: an (n_teacher, n_student) 0/1 matrix.

    Same classes map one to one; a 3-way teacher for a 2-way student gives neutral + contradiction to
    not_entailment. Anything else cannot be distilled.
    """
    if set(student) == set(teacher):
        return np.array([[1.0 if t == s else 0.0 for s in student] for t in teacher])
    if set(student) == {"entailment", "not_entailment"} and set(teacher) == {"entailment", "neutral", "contradiction"}:
        return np.array([[1.0 if (t == "entailment") == (s == "entailment") else 0.0 for s in student] for t in teacher])
    raise ConfigError(f"a teacher with classes {list(teacher)} cannot teach classes {list(student)}")


def pairs_digest(examples: Sequence[NLIExample]) -> str:
    """SHA-256 over the (premise, hypothesis) pairs in order: which pairs a cached set of probabilities is for."""
    digest = hashlib.sha256()
    for e in examples:
        digest.update(e.premise.encode("utf-8") + b"\0" + e.hypothesis.encode("utf-8") + b"\n")
    return digest.hexdigest()


def teacher_probabilities(
    teacher: Path,
    examples: Sequence[NLIExample],
    classes: tuple[str, ...],
    cache: Path,
    device: str = "cpu",
    progress: Any = None,
) -> np.ndarray:
    """The teacher's probabilities over the student's ``classes`` for each example, read from ``cache`` when it
    holds them for these pairs, else scored (in chunks, advancing ``progress``) and written there."""
    key = pairs_digest(examples) + ":" + str(teacher.resolve())
    if cache.is_file():
        stored = np.load(cache)
        if str(stored["key"]) == key:
            return stored["probs"]
    from factscope.checkers.embedded import load_embedded_scorer

    manifest = json.loads((teacher / "manifest.json").read_text(encoding="utf-8"))
    if manifest.get("method") != "finetune":
        raise ConfigError(f"`teacher` {teacher}: only a fine-tuned checker (method finetune) can teach")
    columns = student_columns(tuple(manifest["classes"]), classes)
    model = load_embedded_scorer(teacher, device)
    chunks = []
    for start in range(0, len(examples), 512):
        chunk = examples[start : start + 512]
        chunks.append(model.model_probs([e.premise for e in chunk], [e.hypothesis for e in chunk]) @ columns)
        if progress is not None:
            progress.advance(len(chunk))
    probs = np.concatenate(chunks) if chunks else np.zeros((0, len(classes)))
    np.savez(cache, key=np.array(key), probs=probs)
    return probs


def with_teacher(examples: Sequence[NLIExample], probs: np.ndarray) -> list[NLIExample]:
    """The examples carrying the teacher's probabilities (row i for example i)."""
    return [replace(e, teacher=tuple(float(p) for p in row)) for e, row in zip(examples, probs, strict=True)]
