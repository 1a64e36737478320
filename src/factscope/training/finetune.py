"""Fine-tune an encoder as an NLI cross-encoder on the CPU: "[CLS] premise [SEP] hypothesis [SEP]" -> classes."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from factscope.checkers.embedded import CrossEncoderModel
from factscope.checkers.int8_weights import save_int8_model
from factscope.hf.cls_last_layer import restrict_last_layer_to_cls
from factscope.hf.first_layers import keep_first_layers
from factscope.hf.loading import load_pretrained
from factscope.training.checkpoint import TrainingState
from factscope.training.evaluation import evaluate, mix_objective
from factscope.training.fast_dropout import use_fast_dropout
from factscope.training.nli_data import NLIExample


@dataclass(frozen=True)
class FinetuneConfig:
    """Training settings; the defaults are the one-command recipe (README, "Train your own")."""

    epochs: int = 3
    learning_rate: float = 1e-4
    batch_size: int = 32
    max_length: int = 256
    context_epochs: int = 1
    warmup: float = 0.1
    weight_decay: float = 0.01
    seed: int = 13
    threads: int = 2
    precision: str = "auto"
    attention_dropout: float = 0.0
    train_word_embeddings: bool = False
    fast_dropout: bool = True
    device: str = "cpu"
    checkpoint: Path | None = None
    checkpoint_every: int = 100
    teacher_weight: float = 0.0
    lora_rank: int = 0
    lora_alpha: int | None = None
    encoder_layers: int | None = None


@dataclass
class FinetuneResult:
    """The kept model, its epoch, and every epoch's training loss (and validation figures where measured)."""

    model: CrossEncoderModel
    best_epoch: int
    history: list[dict] = field(default_factory=list)


