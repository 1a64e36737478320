"""`factscope train-checker`: train an offline 3-way (or 2-way) checker directory from labelled NLI pairs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.markup import escape

from factscope.checkers.repc import RepCClassifier, RepCFeatures
from factscope.cli.choices import TrainingMethod
from factscope.cli.option_ranges import SEED_MAX, above_zero, layer_indices, positive_share
from factscope.hf.device import Device

Switch = Literal["auto", "on", "off"]
"""A choice made automatically (on validation figures) or forced on or off."""

HELP = """Train an offline checker from {premise, hypothesis, label} pairs and write it to a directory.

Labels are entailment / neutral / contradiction (or 0 / 1 / 2), or entailment / not_entailment for a 2-way checker; repeat --data to train on a mix (a 2-way set's not_entailment pairs are then trained as P(neutral) + P(contradiction)). Each pair's group (its group field, else its id) goes by a SHA-256 to train (75%), validation (10%: kept epoch when several are candidates, class biases, cue stacker) or a held-out test part (15%: only reported), the same parts as `factscope eval-checker --part`. Use the result with `--checker path:DIR`.

Examples:

  # one member of the default recipe (3 epochs at lr 1e-4, the last also on
  # long-context and unrelated-segment copies, bf16 where the CPU has it);
  # 27 min on 2 AVX2-only cores, held-out macro-F1 0.64-0.66 (five runs)

  factscope train-checker --data mnli_dev_matched.jsonl --out my_checker

  # the shipped checker's recipe: two members (seeds 13, 14), int8 weights;
  # 25.5 min on 2 cores with AVX512-BF16, 60 min on 2 AVX2-only cores;
  # held-out macro-F1 0.654 (shipped) and 0.654 (a rerun)

  factscope train-checker --data mnli_dev_matched.jsonl --members 2 --weights int8 --out my_checker

  # RepC: logistic regression on frozen MiniLM layers 3-6, 2,000 pairs

  factscope train-checker --data pairs.jsonl --method repc --layers 3,4,5,6 --limit 2000 --out repc_dir
"""


def train_checker(
    data: Annotated[
        list[Path],
        typer.Option(
            "--data",
            help="JSONL (or JSON list) of {premise, hypothesis, label} and optional dataset / group fields; repeat "
            "to train on a mix (a 2-way set's not_entailment pairs are trained as P(neutral) + P(contradiction)).",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="Checker directory to write (replaced if it exists).")],
    method: Annotated[
        TrainingMethod, typer.Option(help="finetune (cross-encoder) or repc (frozen encoder + head).")
    ] = "finetune",
    encoder: Annotated[
        str, typer.Option(
            help="HF encoder name or folder; packaged-minilm is the bundled all-MiniLM-L6-v2, packaged-mpnet the "
            "all-mpnet-base-v2 of the mpnet extra (about 8x slower a pair)."
        )
    ] = "packaged-minilm",
    layers: Annotated[
        str,
        typer.Option(
            callback=layer_indices,
            help="repc: 'all' (layer ensemble) or indices like '3' or '2,4,6' (0 the embeddings, negative from the "
            "last layer).",
        ),
    ] = "all",
    features: Annotated[
        RepCFeatures, typer.Option(help="repc: pair (joint encoding), sentence, or both.")
    ] = "both",
    classifier: Annotated[RepCClassifier, typer.Option(help="repc: the shallow classifier.")] = "logreg",
    epochs: Annotated[int, typer.Option(min=1, help="finetune: passes over the train part.")] = 3,
    learning_rate: Annotated[
        float, typer.Option(callback=above_zero, help="finetune: peak AdamW learning rate, above 0.")
    ] = 1e-4,
    seed: Annotated[int, typer.Option(min=0, max=SEED_MAX, help="Seed of training (initialisation, batch order, copies); the split is by group, not seeded.")] = 13,
    limit: Annotated[int | None, typer.Option(min=3, help="Use only the first N usable pairs (quick runs).")] = None,
    cues: Annotated[
        Switch, typer.Option(help="Contradiction cues: auto keeps them only if held-out macro-F1 improves; on; off.")
    ] = "auto",
    class_biases: Annotated[
        Switch,
        typer.Option(
            help="Class log-biases tuned on validation for macro-F1: auto keeps them only if they help in 5-fold "
            "cross-validation within validation; on; off.",
        ),
    ] = "auto",
    threads: Annotated[int, typer.Option(min=1, help="torch CPU threads.")] = 2,
    long_context: Annotated[
        float,
        typer.Option(
            min=0.0, max=1.0,
            help="Share of train / validation pairs also used with the premise inside a segment of other premises "
            "(both methods; repc trains on all of them, finetune in the last --context-epochs; 0 turns this off).",
        ),
    ] = 0.5,
    context_words: Annotated[int, typer.Option(min=10, help="Words of such a segment (150 words ~ 200 tokens).")] = 150,
    context_epochs: Annotated[
        int, typer.Option(min=0, help="finetune: the last N epochs add the long-context copies (earlier: plain pairs).")
    ] = 1,
    precision: Annotated[
        Literal["auto", "fp32", "bf16"],
        typer.Option(
            help="finetune: training arithmetic, fp32 or bf16 (autocast; fp32 weights). auto = bf16 where the CPU "
            "has native bf16 (AVX512-BF16 / AMX), about 1.4-2x faster there.",
        ),
    ] = "auto",
    unrelated_context: Annotated[
        float,
        typer.Option(
            min=0.0, max=1.0,
            help="Share of train / validation pairs also used with the premise replaced by a segment of other "
            "premises only, labelled neutral (finetune: in the last --context-epochs; 0 turns this off).",
        ),
    ] = 0.25,
    members: Annotated[
        int,
        typer.Option(
            min=1,
            help="finetune: train N cross-encoders with seeds SEED, SEED+1, ... on the same split and average "
            "their probabilities (N times the training and checking time).",
        ),
    ] = 1,
    weights: Annotated[
        Literal["fp16", "int8"],
        typer.Option(help="finetune: weights on disk, fp16, or int8 (per-row int8 matrices, half of fp16)."),
    ] = "fp16",
    attention_dropout: Annotated[
        float,
        typer.Option(
            min=0.0, max=0.9,
            help="finetune: dropout on attention probabilities (0 by default: faster on long segments; the "
            "encoder's own setting is usually 0.1).",
        ),
    ] = 0.0,
    train_word_embeddings: Annotated[
        bool,
        typer.Option(
            "--train-word-embeddings",
            help="finetune: also update the word-embedding matrix (frozen by default: faster, and words unseen "
            "in training keep their pretrained vectors).",
        ),
    ] = False,
    focus_words: Annotated[
        int,
        typer.Option(
            min=20, max=2000,
            help="premises longer than this many words are cut to the run of sentences that covers most of the "
            "hypothesis's content words.",
        ),
    ] = 180,
    device: Annotated[
        Device, typer.Option(help="auto (cuda when a GPU is present), cpu or cuda.")
    ] = "auto",
    max_per_set: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Train on at most N pairs of each set (a seeded sample of its train part; validation and test "
            "parts keep N/4): keeps large sets from drowning small ones.",
        ),
    ] = None,
    window_sentences: Annotated[
        int,
        typer.Option(
            min=0,
            help="the layout the checker reads references in, recorded in its manifest: windows of N sentences "
            "(0: --segment-tokens segments); `check --window-sentences` overrides it",
        ),
    ] = 2,
    min_window_sentences: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="recorded in the manifest with --window-sentences: the checker also reads every narrower window "
            "down to N sentences (1 with --window-sentences 2: each sentence alone and with a neighbour)",
        ),
    ] = None,
    lora_rank: Annotated[
        int,
        typer.Option(
            min=0,
            help="finetune: train rank-N LoRA adapters and the head instead of every weight, and save only that "
            "delta (a few MB) over the base encoder, whose SHA-256 the manifest records (0: a full fine-tune).",
        ),
    ] = 0,
    lora_alpha: Annotated[
        int | None,
        typer.Option(min=1, help="with --lora-rank: the adapters' scale numerator alpha (scale alpha/N; default 2N)."),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="finetune: continue an interrupted run from its last checkpoint (OUT.partial/, written every 100 "
            "batches and after each epoch); refused when the options or data differ from the interrupted run's.",
        ),
    ] = False,
    teacher: Annotated[
        Path | None,
        typer.Option(
            help="finetune: distil a checker folder written by train-checker (a larger one, say): every train pair "
            "and copy is scored by it once, and the loss mixes the gold label with its probabilities.",
        ),
    ] = None,
    teacher_weight: Annotated[
        float,
        typer.Option(
            callback=positive_share,
            help="with --teacher: the share of the loss from the teacher's probabilities, above 0 and at most 1.",
        ),
    ] = 0.5,
) -> None:
    """Train an offline checker (see `factscope train-checker --help`)."""
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from factscope.cli.display import console, print_table, progress, summary_table
    from factscope.hf.device import resolve_device
    from factscope.training.options import TrainOptions
    from factscope.training.train import train_checker as run

    options = TrainOptions(
        data=data, out=out, method=method, encoder=encoder, layers=layers, features=features,
        classifier=classifier, epochs=epochs, learning_rate=learning_rate, seed=seed, limit=limit, cues=cues,
        class_biases=class_biases, threads=threads, long_context=long_context, context_words=context_words,
        context_epochs=context_epochs, precision=precision, unrelated_context=unrelated_context,
        members=members, weights=weights, attention_dropout=attention_dropout,
        train_word_embeddings=train_word_embeddings, focus_words=focus_words, device=resolve_device(device),
        max_per_set=max_per_set, resume=resume, window_sentences=window_sentences,
        min_window_sentences=min_window_sentences, teacher=teacher, teacher_weight=teacher_weight,
        lora_rank=lora_rank, lora_alpha=lora_alpha,
    )
    result = run(options, progress)
    for error in result.skipped[:20]:
        console.print(f"[yellow]skipped:[/] {escape(str(error))}")
    if len(result.skipped) > 20:
        console.print(f"[yellow]... and {len(result.skipped) - 20} more skipped records[/]")
    training = result.manifest["training"]
    rows: list[tuple[str, object]] = [
        ("method", result.manifest["method"]),
    ]
    if "finetune" in result.manifest:
        seeds = [member["seed"] for member in result.manifest["finetune"]["members"]]
        rows.append(("members (training seeds)", f"{len(seeds)} ({', '.join(map(str, seeds))})"))
    if "teacher" in training:
        rows.append(("teacher (share of the loss)", f"{training['teacher']['path']} ({training['teacher']['weight']})"))
    rows += [
        ("train / validation / test pairs", f"{training['n_train']} / {training['n_validation']} / {training['n_test']}"),
        ("held-out accuracy", result.test.accuracy),
        ("held-out macro-F1", result.test.macro_f1),
    ]
    rows += [(f"held-out F1 {name}", value) for name, value in result.test.per_class_f1.items()]
    rows.append(("held-out macro-F1, premise inside a segment", result.manifest["held_out_in_context"]["macro_f1"]))
    rows.append(("held-out hypotheses against unrelated segments: Neutral share", _neutral_share(result.manifest)))
    rows.append(("validation macro-F1", result.validation.macro_f1))
    for name, figures in result.manifest["held_out_by_set"].items():
        rows.append((f"held-out {name}: balanced accuracy", figures["balanced_accuracy"]))
        if "macro_f1" in figures:
            rows.append((f"held-out {name}: 3-way macro-F1", figures["macro_f1"]))
    check = result.manifest.get("class_bias_check")
    if check is not None:
        rows.append(("class biases: validation macro-F1 without / with (5-fold)",
                     f"{check['score_without']:.4f} / {check['score_with']:.4f}"))
        rows.append(("class biases kept", check["kept"]))
    if result.cue_figures is not None:
        rows.append(("held-out macro-F1 without cues", result.cue_figures["held_out_without_cues"]["macro_f1"]))
        rows.append(("held-out macro-F1 with cues", result.cue_figures["held_out_with_cues"]["macro_f1"]))
        rows.append(("cues kept", result.cue_figures["kept"]))
    rows.append(("training seconds", training["seconds"]))
    print_table(summary_table(f"checker written to {out}", rows))


def _neutral_share(manifest: dict) -> float:
    shares = manifest["held_out_unrelated_labels"]
    return shares.get("neutral", shares.get("not_entailment", 0.0))


def register(app: typer.Typer) -> None:
    """Add `train-checker` to the app."""
    app.command("train-checker", help=HELP)(train_checker)
