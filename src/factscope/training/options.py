"""The options of a training run: everything `factscope train-checker` accepts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from factscope.hf.embedded import PACKAGED_ENCODER


@dataclass
class TrainOptions:
    """Everything `factscope train-checker` accepts; the defaults are the one-command recipe (README)."""

    data: list[Path]
    out: Path
    method: str = "finetune"
    encoder: str = PACKAGED_ENCODER
    layers: str = "all"
    features: str = "both"
    classifier: str = "logreg"
    epochs: int = 3
    learning_rate: float = 1e-4
    seed: int = 13
    limit: int | None = None
    cues: str = "auto"
    class_biases: str = "auto"
    threads: int = 2
    long_context: float = 0.5
    context_words: int = 150
    context_epochs: int = 1
    precision: str = "auto"
    unrelated_context: float = 0.25
    members: int = 1
    weights: str = "fp16"
    attention_dropout: float = 0.0
    train_word_embeddings: bool = False
    focus_words: int = 180
    device: str = "cpu"
    max_per_set: int | None = None
    resume: bool = False
    teacher: Path | None = None
    teacher_weight: float = 0.5
    window_sentences: int = 2
    min_window_sentences: int | None = None
    lora_rank: int = 0
    lora_alpha: int | None = None
