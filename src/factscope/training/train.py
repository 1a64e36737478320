"""Train a checker directory end to end: load, split, fit (repc or finetune), tune on validation, report held-out."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from factscope.checkers.embedded import (
    MANIFEST,
    MANIFEST_FORMAT,
    CrossEncoderEnsemble,
    CrossEncoderModel,
    apply_log_bias,
    directory_digest,
)
from factscope.core.errors import ConfigError, InputError
from factscope.hf.device import resolve_device
from factscope.hf.embedded import resolve_encoder
from factscope.training.distil import (
    TEACHER_FILE,
    student_columns,
    teacher_classes,
    teacher_probabilities,
    with_teacher,
)
from factscope.training.evaluation import (
    BiasCheck,
    CheckerReport,
    cross_validate_log_bias,
    evaluate,
    evaluate_by_source,
    macro_f1_objective,
    mix_objective,
    tune_log_bias,
)
from factscope.training.focus import focus_examples
from factscope.training.long_context import augment, context_copies, unrelated_copies
from factscope.training.nli_data import (
    NOT_ENTAILMENT,
    NLIExample,
    file_sha256,
    load_training_mix,
    split_by_group,
)
from factscope.training.options import TrainOptions
from factscope.training.resume import cap_per_set, finish_staging, prepare_staging, staging_folder

ProgressFactory = Callable[[str, int], Any]
"""``progress(description, total)`` -> a context manager whose value has ``advance(n)`` (factscope.core.progress_display.progress)."""


@dataclass
class TrainResult:
    """What a training run produced: the held-out report, the validation report and the manifest written."""

    test: CheckerReport
    validation: CheckerReport
    manifest: dict
    skipped: list[InputError] = field(default_factory=list)
    cue_figures: dict | None = None


def inference_layout(options: TrainOptions) -> dict[str, int]:
    """The reference layout the manifest names: the window width, and the narrowest window where one is set."""
    layout = {"window_sentences": options.window_sentences}
    if options.min_window_sentences is not None:
        layout["min_window_sentences"] = options.min_window_sentences
    return layout


def train_checker(options: TrainOptions, progress: ProgressFactory) -> TrainResult:
    """Train, tune biases (and test cues) on validation, report on the held-out part, write the directory."""
    started = time.perf_counter()
    options = replace(options, device=resolve_device(options.device))
    if options.method not in ("repc", "finetune"):
        raise ConfigError(f"unknown method {options.method!r}; use `method='repc'` or `method='finetune'`")
    if options.cues not in ("auto", "on", "off"):
        raise ConfigError("`cues` must be auto, on or off")
    if options.class_biases not in ("auto", "on", "off"):
        raise ConfigError("`class_biases` must be auto, on or off")
    if options.precision not in ("auto", "fp32", "bf16"):
        raise ConfigError("`precision` must be auto, fp32 or bf16")
    if options.weights not in ("fp16", "int8"):
        raise ConfigError("`weights` must be fp16 or int8")
    if options.min_window_sentences is not None and not 1 <= options.min_window_sentences <= options.window_sentences:
        raise ConfigError("`min_window_sentences` must be between 1 and `window_sentences` (which must be above 0)")
    if options.members < 1 or (options.members > 1 and options.method != "finetune"):
        raise ConfigError("`members` must be at least 1, and more than 1 only with `method='finetune'`")
    if options.lora_rank < 0 or (options.lora_rank > 0 and options.method != "finetune"):
        raise ConfigError("`lora_rank` must be 0 (a full fine-tune) or a positive rank with `method='finetune'`")
    if options.encoder_layers is not None and options.method != "finetune":
        raise ConfigError("`encoder_layers` needs `method='finetune'`: it cuts the encoder a checker is fine-tuned on")
    if options.lora_rank > 0 and (options.weights != "fp16" or options.members != 1):
        raise ConfigError("a LoRA delta is saved in fp16 as one member: leave `weights` at 'fp16' and `members` at 1")
    if options.teacher is not None and options.method != "finetune":
        raise ConfigError("`teacher` needs `method='finetune'`: a frozen-encoder head is not trained on probabilities")
    if not 0 < options.teacher_weight <= 1:
        raise ConfigError("`teacher_weight` must be above 0 and at most 1")
    datasets, classes = load_training_mix(options.data, limit=options.limit)
    examples = focus_examples([e for d in datasets for e in d.examples], options.focus_words)
    skipped = [error for d in datasets for error in d.skipped]
    split = cap_per_set(split_by_group(examples), options.max_per_set, options.seed)
    if not split.train or not split.validation or not split.test:
        raise InputError("too few usable pairs to split into train / validation / test", path=options.data[0])
    mixed = any(e.label == NOT_ENTAILMENT for e in examples) or len({e.source for e in examples}) > 1
    if mixed and options.cues == "on":
        raise ConfigError("`cues='on'` needs a single 3-way set; the cue stacker is not fitted on a mix of sets")
    objective = mix_objective if mixed else macro_f1_objective
    if options.teacher is not None:
        student_columns(teacher_classes(options.teacher), classes)
    cues = "off" if mixed else options.cues
    encoder_path = resolve_encoder(options.encoder)
    if options.lora_rank > 0 and not Path(encoder_path).is_dir():
        raise ConfigError(f"a LoRA delta needs its base encoder as a local folder; '{options.encoder}' is not one")
    train, validation = split.train, split.validation
    neutral = _neutral_class(classes)
    short_train = _short(train, options.context_words)
    short_validation = _short(validation, options.context_words)
    copies = context_copies(short_train, options.long_context, options.context_words, options.seed)
    copies += unrelated_copies(
        short_train, options.unrelated_context, options.context_words, options.seed + 3, neutral
    )
    validation = (
        validation
        + context_copies(short_validation, options.long_context, options.context_words, options.seed + 1)
        + unrelated_copies(
            short_validation, options.unrelated_context, options.context_words, options.seed + 4, neutral
        )
    )
    staging = staging_folder(options.out)
    prepare_staging(staging, options)
    if options.teacher is not None:
        train, copies = _taught(options, options.teacher, train, copies, classes, staging / TEACHER_FILE, progress)
    manifest: dict = {
        "format": MANIFEST_FORMAT,
        "method": options.method,
        "encoder": options.encoder,
        "classes": list(classes),
        "label_order": ["Entailment", "Neutral", "Contradiction"],
        "inference_max_length": 320,
        "inference": inference_layout(options),
        "training": {
            "data": [
                {"path": str(d.path), "sha256": file_sha256(d.path), "pairs": len(d.examples)} for d in datasets
            ],
            "limit": options.limit,
            "max_per_set": options.max_per_set,
            "split": "by group: SHA-256 of each pair's group (factscope.evaluation.splits.part_of)",
            "split_fractions": {"train": 0.75, "validation": 0.1, "test": 0.15},
            "focus_words": options.focus_words,
            "objective": "mix" if mixed else "macro_f1",
            "n_train": len(split.train),
            "n_validation": len(split.validation),
            "n_test": len(split.test),
            "n_skipped_records": len(skipped),
            "long_context": {
                "share": options.long_context,
                "words": options.context_words,
                "epochs": options.context_epochs if options.method == "finetune" else None,
                "unrelated_share": options.unrelated_context,
            },
        },
    }
    if options.teacher is not None:
        manifest["training"]["teacher"] = {
            "path": str(options.teacher),
            "contents": directory_digest(options.teacher),
            "weight": options.teacher_weight,
        }
    if options.method == "finetune":
        model, details = _train_finetune(
            options, encoder_path, train, copies, validation, classes, progress
        )
        from factscope.training.finetune import save_cross_encoder

        manifest["members"] = [member["folder"] for member in details["finetune"]["members"]]
        if options.lora_rank > 0:
            model = _saved_delta(options, encoder_path, model.members[0], staging / manifest["members"][0], manifest)
        else:
            for folder, member in zip(manifest["members"], model.members):
                save_cross_encoder(member, staging / folder, options.weights)
            model = CrossEncoderEnsemble(
                [
                    CrossEncoderModel.from_pretrained(
                        staging / folder,
                        batch_size=member.batch_size,
                        max_length=member.max_length,
                        device=options.device,
                    )
                    for folder, member in zip(manifest["members"], model.members)
                ]
            )
    else:
        model, details = _train_repc(
            options, encoder_path, train + copies, validation, classes, progress
        )
        model.head.save(staging / "head.npz")
    manifest.update(details)
    manifest["training"]["fit_seconds"] = round(time.perf_counter() - started, 1)
    validation_probs = _probs(model, validation, progress, "scoring validation")
    test_probs = _probs(model, split.test, progress, "scoring held-out test")
    validation_labels = np.array([e.label for e in validation])
    test_labels = np.array([e.label for e in split.test])
    validation_sources = np.array([e.source for e in validation])
    test_sources = np.array([e.source for e in split.test])
    log_bias, bias_check = _class_biases(
        options, validation_labels, validation_probs, objective, validation_sources
    )
    manifest["log_bias"] = [float(b) for b in log_bias]
    manifest["thresholds"] = {
        "decision": "argmax of probabilities after the class log-biases, tuned on validation for "
        + ("the mean over sets of 3-way macro-F1 or balanced accuracy" if mixed else "macro-F1"),
        "class_biases": options.class_biases,
    }
    if bias_check is not None:
        manifest["class_bias_check"] = {**asdict(bias_check), "kept": bias_check.helps}
    manifest["held_out_model_only"] = evaluate(test_labels, test_probs, classes).as_dict()
    test_report = evaluate(test_labels, apply_log_bias(test_probs, log_bias), classes)
    validation_report = evaluate(
        validation_labels, apply_log_bias(validation_probs, log_bias), classes
    )
    cue_figures = None
    manifest["held_out_by_set"] = evaluate_by_source(test_labels, apply_log_bias(test_probs, log_bias), test_sources)
    manifest["validation_by_set"] = evaluate_by_source(
        validation_labels, apply_log_bias(validation_probs, log_bias), validation_sources
    )
    every_class = len(set(np.asarray(validation_labels).tolist())) == len(classes)
    if cues == "on" and not every_class:
        raise InputError("`cues='on'` fits the cue stacker on the validation part, which lacks a class; give more pairs")
    if cues != "off" and len(classes) == 3 and every_class:
        from factscope.checkers.cues import CueStacker

        stacker = CueStacker.fit(
            validation_probs,
            [e.premise for e in validation],
            [e.hypothesis for e in validation],
            validation_labels,
            seed=options.seed,
        )
        cue_probs = stacker.apply(
            test_probs, [e.premise for e in split.test], [e.hypothesis for e in split.test]
        )
        cue_report = evaluate(test_labels, cue_probs, classes)
        keep = cues == "on" or cue_report.macro_f1 > test_report.macro_f1
        cue_figures = {
            "held_out_without_cues": test_report.as_dict(),
            "held_out_with_cues": cue_report.as_dict(),
            "kept": keep,
        }
        if keep:
            stacker.save(staging / "cues.npz")
            manifest["cues"] = {"file": "cues.npz", "features": list(stacker.feature_names)}
            test_report = cue_report
            validation_report = evaluate(
                validation_labels,
                stacker.apply(
                    validation_probs, [e.premise for e in validation], [e.hypothesis for e in validation]
                ),
                classes,
            )
        manifest["cue_test"] = cue_figures
    manifest["held_out"] = test_report.as_dict()
    in_context = augment(split.test, 1.0, options.context_words, options.seed + 2)[len(split.test) :]
    context_probs = _probs(model, in_context, progress, "scoring held-out test in context")
    if "cues" in manifest:
        context_probs = stacker.apply(
            context_probs, [e.premise for e in in_context], [e.hypothesis for e in in_context]
        )
    else:
        context_probs = apply_log_bias(context_probs, log_bias)
    manifest["held_out_in_context"] = evaluate(test_labels, context_probs, classes).as_dict()
    unrelated = unrelated_copies(split.test, 1.0, options.context_words, options.seed + 5, neutral)
    unrelated_probs = _probs(
        model, unrelated, progress, "scoring held-out hypotheses against unrelated segments"
    )
    if "cues" in manifest:
        unrelated_probs = stacker.apply(
            unrelated_probs, [e.premise for e in unrelated], [e.hypothesis for e in unrelated]
        )
    else:
        unrelated_probs = apply_log_bias(unrelated_probs, log_bias)
    manifest["held_out_unrelated_labels"] = {
        name: float(np.mean(unrelated_probs.argmax(axis=1) == i)) for i, name in enumerate(classes)
    }
    manifest["validation"] = validation_report.as_dict()
    manifest["training"]["seconds"] = round(time.perf_counter() - started, 1)
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    finish_staging(staging)
    if options.out.exists():
        shutil.rmtree(options.out)
    staging.rename(options.out)
    return TrainResult(
        test=test_report,
        validation=validation_report,
        manifest=manifest,
        skipped=skipped,
        cue_figures=cue_figures,
    )


def _saved_delta(
    options: TrainOptions, encoder_path: str, member: CrossEncoderModel, folder: Path, manifest: dict
) -> CrossEncoderEnsemble:
    """Save a LoRA-trained member as a delta over its base (recorded in ``manifest["delta"]``) and load it back
    the way a user's run will: the base with the delta added."""
    from factscope.checkers.lora_delta import delta_record, load_delta_classifier
    from factscope.training.lora import save_delta

    save_delta(member.model, folder)
    alpha = options.lora_alpha if options.lora_alpha is not None else 2 * options.lora_rank
    manifest["delta"] = delta_record(
        folder, options.encoder, Path(encoder_path), options.lora_rank, alpha, options.encoder_layers
    )
    reloaded = CrossEncoderModel(
        *load_delta_classifier(folder, manifest),
        batch_size=member.batch_size,
        max_length=member.max_length,
        device=options.device,
    )
    return CrossEncoderEnsemble([reloaded])


