"""Leave-one-family-out: how a checker recipe generalises to kinds of claims and evidence it never trained on.

For each family of the development data (`claim_families.FAMILIES`) and each recipe, a checker is fine-tuned
from the same base on the shippable sets of the other families (train groups only), then scored on a seeded
sample of the left-out family's test groups, every set of the family included (non-shippable ones too: they
are evaluated, never trained on). Each sample pair is scored in several layouts:

- ``whole``: the reference as one input (cut at 320 tokens);
- ``seg200``: 200-token segments, RefChecker's merge (any Entailment wins) for the label, the highest
  P(Entailment) as the score;
- ``win1`` / ``win2`` / ``win3``: windows of 1, 2 or 3 consecutive sentences (stride one sentence), the highest
  P(Entailment) as the score, Entailment when it reaches 0.5;
- ``win12``: the windows of 1 and of 2 sentences together (computed from ``win1`` and ``win2``, no extra scoring).

``--layouts`` scores fewer layouts (``win12`` needs ``win1`` and ``win2``); a family's figures hold the layouts
scored for it, and the summary averages each layout over the families that have it.

Figures per family: balanced accuracy of Entailment vs not, and AUROC of the score. The MiniLM cosine floor
(claim against the whole reference, and the best single sentence) is measured on the same samples; its
threshold for balanced accuracy is chosen on the other families' samples, never on the family itself.

Results go to ``benchmarks/results/leave_one_family_out.json`` after every (recipe, family), each fold with the
machine that ran it and its seconds (``fit_seconds``: making the training pairs, ``prepare_seconds`` of it, and
fine-tuning; ``score_seconds``), and a rerun continues where it stopped. The window scores of each run are kept
in ``--scores`` for aggregation studies, with the protocol in its ``protocol.json`` (a folder holding another
base's or sample's scores is refused). With ``--checkpoints``, a fold's training writes a checkpoint every 100
batches, and a fold cut off mid-training (a CPU fold of a base-sized encoder takes hours) continues from it; such
a fold says ``resumed_from_checkpoint``, and its ``fit_seconds`` count the last run only. A rerun refuses a
results file made from another base (a digest of its weights and vocabulary), test sample or recipe
definition. Each fold prints a line as it starts training, about ten while it trains (pairs and their rate) and
one as it scores, so a run in the background shows where it is.

    python benchmarks/leave_one_family_out.py --base DIR --recipes windows segments --per-family 120

On a GPU (``--device cuda``) the whole protocol of several recipes takes minutes; ``--max-minutes`` stops
starting new folds after that long, and a rerun continues.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from claim_families import FAMILIES, PAIR_SETS, default_data_dir
from results_file import machine

from factscope.checkers.embedded import CrossEncoderModel, files_digest
from factscope.core.text import segment_spans, sentence_spans
from factscope.evaluation.splits import part_of
from factscope.hf.embedded import resolve_encoder
from factscope.metrics.classification import auroc, balanced_accuracy
from factscope.training.finetune import FinetuneConfig, finetune_cross_encoder
from factscope.training.focus import focus_examples
from factscope.training.long_context import context_copies, unrelated_copies
from factscope.training.lora import merged
from factscope.training.nli_data import NLIExample, load_training_mix

RESULTS = Path(__file__).resolve().parent / "results" / "leave_one_family_out.json"
LAYOUTS = ("whole", "seg200", "win1", "win2", "win3", "win12")
SCORED_LAYOUTS = ("whole", "seg200", "win1", "win2", "win3")
NEUTRAL = 1
SCORES_PROTOCOL = "protocol.json"
"""The file in a ``--scores`` folder that records the protocol its scores were made under."""


@dataclass(frozen=True)
class Recipe:
    """How the training pairs are made: focus windows, copies inside other text, per-set budget, schedule."""

    name: str
    focus_words: int
    long_context: float
    context_words: int
    unrelated: float
    pairs: int = 0
    per_set: int | None = None
    epochs: int = 1
    learning_rate: float = 5e-5
    lora_rank: int = 0

    def share(self, sets: int) -> int:
        """Train pairs taken from each of ``sets`` sets: ``per_set``, else ``pairs`` spread evenly."""
        return self.per_set if self.per_set is not None else self.pairs // sets


RECIPES = {
    "segments": Recipe("segments", focus_words=100, long_context=0.0, context_words=150, unrelated=0.05, pairs=1200),
    "windows": Recipe("windows", focus_words=40, long_context=0.3, context_words=100, unrelated=0.15, pairs=1200),
    "pool": Recipe("pool", focus_words=40, long_context=0.3, context_words=100, unrelated=0.15, pairs=12000),
    "cap3000": Recipe("cap3000", focus_words=40, long_context=0.3, context_words=100, unrelated=0.15, per_set=3000),
    "cap3000x3": Recipe(
        "cap3000x3", focus_words=40, long_context=0.3, context_words=100, unrelated=0.15, per_set=3000, epochs=3
    ),
    "pool_lora": Recipe(
        "pool_lora", focus_words=40, long_context=0.3, context_words=100, unrelated=0.15, pairs=12000,
        learning_rate=5e-4, lora_rank=16,
    ),
    "pool_lora_e2": Recipe(
        "pool_lora_e2", focus_words=40, long_context=0.3, context_words=100, unrelated=0.15, pairs=12000,
        epochs=2, learning_rate=5e-4, lora_rank=16,
    ),
    "pool_lora_r32": Recipe(
        "pool_lora_r32", focus_words=40, long_context=0.3, context_words=100, unrelated=0.15, pairs=12000,
        learning_rate=5e-4, lora_rank=32,
    ),
    "pool_lora_lr1e3": Recipe(
        "pool_lora_lr1e3", focus_words=40, long_context=0.3, context_words=100, unrelated=0.15, pairs=12000,
        learning_rate=1e-3, lora_rank=16,
    ),
    "all": Recipe("all", focus_words=40, long_context=0.3, context_words=100, unrelated=0.15, per_set=10**9),
}


def load_pool(data_dir: Path) -> dict[str, list[NLIExample]]:
    """Every set's pairs on the 3-way scheme (2-way sets' negatives as not_entailment), by set name."""
    paths = [data_dir / s.path for s in PAIR_SETS]
    datasets, _ = load_training_mix(paths)
    return {path.stem: [replace(e, source=path.stem) for e in d.examples] for path, d in zip(paths, datasets)}


def training_pairs(
    pool: dict[str, list[NLIExample]], left_out: str, recipe: Recipe, seed: int
) -> tuple[list[NLIExample], list[NLIExample]]:
    """The recipe's pairs from the train groups of the shippable sets outside ``left_out``, and their copies
    inside other text (trained on in the last epoch, as `train-checker` does)."""
    sets = [s.name for s in PAIR_SETS if s.shippable and s.family != left_out]
    share = recipe.share(len(sets))
    rng = random.Random(seed)
    chosen: list[NLIExample] = []
    for name in sets:
        train = [e for e in pool[name] if part_of(e.group) == "train"]
        chosen += train if len(train) <= share else rng.sample(train, share)
    chosen = focus_examples(chosen, recipe.focus_words)
    short = [e for e in chosen if len(e.premise.split()) <= recipe.context_words]
    copies = context_copies(short, recipe.long_context, recipe.context_words, seed + 1)
    copies += unrelated_copies(short, recipe.unrelated, recipe.context_words, seed + 2, NEUTRAL)
    return chosen, copies


def test_sample(pool: dict[str, list[NLIExample]], family: str, per_family: int, seed: int) -> list[NLIExample]:
    """A seeded sample of the family's test groups, spread evenly over its sets."""
    sets = [s.name for s in PAIR_SETS if s.family == family]
    rng = random.Random(seed)
    share = max(1, per_family // len(sets))
    sample: list[NLIExample] = []
    for name in sets:
        test = [e for e in pool[name] if part_of(e.group) == "test"]
        sample += test if len(test) <= share else rng.sample(test, share)
    return sample


def windows(premise: str, size: int) -> list[str]:
    """Every run of ``size`` consecutive sentences (the whole premise when it has fewer)."""
    spans = sentence_spans(premise) or []
    if len(spans) <= size:
        return [premise]
    return [premise[spans[i].start : spans[i + size - 1].end] for i in range(len(spans) - size + 1)]


def layout_inputs(premise: str, count_tokens, layouts: tuple[str, ...] = SCORED_LAYOUTS) -> dict[str, list[str]]:
    """The premises each of ``layouts`` scores for one pair."""
    inputs: dict[str, list[str]] = {}
    if "whole" in layouts:
        inputs["whole"] = [premise]
    if "seg200" in layouts:
        inputs["seg200"] = [premise[s.start : s.end] for s in segment_spans(premise, count_tokens, 200)] or [premise]
    for size in (1, 2, 3):
        if f"win{size}" in layouts:
            inputs[f"win{size}"] = windows(premise, size)
    return inputs


def score_sample(
    model: CrossEncoderModel, sample: list[NLIExample], layouts: tuple[str, ...] = SCORED_LAYOUTS
) -> list[dict[str, list[list[float]]]]:
    """Per pair and layout, the 3-way probabilities of every input of the layout."""
    tokenizer = model.tokenizer

    def count_tokens(text: str) -> int:
        return len(tokenizer.tokenize(text))

    per_pair = [layout_inputs(e.premise, count_tokens, layouts) for e in sample]
    premises, hypotheses = [], []
    for e, inputs in zip(sample, per_pair):
        for texts in inputs.values():
            premises += texts
            hypotheses += [e.hypothesis] * len(texts)
    probs = model.probs(premises, hypotheses)
    scored, k = [], 0
    for inputs in per_pair:
        row = {}
        for layout, texts in inputs.items():
            row[layout] = probs[k : k + len(texts)].tolist()
            k += len(texts)
        scored.append(row)
    return scored


def layout_decision(layout: str, probs: np.ndarray) -> tuple[float, bool]:
    """The layout's score (highest P(Entailment)) and its Entailment decision."""
    score = float(probs[:, 0].max())
    if layout == "seg200":
        return score, bool((probs.argmax(axis=1) == 0).any())
    return score, score >= 0.5


def family_figures(sample: list[NLIExample], scored: list[dict]) -> dict:
    """Balanced accuracy and AUROC per layout, overall and per set."""
    gold = np.array([e.label == 0 for e in sample])
    figures: dict = {"n": len(sample), "sets": sorted({e.source for e in sample})}
    if "win1" in scored[0] and "win2" in scored[0]:
        scored = [{**row, "win12": row["win1"] + row["win2"]} for row in scored]
    for layout in [name for name in LAYOUTS if name in scored[0]]:
        decided = [layout_decision(layout, np.array(row[layout])) for row in scored]
        scores = np.array([d[0] for d in decided])
        labels = np.array([d[1] for d in decided])
        figures[layout] = {
            "balanced_accuracy": balanced_accuracy(gold.tolist(), labels.tolist()),
            "auroc": auroc(gold.tolist(), scores.tolist()),
            "inputs_per_pair": float(np.mean([len(row[layout]) for row in scored])),
        }
    return figures


def cosine_floor(pool, samples: dict[str, list[NLIExample]]) -> dict:
    """MiniLM cosine of claim and reference (whole, best sentence): AUROC per family, and balanced accuracy at
    the threshold that is best on the other families' samples."""
    from factscope.hf.encoders import BiEncoder

    encoder = BiEncoder()
    scores: dict[str, dict[str, np.ndarray]] = {}
    for family, sample in samples.items():
        whole = encoder.cosine([e.premise for e in sample], [e.hypothesis for e in sample])
        best = []
        for e in sample:
            sentences = windows(e.premise, 1)
            best.append(float(encoder.cosine(sentences, [e.hypothesis] * len(sentences)).max()))
        scores[family] = {"whole": np.asarray(whole), "best_sentence": np.asarray(best)}
    floor: dict = {}
    for family, sample in samples.items():
        gold = np.array([e.label == 0 for e in sample])
        floor[family] = {}
        for kind in ("whole", "best_sentence"):
            others_gold = np.concatenate([[e.label == 0 for e in samples[f]] for f in samples if f != family])
            others = np.concatenate([scores[f][kind] for f in samples if f != family])
            threshold = max(np.unique(others), key=lambda t: balanced_accuracy(others_gold.tolist(), (others >= t).tolist()))
            floor[family][kind] = {
                "auroc": auroc(gold.tolist(), scores[family][kind].tolist()),
                "balanced_accuracy": balanced_accuracy(gold.tolist(), (scores[family][kind] >= threshold).tolist()),
                "threshold_from_other_families": float(threshold),
            }
    return floor


def summarise(results: dict) -> dict:
    """Mean over families of each recipe and layout (only recipes with every family done)."""
    summary: dict = {}
    for name, by_family in results["recipes"].items():
        if len(by_family) < len(FAMILIES):
            continue
        summary[name] = {
            layout: {
                metric: float(np.mean([by_family[f]["figures"][layout][metric] for f in FAMILIES]))
                for metric in ("balanced_accuracy", "auroc")
            }
            for layout in LAYOUTS
            if all(layout in by_family[f]["figures"] for f in FAMILIES)
        }
    floor = results.get("cosine_floor")
    if floor:
        summary["cosine"] = {
            kind: {
                metric: float(np.mean([floor[f][kind][metric] for f in FAMILIES]))
                for metric in ("balanced_accuracy", "auroc")
            }
            for kind in ("whole", "best_sentence")
        }
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--base", required=True,
        help="checker or encoder (HF folder, or packaged-mpnet) every recipe is fine-tuned from",
    )
    parser.add_argument("--data", type=Path, default=default_data_dir())
    parser.add_argument("--recipes", nargs="+", default=list(RECIPES), choices=list(RECIPES) + ["base"])
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=FAMILIES)
    parser.add_argument("--per-family", type=int, default=120, help="test pairs sampled per left-out family")
    parser.add_argument("--layouts", nargs="+", default=list(SCORED_LAYOUTS), choices=SCORED_LAYOUTS)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="where to train and score")
    parser.add_argument("--max-minutes", type=float, default=None, help="start no new fold after this long")
    parser.add_argument("--scores", type=Path, default=None, help="folder for the per-pair window scores")
    parser.add_argument(
        "--checkpoints", type=Path, default=None,
        help="folder for each fold's training checkpoints: an interrupted fold continues from its last one",
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    started_run = time.perf_counter()
    batch_size = 256 if args.device == "cuda" else 64
    pool = load_pool(args.data)
    samples = {family: test_sample(pool, family, args.per_family, args.seed) for family in FAMILIES}
    args.base = resolve_encoder(args.base)
    if not Path(args.base).is_dir():
        sys.exit(f"--base {args.base}: not a folder; pass the Hugging Face folder of the encoder to fine-tune")
    base_digest = weights_digest(Path(args.base))
    results = json.loads(args.out.read_text()) if args.out.exists() else {}
    results.setdefault("recipes", {})
    protocol = {
        "base": args.base,
        "base_digest": base_digest,
        "per_family": args.per_family,
        "seed": args.seed,
        "families": {f: [s.name for s in PAIR_SETS if s.family == f] for f in FAMILIES},
        "trained_on": "train groups of the shippable sets outside the left-out family",
        "evaluated_on": "a seeded sample of the left-out family's test groups (every set of the family)",
        "recipes": {name: asdict(recipe) for name, recipe in RECIPES.items()},
    }
    if "protocol" in results:
        refuse_other_protocol(args.out, results["protocol"], protocol, args.recipes)
    if args.scores is not None:
        claim_scores_folder(args.scores, protocol, args.recipes)
    results["protocol"] = protocol
    if "cosine_floor" not in results:
        results["cosine_floor"] = cosine_floor(pool, samples)
        _write(args.out, results)
    for name in args.recipes:
        done = results["recipes"].setdefault(name, {})
        for family in args.families:
            if family in done:
                continue
            if args.max_minutes is not None and time.perf_counter() - started_run > 60 * args.max_minutes:
                print(f"stopping: --max-minutes {args.max_minutes} reached; a rerun continues", flush=True)
                break
            started = time.perf_counter()
            if name == "base":
                model = CrossEncoderModel.from_pretrained(
                    args.base, batch_size=batch_size, max_length=320, device=args.device
                )
                trained, prepared, resumed, checkpoint = 0, 0.0, False, None
            else:
                recipe = RECIPES[name]
                pairs, copies = training_pairs(pool, family, recipe, args.seed)
                prepared = time.perf_counter() - started
                checkpoint = fold_checkpoint(args.checkpoints, name, family, base_digest)
                resumed = checkpoint is not None and checkpoint.exists()
                config = FinetuneConfig(
                    epochs=recipe.epochs, learning_rate=recipe.learning_rate, max_length=320, seed=args.seed,
                    threads=args.threads, device=args.device,
                    checkpoint=checkpoint, lora_rank=recipe.lora_rank,
                )
                classes = ("entailment", "neutral", "contradiction")
                total = recipe.epochs * len(pairs) + len(copies)
                print(f"{name} / {family}: training on {total} pairs" + (" (resumed)" if resumed else ""), flush=True)
                result = finetune_cross_encoder(
                    args.base, pairs, pairs[:8], classes, config,
                    on_step=training_progress(f"{name} / {family}", total), context_copies=copies,
                )
                trained_model = merged(result.model.model) if recipe.lora_rank else result.model.model
                model = CrossEncoderModel(
                    trained_model, result.model.tokenizer, batch_size=batch_size, max_length=320,
                    device=args.device,
                )
                trained = len(pairs) + len(copies)
            fitted = time.perf_counter() - started
            print(f"{name} / {family}: scoring {len(samples[family])} test pairs", flush=True)
            scored = score_sample(model, samples[family], tuple(args.layouts))
            if args.scores is not None:
                rows = [
                    {"source": e.source, "label": e.label, "probs": row} for e, row in zip(samples[family], scored)
                ]
                (args.scores / f"{name}.{family.replace(' ', '_')}.json").write_text(json.dumps(rows))
            done[family] = {
                "figures": family_figures(samples[family], scored),
                "training_pairs": trained,
                "fit_seconds": round(fitted, 1),
                "prepare_seconds": round(prepared, 1),
                "resumed_from_checkpoint": resumed,
                "score_seconds": round(time.perf_counter() - started - fitted, 1),
                "machine": machine(),
            }
            results["summary"] = summarise(results)
            _write(args.out, results)
            if checkpoint is not None:
                checkpoint.unlink(missing_ok=True)
            print(name, family, json.dumps({k: v for k, v in done[family]["figures"].items() if k in LAYOUTS}), flush=True)
    results["summary"] = summarise(results)
    _write(args.out, results)
    print(json.dumps(results["summary"], indent=2))


WEIGHTS_AND_VOCABULARY = ("*.safetensors", "*.bin", "tokenizer.json", "vocab.txt", "*.model")
"""The files of a base folder that decide what it computes; configs are left out, since they also hold metadata
(the transformers version that wrote them, loading flags) that differs between copies of the same model."""


def weights_digest(folder: Path) -> str:
    """``sha256:`` and 16 hex digits over the base folder's weights and vocabulary files, in name order."""
    files = list({path for pattern in WEIGHTS_AND_VOCABULARY for path in folder.glob(pattern)})
    if not any(path.suffix in (".safetensors", ".bin") for path in files):
        sys.exit(f"--base {folder}: no weights (*.safetensors or *.bin) in the folder")
    return files_digest(folder, files)


def refuse_other_protocol(
    path: Path, recorded: dict, current: dict, recipes: list[str], option: str = "--out"
) -> None:
    """Stop when ``path`` (given by ``option``) holds folds from another base, test sample or recipe definition:
    they would not compare."""
    differing = [key for key in ("base_digest", "per_family", "seed") if recorded.get(key) != current[key]]
    differing += [
        f"recipe '{name}'"
        for name in recipes
        if name in recorded.get("recipes", {}) and recorded["recipes"][name] != current["recipes"].get(name)
    ]
    if differing:
        sys.exit(
            f"{path} holds folds made with another {', '.join(differing)} (recorded under 'protocol'); "
            f"pass another {option} to start a new one, or the settings it was made with to continue it"
        )


def claim_scores_folder(folder: Path, protocol: dict, recipes: list[str]) -> None:
    """Record the protocol in the ``--scores`` folder (``protocol.json``), or stop when the folder holds scores
    made under another: one folder's files must come from one base and one test sample."""
    marker = folder / SCORES_PROTOCOL
    if marker.is_file():
        recorded = json.loads(marker.read_text(encoding="utf-8"))
        refuse_other_protocol(folder, recorded, protocol, recipes, option="--scores")
    folder.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps(protocol, indent=2) + "\n", encoding="utf-8")


def training_progress(label: str, total: int, lines: int = 10) -> Callable[[int], None]:
    """An ``on_step`` that prints about ``lines`` lines over a fold's training: pairs trained of ``total`` (a
    resumed fold's first call counts the pairs its checkpoint holds) and the rate since that first call."""
    trained, next_line, first = 0, total / lines, None

    def on_step(count: int) -> None:
        nonlocal trained, next_line, first
        trained += count
        if first is None:
            first = (time.perf_counter(), trained)
        if trained >= next_line:
            seconds = max(time.perf_counter() - first[0], 1e-9)
            print(f"{label}: {trained} of {total} pairs trained, {(trained - first[1]) / seconds:.1f} a second",
                  flush=True)
            while next_line <= trained:
                next_line += total / lines

    return on_step


def fold_checkpoint(folder: Path | None, recipe: str, family: str, base_digest: str) -> Path | None:
    """The file in which the fold of ``recipe`` without ``family`` from the base of ``base_digest`` keeps its
    training checkpoint (none without a folder)."""
    if folder is None:
        return None
    return folder / f"{recipe}.{family.replace(' ', '_')}.{base_digest.removeprefix('sha256:')}"


def _write(path: Path, results: dict) -> None:
    results["machine"] = machine()
    results["date"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
