"""A model card for a trained checker, written from its manifest and its training sets' licences.

A checker shared with others should say what it is, what it was trained on and under which terms, and how well it
did; ``train-checker`` records all of that in ``manifest.json``. ``checker_card`` renders it as Markdown, the form a
package index shows. A training set's licence is read from ``NAME.meta.json`` beside the set's file (the
convention of the public sets factscope's benchmarks use, which holds a ``licence`` field); a set without one is
marked so that whoever publishes the checker fills it in. The held-out figures come from the held-out groups of the
training sets themselves, so the card says that they are in-domain.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from factscope.checkers.embedded import MANIFEST, read_manifest
from factscope.hf.embedded import PACKAGED_ENCODER
from factscope.hf.packaged_mpnet import PACKAGED_MPNET

PACKAGED_BASES = {
    PACKAGED_ENCODER: "all-MiniLM-L6-v2 (the copy on PyPI, packaged-minilm)",
    PACKAGED_MPNET: "all-mpnet-base-v2 (the copy on PyPI, packaged-mpnet)",
}
"""The model behind each packaged encoder name a manifest can record."""

UNKNOWN_TERMS = "not recorded: name the set's licence before publishing"
"""The terms shown for a training set whose licence the card cannot find."""


def checker_card(folder: str | Path, name: str) -> str:
    """The Markdown model card of the checker in ``folder`` published as ``name``.

    A factscope checker's card is built from its manifest; a Hugging Face model folder's is its own ``README.md``
    when it has one, else a short card saying that the model's own terms apply."""
    source = Path(folder)
    manifest_path = source / MANIFEST
    if not manifest_path.is_file():
        readme = source / "README.md"
        if readme.is_file():
            return readme.read_text(encoding="utf-8")
        return (
            f"# factscope checker '{name}'\n\nA Hugging Face NLI classifier packed by `factscope package-checker`. "
            "Its training data and terms are those of the model it was copied from.\n"
        )
    manifest = read_manifest(manifest_path)
    parts = [
        f"# Model card: factscope checker '{name}'",
        (
            f"Install this package and pass `--checker {name}` to any factscope command. It labels a (reference "
            "window, claim) pair as Entailment, Neutral or Contradiction."
        ),
        _what_it_is(manifest),
        _training_data(manifest),
        _procedure(manifest),
        _held_out(manifest),
    ]
    return "\n\n".join(part for part in parts if part) + "\n"


def training_set_terms(path: str | Path) -> str | None:
    """The licence recorded for the training set at ``path`` in ``NAME.meta.json`` beside it, if there is one."""
    meta = Path(path).with_suffix(".meta.json")
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    licence = (data.get("licence") or data.get("license")) if isinstance(data, dict) else None
    return str(licence) if licence else None


def _what_it_is(manifest: dict[str, Any]) -> str:
    encoder = manifest.get("encoder")
    base = "not recorded"
    if isinstance(encoder, str) and encoder:
        base = PACKAGED_BASES.get(encoder, Path(encoder).name)
    method = {"finetune": "a fine-tuned cross-encoder", "repc": "a RepC head over a frozen encoder"}.get(
        str(manifest.get("method")), str(manifest.get("method"))
    )
    rows = [("Architecture", method), ("Base encoder", base)]
    inference = manifest.get("inference")
    if isinstance(inference, dict) and inference.get("window_sentences"):
        low = inference.get("min_window_sentences", inference["window_sentences"])
        rows.append(("Reads a reference as", f"windows of {low} to {inference['window_sentences']} sentences"))
    if manifest.get("inference_max_length"):
        rows.append(("Longest input", f"{manifest['inference_max_length']} tokens"))
    if isinstance(manifest.get("label_order"), list):
        rows.append(("Output", "probabilities of " + ", ".join(map(str, manifest["label_order"]))))
    table = "\n".join(f"| {key} | {value} |" for key, value in rows)
    return f"## What it is\n\n| | |\n|---|---|\n{table}"


def _training_data(manifest: dict[str, Any]) -> str:
    training = manifest.get("training")
    data = training.get("data") if isinstance(training, dict) else None
    if not isinstance(data, list) or not data:
        return "## Training data\n\nNot recorded in the manifest: describe it here before publishing."
    rows = []
    for item in data:
        if not isinstance(item, dict):
            continue
        path = str(item.get("path", "?"))
        terms = training_set_terms(path) or UNKNOWN_TERMS
        rows.append(f"| {Path(path).stem} | {item.get('pairs', '?')} | {terms} | `{str(item.get('sha256', ''))[:16]}` |")
    return (
        "## Training data\n\nThe training sets are not part of this package; each is named with the first digits of "
        "its file's SHA-256. The data's own terms apply to the checker.\n\n"
        "| set | pairs in the file | terms | sha256 |\n|---|---|---|---|\n" + "\n".join(rows)
    )


def _procedure(manifest: dict[str, Any]) -> str:
    finetune = manifest.get("finetune")
    training = manifest.get("training") if isinstance(manifest.get("training"), dict) else {}
    facts = []
    if isinstance(finetune, dict):
        for key, label in (
            ("epochs", "epochs"),
            ("learning_rate", "learning rate"),
            ("batch_size", "batch size"),
            ("max_length", "longest training input"),
            ("weights", "stored weights"),
        ):
            if key in finetune:
                facts.append(f"{label}: {finetune[key]}")
    if isinstance(training, dict):
        if "n_train" in training:
            facts.append(f"training pairs: {training['n_train']}")
        if training.get("max_per_set"):
            facts.append(f"at most {training['max_per_set']} pairs a set")
        context = training.get("long_context")
        if isinstance(context, dict) and context.get("share"):
            facts.append(f"share of pairs with their evidence placed inside longer text: {context['share']}")
    if not facts:
        return ""
    return "## Training procedure\n\n" + "\n".join(f"- {fact}" for fact in facts)


def _held_out(manifest: dict[str, Any]) -> str:
    by_set = manifest.get("held_out_by_set")
    if not isinstance(by_set, dict) or not by_set:
        return ""
    rows = [
        f"| {name} | {figures.get('n', '?')} | {figures['balanced_accuracy']:.3f} |"
        for name, figures in sorted(by_set.items())
        if isinstance(figures, dict) and isinstance(figures.get("balanced_accuracy"), (int, float))
    ]
    if not rows:
        return ""
    return (
        "## Evaluation\n\nBalanced accuracy of Entailment against the rest on the held-out groups of the training "
        "sets. These are in-domain figures: they say how well the checker learned its sets, not how it does on "
        "yours. Measure that with `factscope eval-checker` on labelled pairs it never saw.\n\n"
        "| set | pairs | balanced accuracy |\n|---|---|---|\n" + "\n".join(rows)
    )
