"""The options of a training run: everything `factscope train-checker` accepts, each declared once.

Each field carries its help text and range in its metadata (``help``, and ``min`` / ``max``, ``min_open`` for a
bound the value must exceed, ``check`` for a rule a range cannot say); `factscope train-checker` builds its options
from these fields, so a default or help text is written here only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from factscope.checkers.repc import RepCClassifier, RepCFeatures, check_layer_spec
from factscope.core.options.metadata import about
from factscope.core.options.validation import ValidatedOptions
from factscope.core.seeds import SEED_MAX
from factscope.hf.device import Device
from factscope.hf.embedded import PACKAGED_ENCODER

TrainingMethod = Literal["finetune", "repc"]
"""How a checker is trained: fine-tuning a cross-encoder, or RepC (a head on a frozen encoder)."""
Switch = Literal["auto", "on", "off"]
"""A choice made automatically (on validation figures) or forced on or off."""
Precision = Literal["auto", "fp32", "bf16"]
"""The arithmetic of fine-tuning: fp32, bf16 autocast, or bf16 where the CPU has it natively."""
WeightFormat = Literal["fp16", "int8"]
"""How a fine-tuned checker's weights are stored."""


@dataclass
class TrainOptions(ValidatedOptions):
    """Everything `factscope train-checker` accepts; the defaults are the one-command recipe (README)."""

    data: list[Path] = field(
        metadata=about(
            "JSONL (or JSON list) of {premise, hypothesis, label} and optional dataset / group fields; repeat to train "
            "on a mix (a 2-way set's not_entailment pairs are trained as P(neutral) + P(contradiction))."
        )
    )
    out: Path = field(metadata=about("Checker directory to write (replaced if it exists)."))
    method: TrainingMethod = field(
        default="finetune", metadata=about("finetune (cross-encoder) or repc (frozen encoder + head).")
    )
    encoder: str = field(
        default=PACKAGED_ENCODER,
        metadata=about(
            "HF encoder name or folder; packaged-minilm is the bundled all-MiniLM-L6-v2, packaged-mpnet the "
            "all-mpnet-base-v2 of the mpnet extra (about 8x slower a pair).",
        ),
    )
    layers: str = field(
        default="all",
        metadata=about(
            "repc: 'all' (layer ensemble) or indices like '3' or '2,4,6' (0 the embeddings, negative from the last "
            "layer).",
            check=check_layer_spec,
        ),
    )
    features: RepCFeatures = field(
        default="both", metadata=about("repc: pair (joint encoding), sentence, or both.")
    )
    classifier: RepCClassifier = field(default="logreg", metadata=about("repc: the shallow classifier."))
    epochs: int = field(default=3, metadata=about("finetune: passes over the train part.", min=1))
    learning_rate: float = field(
        default=1e-4, metadata=about("finetune: peak AdamW learning rate, above 0.", min=0.0, min_open=True)
    )
    seed: int = field(
        default=13,
        metadata=about(
            "Seed of training (initialisation, batch order, copies); the split is by group, not seeded.",
            min=0,
            max=SEED_MAX,
        ),
    )
    limit: int | None = field(
        default=None, metadata=about("Use only the first N usable pairs (quick runs).", min=3)
    )
    cues: Switch = field(
        default="auto",
        metadata=about("Contradiction cues: auto keeps them only if held-out macro-F1 improves; on; off."),
    )
    class_biases: Switch = field(
        default="auto",
        metadata=about(
            "Class log-biases tuned on validation for macro-F1: auto keeps them only if they help in 5-fold "
            "cross-validation within validation; on; off.",
        ),
    )
    threads: int = field(default=2, metadata=about("torch CPU threads.", min=1))
    long_context: float = field(
        default=0.5,
        metadata=about(
            "Share of train / validation pairs also used with the premise inside a segment of other premises (both "
            "methods; repc trains on all of them, finetune in the last `context_epochs`; 0 turns this off).",
            min=0.0,
            max=1.0,
        ),
    )
    context_words: int = field(
        default=150, metadata=about("Words of such a segment (150 words ~ 200 tokens).", min=10)
    )
    context_epochs: int = field(
        default=1,
        metadata=about(
            "finetune: the last N epochs add the long-context copies (earlier: plain pairs).", min=0
        ),
    )
    precision: Precision = field(
        default="auto",
        metadata=about(
            "finetune: training arithmetic, fp32 or bf16 (autocast; fp32 weights). auto = bf16 where the CPU has "
            "native bf16 (AVX512-BF16 / AMX), about 1.4-2x faster there.",
        ),
    )
    unrelated_context: float = field(
        default=0.25,
        metadata=about(
            "Share of train / validation pairs also used with the premise replaced by a segment of other premises "
            "only, labelled neutral (finetune: in the last `context_epochs`; 0 turns this off).",
            min=0.0,
            max=1.0,
        ),
    )
    members: int = field(
        default=1,
        metadata=about(
            "finetune: train N cross-encoders with seeds SEED, SEED+1, ... on the same split and average their "
            "probabilities (N times the training and checking time).",
            min=1,
        ),
    )
    weights: WeightFormat = field(
        default="fp16",
        metadata=about("finetune: weights on disk, fp16, or int8 (per-row int8 matrices, half of fp16)."),
    )
    attention_dropout: float = field(
        default=0.0,
        metadata=about(
            "finetune: dropout on attention probabilities (0 by default: faster on long segments; the encoder's own "
            "setting is usually 0.1).",
            min=0.0,
            max=0.9,
        ),
    )
    train_word_embeddings: bool = field(
        default=False,
        metadata=about(
            "finetune: also update the word-embedding matrix (frozen by default: faster, and words unseen in "
            "training keep their pretrained vectors).",
        ),
    )
    focus_words: int = field(
        default=180,
        metadata=about(
            "premises longer than this many words are cut to the run of sentences that covers most of the "
            "hypothesis's content words.",
            min=20,
            max=2000,
        ),
    )
    device: Device = field(default="auto", metadata=about("auto (cuda when a GPU is present), cpu or cuda."))
    max_per_set: int | None = field(
        default=None,
        metadata=about(
            "Train on at most N pairs of each set (a seeded sample of its train part; validation and test parts keep "
            "N/4): keeps large sets from drowning small ones.",
            min=1,
        ),
    )
    resume: bool = field(
        default=False,
        metadata=about(
            "finetune: continue an interrupted run from its last checkpoint (OUT.partial/, written every 100 batches "
            "and after each epoch); refused when the options or data differ from the interrupted run's.",
        ),
    )
    teacher: Path | None = field(
        default=None,
        metadata=about(
            "finetune: distil a checker folder written by train-checker (a larger one, say): every train pair and "
            "copy is scored by it once, and the loss mixes the gold label with its probabilities.",
        ),
    )
    teacher_weight: float = field(
        default=0.5,
        metadata=about(
            "with `teacher`: the share of the loss from the teacher's probabilities, above 0 and at most 1.",
            min=0.0,
            min_open=True,
            max=1.0,
        ),
    )
    window_sentences: int = field(
        default=2,
        metadata=about(
            "the layout the checker reads references in, recorded in its manifest: windows of N sentences (0: "
            "segments of a fixed number of tokens); a check run with its own sentence windows overrides it",
            min=0,
        ),
    )
    min_window_sentences: int | None = field(
        default=None,
        metadata=about(
            "recorded in the manifest with `window_sentences`: the checker also reads every narrower window down to "
            "N sentences (1 with `window_sentences=2`: each sentence alone and with a neighbour)",
            min=1,
        ),
    )
    lora_rank: int = field(
        default=0,
        metadata=about(
            "finetune: train rank-N LoRA adapters and the head instead of every weight, and save only that delta (a "
            "few MB) over the base encoder, whose SHA-256 the manifest records (0: a full fine-tune).",
            min=0,
        ),
    )
    encoder_layers: int | None = field(
        default=None,
        metadata=about(
            "finetune: keep only the encoder's first N layers, a smaller checker that scores a pair in about N / L of "
            "the time (L the encoder's layers; default: all of them).",
            min=1,
        ),
    )
    lora_alpha: int | None = field(
        default=None,
        metadata=about(
            "with `lora_rank`: the adapters' scale numerator alpha (scale alpha/N; default 2N).", min=1
        ),
    )