def _class_biases(
    options: TrainOptions, labels: np.ndarray, probs: np.ndarray, objective, sources: np.ndarray
) -> tuple[np.ndarray, BiasCheck | None]:
    """The class log-biases to ship: tuned on validation (``on``), none (``off``), or tuned and kept only when
    5-fold cross-validation within validation shows they help (``auto``); the check, when one was made."""
    none = np.zeros(probs.shape[1])
    if options.class_biases == "off":
        return none, None
    tuned = tune_log_bias(labels, probs, objective=objective, sources=sources)
    if options.class_biases == "on" or not tuned.any():
        return tuned, None
    check = cross_validate_log_bias(labels, probs, seed=options.seed, objective=objective, sources=sources)
    return (tuned if check.helps else none), check


def _taught(
    options: TrainOptions,
    teacher: Path,
    train: list[NLIExample],
    copies: list[NLIExample],
    classes: tuple[str, ...],
    cache: Path,
    progress: ProgressFactory,
) -> tuple[list[NLIExample], list[NLIExample]]:
    """The train pairs and their copies carrying the teacher's probabilities (scored once, cached in staging)."""
    pairs = train + copies
    with progress("scoring with the teacher", len(pairs)) as bar:
        probs = teacher_probabilities(teacher, pairs, classes, cache, options.device, bar)
    taught = with_teacher(pairs, probs)
    return taught[: len(train)], taught[len(train) :]