def finetune_cross_encoder(
    encoder: str,
    train: list[NLIExample],
    validation: list[NLIExample],
    classes: tuple[str, ...],
    config: FinetuneConfig = FinetuneConfig(),
    on_step: Callable[[int], None] | None = None,
    context_copies: list[NLIExample] | None = None,
) -> FinetuneResult:
    """Fine-tune ``encoder`` (a folder or hub name) with a fresh classification head.

    The last ``config.context_epochs`` epochs train on ``train`` plus ``context_copies`` (pairs whose premise
    sits inside a longer segment), the earlier ones on ``train`` alone: a curriculum from plain pairs to
    segments that costs far less than long copies in every epoch. AdamW (fused) with linear warm-up and decay;
    each epoch's pairs are tokenized once and batches are drawn from buckets sorted by token count (shuffled) so
    padding stays small. Attention-probability dropout is ``config.attention_dropout`` (0 by default: on
    200-token segments that dropout mask is the largest random draw of a step) and the word-embedding matrix
    stays frozen unless ``config.train_word_embeddings`` (saves its dense gradient and optimizer update; README,
    "How it decides"). The kept model is the last epoch's, or, when several epochs are candidates
    (:func:`candidate_epochs`), the candidate with the best validation macro-F1; validation runs only after
    candidate epochs, and not at all when there is one (with the default one context epoch, validating all three
    epochs would cost about three minutes on a 2-core CPU and change nothing).
    With ``config.teacher_weight`` above 0 every pair must carry a teacher's probabilities (``NLIExample.teacher``)
    and the loss is :func:`distillation_loss`.
    ``on_step(n)`` is called after each batch with its number of pairs. With ``config.checkpoint``, the run's
    state is written there every ``config.checkpoint_every`` batches, after each epoch and at the end, and a run
    that finds a state there continues from it (:class:`~factscope.training.checkpoint.TrainingState`).
    """
    import torch

    if config.teacher_weight > 0 and any(e.teacher is None for e in [*train, *(context_copies or [])]):
        raise ValueError("distillation needs the teacher's probabilities on every training pair")
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    on_cpu = config.device == "cpu"
    bf16 = resolve_precision(config.precision) == "bf16" if on_cpu else config.precision != "fp32"
    tokenizer, model, trained = load_classifier(encoder, classes, config)
    model.to(config.device)
    epoch_data = epoch_schedule(train, context_copies or [], config.epochs, config.context_epochs)
    total_steps = max(1, sum(math.ceil(len(data) / config.batch_size) for data in epoch_data))
    optimizer = torch.optim.AdamW(
        trained, lr=config.learning_rate, weight_decay=config.weight_decay, fused=True
    )
    warmup_steps = int(total_steps * config.warmup)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: _linear_schedule(step, warmup_steps, total_steps)
    )
    rng = np.random.default_rng(config.seed)
    scorer = CrossEncoderModel(
        model, tokenizer, batch_size=64, max_length=config.max_length, device=config.device
    )
    candidates = candidate_epochs(config.epochs, config.context_epochs, bool(context_copies))
    history: list[dict] = []
    best_state, best_score, best_epoch = None, -1.0, config.epochs
    state = TrainingState.load(config.checkpoint) if config.checkpoint is not None else None
    if state is not None:
        state.restore(model, optimizer, scheduler, rng)
        history, best_state, best_score, best_epoch = state.history, state.best_state, state.best_score, state.best_epoch

    def save(epoch: int, step: int, losses: list, rng_state: Any) -> None:
        if config.checkpoint is not None:
            TrainingState(epoch, step, _floats(losses), rng_state, history, best_state, best_score, best_epoch).save(
                config.checkpoint, model, optimizer, scheduler
            )

    for epoch, data in enumerate(epoch_data, start=1):
        if state is not None and epoch < state.epoch:
            continue
        model.train()
        rng_at_start = rng.bit_generator.state
        encodings = tokenize_pairs(tokenizer, data, config.max_length)
        lengths = np.array([len(ids) for ids in encodings["input_ids"]])
        batches = _length_bucketed_batches(lengths, config.batch_size, rng)
        done, losses = (state.step, state.losses) if state is not None and epoch == state.epoch else (0, [])
        if done and on_step is not None:
            on_step(sum(len(batch) for batch in batches[:done]))
        for step, batch in enumerate(batches[done:], start=done + 1):
            target = torch.tensor([data[i].label for i in batch], device=config.device)
            encoded = {key: value.to(config.device) for key, value in pad_batch(tokenizer, encodings, batch).items()}
            if on_cpu:
                choose_attention(model, encoded["input_ids"].shape[1], bf16)
            teacher = (
                torch.tensor([data[i].teacher for i in batch], device=config.device)
                if config.teacher_weight > 0
                else None
            )
            losses.append(
                train_step(model, optimizer, trained, encoded, target, bf16, teacher, config.teacher_weight)
            )
            scheduler.step()
            if on_step is not None:
                on_step(len(batch))
            if step % config.checkpoint_every == 0 and step < len(batches):
                save(epoch, step, losses, rng_at_start)
        state = None
        if on_cpu:
            choose_attention(model, config.max_length, bf16=False)
        model.eval()
        history.append({"epoch": epoch, "train_loss": float(np.mean(_floats(losses)))})
        if len(candidates) > 1 and epoch in candidates:
            probs = scorer.probs([e.premise for e in validation], [e.hypothesis for e in validation])
            labels = np.array([e.label for e in validation])
            report = evaluate(labels, probs, classes)
            score = mix_objective(labels, probs, np.array([e.source for e in validation]))
            history[-1]["validation"] = {**report.as_dict(), "objective": score}
            if score > best_score:
                best_score, best_epoch = score, epoch
                best_state = copy.deepcopy(model.state_dict())
        save(epoch + 1, 0, [], rng.bit_generator.state)
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    return FinetuneResult(model=scorer, best_epoch=best_epoch, history=history)


def load_classifier(encoder: str, classes: tuple[str, ...], config: FinetuneConfig) -> tuple[Any, Any, list]:
    """The tokenizer, ``encoder`` with a fresh ``classes`` head and the list of parameters to train.

    fp32 weights, the speed settings of ``config`` applied, a BERT's last layer restricted to [CLS]
    (:func:`restrict_last_layer_to_cls`); all parameters are trained but the word embeddings, unless
    ``config.train_word_embeddings``. Dropout masks come from numpy (:func:`use_fast_dropout`, seeded with
    ``config.seed``) unless ``config.fast_dropout`` is off. With ``config.lora_rank`` above 0 the encoder is frozen
    and only rank-r adapters and the head are trained (:func:`factscope.training.lora.with_lora`). With
    ``config.encoder_layers`` only the encoder's first layers are loaded and trained (:mod:`factscope.hf.first_layers`).
    """
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = load_pretrained(AutoTokenizer, encoder, "encoder tokenizer")
    model_config = load_pretrained(
        AutoConfig,
        encoder,
        "encoder configuration",
        num_labels=len(classes),
        id2label=dict(enumerate(classes)),
        label2id={name: i for i, name in enumerate(classes)},
    )
    if config.encoder_layers is not None:
        keep_first_layers(model_config, config.encoder_layers, encoder)
    if hasattr(model_config, "attention_probs_dropout_prob"):
        model_config.attention_probs_dropout_prob = config.attention_dropout
    model = load_pretrained(
        AutoModelForSequenceClassification, encoder, "encoder", config=model_config, dtype=torch.float32
    )
    model.get_input_embeddings().weight.requires_grad_(config.train_word_embeddings)
    restrict_last_layer_to_cls(model)
    if config.fast_dropout and config.device == "cpu":
        use_fast_dropout(model, config.seed)
    if config.lora_rank > 0:
        from factscope.training.lora import with_lora

        model = with_lora(model, config.lora_rank, config.lora_alpha)
    return tokenizer, model, [parameter for parameter in model.parameters() if parameter.requires_grad]


