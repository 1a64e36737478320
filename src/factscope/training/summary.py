"""A training run's figures as the rows of its summary table: the method and members, the split, the held-out
and validation figures, the class-bias and cue checks, and the time taken."""

from __future__ import annotations

from typing import Any

from factscope.training.train import TrainResult


def summary_rows(result: TrainResult) -> list[tuple[str, object]]:
    """(name, figure) rows of a training run, in the order the summary table shows them."""
    manifest = result.manifest
    training = manifest["training"]
    rows: list[tuple[str, object]] = [("method", manifest["method"])]
    if "finetune" in manifest:
        seeds = [member["seed"] for member in manifest["finetune"]["members"]]
        rows.append(("members (training seeds)", f"{len(seeds)} ({', '.join(map(str, seeds))})"))
    if "teacher" in training:
        rows.append(("teacher (share of the loss)", f"{training['teacher']['path']} ({training['teacher']['weight']})"))
    rows += [
        ("train / validation / test pairs", f"{training['n_train']} / {training['n_validation']} / {training['n_test']}"),
        ("held-out accuracy", result.test.accuracy),
        ("held-out macro-F1", result.test.macro_f1),
    ]
    rows += [(f"held-out F1 {name}", value) for name, value in result.test.per_class_f1.items()]
    rows.append(("held-out macro-F1, premise inside a segment", manifest["held_out_in_context"]["macro_f1"]))
    rows.append(("held-out hypotheses against unrelated segments: Neutral share", _neutral_share(manifest)))
    rows.append(("validation macro-F1", result.validation.macro_f1))
    for name, figures in manifest["held_out_by_set"].items():
        rows.append((f"held-out {name}: balanced accuracy", figures["balanced_accuracy"]))
        if "macro_f1" in figures:
            rows.append((f"held-out {name}: 3-way macro-F1", figures["macro_f1"]))
    check = manifest.get("class_bias_check")
    if check is not None:
        rows.append(("class biases: validation macro-F1 without / with (5-fold)",
                     f"{check['score_without']:.4f} / {check['score_with']:.4f}"))
        rows.append(("class biases kept", check["kept"]))
    if result.cue_figures is not None:
        rows.append(("held-out macro-F1 without cues", result.cue_figures["held_out_without_cues"]["macro_f1"]))
        rows.append(("held-out macro-F1 with cues", result.cue_figures["held_out_with_cues"]["macro_f1"]))
        rows.append(("cues kept", result.cue_figures["kept"]))
    rows.append(("training seconds", training["seconds"]))
    return rows


def _neutral_share(manifest: dict[str, Any]) -> Any:
    """The share of held-out hypotheses judged Neutral (a 2-way checker: not-entailment) against unrelated
    segments."""
    shares = manifest["held_out_unrelated_labels"]
    return shares.get("neutral", shares.get("not_entailment", 0.0))