def _short(examples: list[NLIExample], words: int) -> list[NLIExample]:
    """The examples whose premise fits in a segment: only these are placed inside other premises."""
    return [e for e in examples if len(e.premise.split()) <= words]


def _neutral_class(classes: tuple[str, ...]) -> int:
    """The class a claim gets from a segment about other things: neutral (3-way) or not_entailment (2-way)."""
    return classes.index("neutral") if "neutral" in classes else classes.index("not_entailment")


def _train_finetune(options, encoder_path, train, copies, validation, classes, progress):
    from factscope.training.finetune import (
        EAGER_ATTENTION_MAX_TOKENS,
        FinetuneConfig,
        epoch_schedule,
        finetune_cross_encoder,
        resolve_precision,
    )

    config = FinetuneConfig(
        epochs=options.epochs,
        context_epochs=options.context_epochs,
        learning_rate=options.learning_rate,
        seed=options.seed,
        threads=options.threads,
        precision=options.precision,
        attention_dropout=options.attention_dropout,
        train_word_embeddings=options.train_word_embeddings,
        max_length=320 if options.long_context > 0 or options.unrelated_context > 0 else 128,
        device=options.device,
        teacher_weight=options.teacher_weight if options.teacher is not None else 0.0,
        lora_rank=options.lora_rank,
        lora_alpha=options.lora_alpha,
        encoder_layers=options.encoder_layers,
    )
    pairs = sum(len(data) for data in epoch_schedule(train, copies, config.epochs, config.context_epochs))
    models, members = [], []
    for k in range(options.members):
        member_config = replace(config, seed=options.seed + k)
        description = (
            "fine-tuning" if options.members == 1 else f"fine-tuning member {k + 1}/{options.members}"
        )
        checkpoint = staging_folder(options.out) / f"checkpoint_{k + 1}.pt"
        member_config = replace(member_config, checkpoint=checkpoint)
        with progress(description, pairs) as bar:
            result = finetune_cross_encoder(
                encoder_path,
                train,
                validation,
                classes,
                member_config,
                on_step=bar.advance,
                context_copies=copies,
            )
        models.append(result.model)
        members.append(
            {
                "folder": "encoder" if k == 0 else f"encoder_{k + 1}",
                "seed": member_config.seed,
                "best_epoch": result.best_epoch,
                "history": result.history,
            }
        )
    details = {
        "finetune": {
            "epochs": config.epochs,
            "context_epochs": config.context_epochs,
            "learning_rate": config.learning_rate,
            "batch_size": config.batch_size,
            "max_length": config.max_length,
            "warmup": config.warmup,
            "weight_decay": config.weight_decay,
            "attention_dropout": config.attention_dropout,
            "train_word_embeddings": config.train_word_embeddings,
            "lora_rank": config.lora_rank,
            "encoder_layers": config.encoder_layers,
            "precision": resolve_precision(config.precision),
            "eager_attention_max_tokens": (
                EAGER_ATTENTION_MAX_TOKENS if resolve_precision(config.precision) == "bf16" else None
            ),
            "dropout_masks": "numpy" if config.fast_dropout else "torch",
            "weights": options.weights,
            "members": members,
        }
    }
    return CrossEncoderEnsemble(models), details