def tokenize_pairs(tokenizer: Any, examples: list[NLIExample], max_length: int) -> dict[str, list]:
    """Token ids of every (premise, hypothesis) pair, truncated to ``max_length``, not padded."""
    return dict(
        tokenizer(
            [e.premise for e in examples],
            [e.hypothesis for e in examples],
            truncation="longest_first",
            max_length=max_length,
        )
    )


def pad_batch(tokenizer: Any, encodings: dict[str, list], batch: list[int]) -> dict:
    """The pairs ``batch`` of :func:`tokenize_pairs` output as padded int64 tensors, as ``tokenizer.pad`` makes
    them (its padding side; ids padded with the pad token, token types with the pad type, the mask with 0), built
    in numpy: about 0.2 ms for a batch of 32 pairs where ``tokenizer.pad`` takes 1.4 ms, time a GPU step waits."""
    import torch

    fill = {
        "input_ids": tokenizer.pad_token_id,
        "token_type_ids": tokenizer.pad_token_type_id,
        "attention_mask": 0,
    }
    unknown = sorted(set(encodings) - set(fill))
    if unknown:
        raise ValueError(f"cannot pad tokenizer outputs {unknown}")
    rows = [len(encodings["input_ids"][i]) for i in batch]
    width = max(rows)
    padded = {}
    for key, values in encodings.items():
        array = np.full((len(batch), width), fill[key], dtype=np.int64)
        for row, (i, length) in enumerate(zip(batch, rows)):
            if tokenizer.padding_side == "left":
                array[row, width - length :] = values[i]
            else:
                array[row, :length] = values[i]
        padded[key] = torch.from_numpy(array)
    return padded


def mixed_nll(logits: Any, target: Any) -> Any:
    """Mean negative log-likelihood; a 3-way model's target 3 (``not_entailment``) is scored on P(N) + P(C).

    For targets 0-2 this is the usual cross-entropy. A 2-way set's "not entailment" pair says only that the
    pair is neutral or contradictory; its loss is -log(P(neutral) + P(contradiction)), so the model is never told
    which of the two it is.
    """
    import torch

    log_probs = torch.log_softmax(logits.float(), dim=-1)
    if log_probs.shape[1] == 3:
        either = torch.logsumexp(log_probs[:, 1:], dim=-1, keepdim=True)
        log_probs = torch.cat([log_probs, either], dim=-1)
    return -log_probs.gather(1, target[:, None]).mean()


def distillation_loss(logits: Any, target: Any, teacher: Any, weight: float) -> Any:
    """``(1 - weight)`` x the gold-label loss (:func:`mixed_nll`) plus ``weight`` x the cross-entropy of the
    student's probabilities against a teacher's, ``-sum_c t_c log p_c`` (the KL divergence from teacher to student
    up to a constant), both averaged over the batch (:mod:`factscope.training.distil`)."""
    import torch

    soft = -(teacher * torch.log_softmax(logits.float(), dim=-1)).sum(dim=-1).mean()
    return (1.0 - weight) * mixed_nll(logits, target) + weight * soft


def train_step(
    model: Any,
    optimizer: Any,
    trained: list,
    encoded: dict,
    target: Any,
    bf16: bool,
    teacher: Any = None,
    teacher_weight: float = 0.0,
) -> Any:
    """One step: forward (bf16 autocast if asked), backward, gradient norm clipped to 1, optimizer step; the loss
    (:func:`mixed_nll`, or :func:`distillation_loss` when ``teacher`` probabilities are given) as a tensor on the
    model's device, so that a GPU step does not wait for the device to finish before the next batch is prepared."""
    import torch

    with torch.autocast(target.device.type, dtype=torch.bfloat16, enabled=bf16):
        logits = model(**encoded).logits
    if teacher is not None:
        loss = distillation_loss(logits, target, teacher, teacher_weight)
    else:
        loss = mixed_nll(logits, target)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(trained, 1.0)
    optimizer.step()
    optimizer.zero_grad()
    return loss.detach()


EAGER_ATTENTION_MAX_TOKENS = 128
"""Under bf16, batches padded to at most this many tokens train with the eager attention, longer ones with sdpa."""


def choose_attention(model: Any, tokens: int, bf16: bool) -> None:
    """Switch a model that runs the fused sdpa attention to the eager one for short bf16 batches, and back.

    In bf16 the fused CPU attention's backward is slow on short batches: plain MNLI batches (~40 tokens) train
    1.3-1.4x faster with the eager attention, while batches of ~200-token segments train faster with sdpa (README,
    "How it decides"). The two compute the same attention. fp32 training, inference and models without sdpa are
    left as they are; after a bf16 batch of more than ``EAGER_ATTENTION_MAX_TOKENS`` tokens the model is on sdpa.
    """
    if not getattr(type(model), "_supports_sdpa", False) or not hasattr(model, "set_attn_implementation"):
        return
    wanted = "eager" if bf16 and tokens <= EAGER_ATTENTION_MAX_TOKENS else "sdpa"
    if model.config._attn_implementation != wanted:
        model.set_attn_implementation(wanted)


def epoch_schedule(
    train: list[NLIExample], copies: list[NLIExample], epochs: int, context_epochs: int
) -> list[list[NLIExample]]:
    """The pairs of each epoch: ``train`` alone, and ``train`` + ``copies`` in the last ``context_epochs``."""
    plain = _plain_epochs(epochs, context_epochs) if copies else epochs
    return [train if epoch < plain else train + copies for epoch in range(epochs)]


def _plain_epochs(epochs: int, context_epochs: int) -> int:
    """How many epochs come before the ``context_epochs`` last ones (which add the copies)."""
    return epochs - min(max(context_epochs, 0), epochs)


def candidate_epochs(epochs: int, context_epochs: int, with_copies: bool) -> list[int]:
    """The epochs (1-based) whose model may be kept: those trained on the last epoch's mix of pairs.

    With copies, an earlier epoch has not seen a segment yet; it is never the better checker for segments, and
    keeping it would undo the curriculum. Without copies every epoch is a candidate.
    """
    first = _plain_epochs(epochs, context_epochs) + 1 if with_copies and context_epochs > 0 else 1
    return list(range(first, epochs + 1))


def resolve_precision(precision: str) -> str:
    """``fp32`` or ``bf16`` training arithmetic; ``auto`` picks bf16 where the CPU has native bf16 (AVX512-BF16 / AMX).

    bf16 autocast keeps fp32 master weights and optimizer state; only matrix products run in bf16.
    """
    import torch

    if precision not in ("auto", "fp32", "bf16"):
        raise ValueError("precision must be auto, fp32 or bf16")
    if precision != "auto":
        return precision
    return "bf16" if torch.backends.mkldnn.is_available() and torch.ops.mkldnn._is_mkldnn_bf16_supported() else "fp32"


def save_cross_encoder(model: CrossEncoderModel, folder: Path, weights: str = "fp16") -> None:
    """Write the tokenizer and the weights in fp16 safetensors, or ``int8`` (per-row int8 matrices, a quarter of
    fp32; :mod:`factscope.checkers.int8_weights`); both are read back as fp32."""
    if weights == "int8":
        save_int8_model(model.model, model.tokenizer, folder)
        return
    folder.mkdir(parents=True, exist_ok=True)
    half = copy.deepcopy(model.model).half()
    half.save_pretrained(str(folder), safe_serialization=True)
    model.tokenizer.save_pretrained(str(folder))


def _floats(losses: list) -> list[float]:
    """Step losses (tensors, or floats read back from a checkpoint) as floats."""
    return [float(loss) for loss in losses]


def _linear_schedule(step: int, warmup_steps: int, total_steps: int) -> float:
    """Learning-rate factor: linear rise over the warm-up, then linear decay to 0 at the last step."""
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    return max(0.0, (total_steps - step) / max(1, total_steps - warmup_steps))


def _length_bucketed_batches(lengths: np.ndarray, batch_size: int, rng: np.random.Generator) -> list[list[int]]:
    """Shuffle, cut into chunks of 50 batches, sort each chunk by length (tokens), batch it, shuffle the batches."""
    order = rng.permutation(len(lengths))
    chunk = batch_size * 50
    batches: list[list[int]] = []
    for start in range(0, len(order), chunk):
        part = sorted(order[start : start + chunk].tolist(), key=lambda i: lengths[i])
        batches.extend(part[i : i + batch_size] for i in range(0, len(part), batch_size))
    rng.shuffle(batches)
    return batches