def _train_repc(options, encoder_path, train, validation, classes, progress):
    import torch

    from factscope.checkers.repc import RepCFeaturizer, RepCModel, parse_layers
    from factscope.training.repc import fit_head

    torch.set_num_threads(options.threads)
    probe = RepCFeaturizer(encoder_path, layers=[0], features=options.features)
    layers = parse_layers(options.layers, probe.n_hidden_states)
    probe.layers = layers
    x_train = _features(probe, train, progress, "encoding train")
    x_validation = _features(probe, validation, progress, "encoding validation")
    head = fit_head(
        options.classifier,
        x_train,
        np.array([e.label for e in train]),
        x_validation,
        np.array([e.label for e in validation]),
        n_classes=len(classes),
        seed=options.seed,
    )
    details = {"layers": layers, "features": options.features, "classifier": options.classifier}
    return RepCModel(probe, head), details


def _features(featurizer, examples: list[NLIExample], progress, description: str) -> np.ndarray:
    passes = {"pair": 1, "sentence": 2, "both": 3}[featurizer.features]
    with progress(description, len(examples) * passes) as bar:
        return featurizer.transform(
            [e.premise for e in examples], [e.hypothesis for e in examples], on_batch=bar.advance
        )


def _probs(model, examples: list[NLIExample], progress, description: str) -> np.ndarray:
    with progress(description, len(examples)) as bar:
        probs = model.probs([e.premise for e in examples], [e.hypothesis for e in examples])
        bar.advance(len(examples))
    return probs
