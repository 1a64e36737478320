"""Which presence model of `factscope ground` separates faithful from counterfactual facts, and at which threshold.

Evaluation data (never copied into the repository):

- SummEdits (``--summedits``, the ``{premise, hypothesis, label, group}`` JSONL of the claims data): each group is
  one document (300-1,500 words) with consistent summaries and minimally edited inconsistent ones. The sentences
  of the consistent summaries are faithful facts; of an inconsistent summary, the one sentence found in no
  consistent summary of the document is a counterfactual fact (summaries where more than one sentence differs
  are left out: a paraphrased sentence cannot be told from the edited one).
- The counterfactual pairs (``--pairs``, default ``benchmarks/data/counterfactual_pairs.jsonl`` when present):
  each premise is a context, its entailed hypotheses faithful facts and the others counterfactual.

Groups are split by ``factscope.evaluation.splits.part_of(group)``: each model's threshold is the one that
maximises balanced accuracy (faithful vs counterfactual) on the validation groups of both sets pooled, and the
figures are measured on the test groups: balanced accuracy and AUROC over facts, and the mean grounding precision
(share of facts judged present) of a response made only of a document's faithful facts and of one made only of
its counterfactual facts. Models: ``bi`` (cosine of the packaged MiniLM, best window), ``nli:CHECKER`` (P(Entailment)
of the checker, best window), and ``bi-top{k}+nli:CHECKER`` (P(Entailment) of the checker over the k windows
with the highest cosine only), all on windows of ``--window`` sentences, stride 1.

The checker reads every (fact, window) pair, about 25 windows per SummEdits document: the cost grows with
``--limit`` x ``--facts``. ``--cache DIR`` keeps each document's scores, so a run can be widened or resumed.

``--shortlist K`` has the checker read only each fact's K windows of highest cosine: the ``bi-top{k}`` models
for k <= K are measured exactly, at a fraction of the cost, and the checker-on-every-window model is left out.

    HF_HUB_OFFLINE=1 python benchmarks/presence_models.py --limit 3 --facts 3 --cache /tmp/presence_cache
    HF_HUB_OFFLINE=1 python benchmarks/presence_models.py --shortlist 3 --limit 13 --facts 4 \
        --out benchmarks/results/presence_models_shortlist.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from results_file import add_out_option, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")

REPO = Path(__file__).resolve().parent.parent
SUMMEDITS = Path("/work/shared/data/claims/summedits.jsonl")
PAIRS = REPO / "benchmarks" / "data" / "counterfactual_pairs.jsonl"
PARTS = ("validation", "test")


@dataclass
class Document:
    """One context with the faithful and counterfactual facts stated about it."""

    dataset: str
    group: str
    part: str
    context: str
    faithful: list[str]
    counterfactual: list[str]


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _sample(items: list[str], count: int, seed: str) -> list[str]:
    """At most ``count`` of ``items``, the same ones on every run."""
    chosen = list(items)
    random.Random(seed).shuffle(chosen)
    return chosen[:count]


def summedits_documents(path: Path, limit: int, facts: int) -> list[Document]:
    """SummEdits documents of the validation and test parts, at most ``limit`` per part, ``facts`` per class."""
    from factscope.core.text import split_sentences
    from factscope.evaluation.splits import part_of

    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in _read_jsonl(path):
        groups[row["group"]].append(row)
    documents: list[Document] = []
    taken: dict[str, int] = defaultdict(int)
    for group in sorted(groups):
        part = part_of(group)
        if part not in PARTS or taken[part] >= limit:
            continue
        rows = groups[group]
        faithful = list(dict.fromkeys(
            s for r in rows if r["label"] == "entailment" for s in split_sentences(r["hypothesis"])
        ))
        known = set(faithful)
        edited = []
        for row in rows:
            if row["label"] != "entailment":
                differing = [s for s in split_sentences(row["hypothesis"]) if s not in known]
                if len(differing) == 1:
                    edited.append(differing[0])
        counterfactual = list(dict.fromkeys(edited))
        if faithful and counterfactual:
            taken[part] += 1
            documents.append(Document(
                "summedits", group, part, rows[0]["premise"],
                _sample(faithful, facts, group), _sample(counterfactual, facts, group + "/edited"),
            ))
    return documents


def pair_documents(path: Path, limit: int) -> list[Document]:
    """The counterfactual pairs of the validation and test parts, at most ``limit`` groups per part, one document
    per (group, premise)."""
    from factscope.evaluation.splits import part_of

    rows = _read_jsonl(path)
    groups: dict[str, list[str]] = defaultdict(list)
    for group in sorted({row["group"] for row in rows}):
        groups[part_of(group)].append(group)
    chosen = {group for part in PARTS for group in groups[part][:limit]}
    by_premise: dict[tuple[str, str], Document] = {}
    for row in rows:
        part = part_of(row["group"])
        if row["group"] not in chosen:
            continue
        key = (row["group"], row["premise"])
        document = by_premise.setdefault(key, Document("counterfactual_pairs", row["group"], part, row["premise"], [], []))
        (document.faithful if row["label"] == "entailment" else document.counterfactual).append(row["hypothesis"])
    return list(by_premise.values())


@dataclass
class Scored:
    """Per-window scores of a document's facts: cosine and NLI, one row per fact (faithful first)."""

    document: Document
    cosine: np.ndarray
    nli: np.ndarray

    @property
    def gold(self) -> list[bool]:
        """True for a faithful fact."""
        return [True] * len(self.document.faithful) + [False] * len(self.document.counterfactual)


def score_documents(
    documents: Sequence[Document], checker: str, window: int, cache: Path | None, shortlist: int | None = None
) -> tuple[list[Scored], dict[str, float]]:
    """Cosine and NLI scores of every (fact, window) pair of every document, and the seconds each took.

    With ``cache``, each document's scores are kept there (keyed by the checker's description, its weights' digest
    and settings, and by window, context and facts), so an interrupted or widened run scores only what it has not
    scored yet; a retrained checker scores again; cached documents add no seconds. With
    ``shortlist``, the checker reads only each fact's ``shortlist`` windows of highest cosine (the others score NaN).
    """
    from factscope.checkers.registry import make_checker
    from factscope.core.files.manifest import describe
    from factscope.grounding.presence import BiEncoderPresence, NLIPresence, sentence_windows

    bi = BiEncoderPresence(window=window)
    model = make_checker(checker)
    nli = NLIPresence(model, window=window)
    described = describe(model)
    seconds = {"cosine": 0.0, "nli": 0.0}
    scored = []
    for number, document in enumerate(documents, start=1):
        windows = sentence_windows(document.context, window, 1)
        facts = document.faithful + document.counterfactual
        key = json.dumps([described, window, document.context, facts] + ([shortlist] if shortlist else []))
        stored = cache / (hashlib.sha256(key.encode("utf-8")).hexdigest()[:24] + ".npz") if cache else None
        if stored is not None and stored.exists():
            with np.load(stored) as arrays:
                scored.append(Scored(document, arrays["cosine"], arrays["nli"]))
            continue
        started = time.perf_counter()
        cosine = bi.encoder.encode(facts) @ bi.encoder.encode(windows).T
        seconds["cosine"] += time.perf_counter() - started
        started = time.perf_counter()
        read = np.ones(cosine.shape, dtype=bool)
        if shortlist:
            read[:] = False
            np.put_along_axis(read, np.argsort(-cosine, axis=1, kind="stable")[:, :shortlist], True, axis=1)
        entailment = np.full(cosine.shape, np.nan)
        rows, columns = np.nonzero(read)
        entailment[rows, columns] = nli.score_pairs([(facts[i], windows[j]) for i, j in zip(rows, columns)])
        seconds["nli"] += time.perf_counter() - started
        scored.append(Scored(document, np.asarray(cosine, dtype=np.float64), entailment))
        if stored is not None:
            stored.parent.mkdir(parents=True, exist_ok=True)
            np.savez(stored, cosine=scored[-1].cosine, nli=scored[-1].nli)
        print(f"{number}/{len(documents)} {document.dataset} {document.group}: {len(facts)} facts x "
              f"{len(windows)} windows ({seconds['nli']:.0f} s NLI so far)", file=sys.stderr, flush=True)
    return scored, seconds


def top_k_nli(k: int) -> Callable[[Scored], np.ndarray]:
    """P(Entailment) of each fact over its k windows of highest cosine."""

    def model(scored: Scored) -> np.ndarray:
        order = np.argsort(-scored.cosine, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(scored.nli, order, axis=1).max(axis=1)

    return model


def auroc(scores: Sequence[float], gold: Sequence[bool]) -> float:
    """Probability that a faithful fact outscores a counterfactual one (ties count one half)."""
    positives = np.array([s for s, g in zip(scores, gold) if g])
    negatives = np.array([s for s, g in zip(scores, gold) if not g])
    greater = (positives[:, None] > negatives[None, :]).sum()
    ties = (positives[:, None] == negatives[None, :]).sum()
    return float((greater + 0.5 * ties) / (len(positives) * len(negatives)))


def evaluate(
    scored: Sequence[Scored], model: Callable[[Scored], np.ndarray], threshold: float
) -> dict[str, Any]:
    """Balanced accuracy, AUROC and the mean precision of all-faithful and all-counterfactual responses (over the
    documents that have such facts)."""
    from factscope.metrics.classification import balanced_accuracy

    scores: list[float] = []
    gold: list[bool] = []
    faithful_precision, counterfactual_precision = [], []
    for item in scored:
        values = model(item)
        present = values >= threshold
        faithful_count = len(item.document.faithful)
        if faithful_count:
            faithful_precision.append(float(present[:faithful_count].mean()))
        if len(item.document.counterfactual):
            counterfactual_precision.append(float(present[faithful_count:].mean()))
        scores.extend(values.tolist())
        gold.extend(item.gold)
    return {
        "documents": len(scored),
        "faithful_facts": sum(gold),
        "counterfactual_facts": len(gold) - sum(gold),
        "balanced_accuracy": balanced_accuracy(gold, [s >= threshold for s in scores]),
        "auroc": auroc(scores, gold),
        "precision_all_faithful": float(np.mean(faithful_precision)),
        "precision_all_counterfactual": float(np.mean(counterfactual_precision)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--summedits", type=Path, default=SUMMEDITS, help="SummEdits JSONL of the claims data")
    parser.add_argument("--pairs", type=Path, default=PAIRS, help="counterfactual pairs JSONL (skipped if absent)")
    parser.add_argument("--checker", default="embedded", help="checker spec of the NLI models (default embedded)")
    parser.add_argument("--limit", type=int, default=6, help="groups per part (validation, test) of each set")
    parser.add_argument("--facts", type=int, default=6, help="facts per class per SummEdits document")
    parser.add_argument("--window", type=int, default=3, help="sentences per window")
    parser.add_argument("--cache", type=Path, help="folder keeping each document's scores for later runs")
    parser.add_argument(
        "--shortlist", type=int, help="the checker reads only this many windows per fact (no nli-on-every-window model)"
    )
    parser.add_argument("--top-k", type=int, nargs="+", default=[1, 3], help="windows NLI sees in bi-top-k+nli")
    add_out_option(parser)
    args = parser.parse_args()

    from factscope.metrics.classification import best_threshold

    documents = summedits_documents(args.summedits, args.limit, args.facts)
    if args.pairs.exists():
        documents += pair_documents(args.pairs, args.limit)
    started = time.process_time()
    scored, seconds = score_documents(documents, args.checker, args.window, args.cache, args.shortlist)
    nli_name = f"nli:{args.checker}"
    models: dict[str, tuple[Callable[[Scored], np.ndarray], float]] = {
        "bi": (lambda s: s.cosine.max(axis=1), 0.4),
        **({} if args.shortlist else {nli_name: (lambda s: s.nli.max(axis=1), 0.5)}),
        **{f"bi-top{k}+{nli_name}": (top_k_nli(k), 0.5) for k in args.top_k if k <= (args.shortlist or k)},
    }
    validation = [s for s in scored if s.document.part == "validation"]
    figures: dict[str, Any] = {"models": {}, "seconds": seconds, "cpu_seconds": None}
    for name, (model, default_threshold) in models.items():
        values = [float(v) for item in validation for v in model(item)]
        threshold = best_threshold(values, [g for item in validation for g in item.gold])
        result: dict[str, Any] = {"threshold": threshold, "default_threshold": default_threshold}
        for dataset in ("summedits", "counterfactual_pairs", "all"):
            test = [s for s in scored if s.document.part == "test" and dataset in ("all", s.document.dataset)]
            if test:
                result[dataset] = {
                    "chosen_threshold": evaluate(test, model, threshold),
                    "default_threshold": evaluate(test, model, default_threshold),
                }
        result["validation"] = evaluate(validation, model, threshold)
        figures["models"][name] = result
        chosen = result["summedits"]["chosen_threshold"]
        print(f"{name:28s} t={threshold:.4f} BA={chosen['balanced_accuracy']:.3f} AUROC={chosen['auroc']:.3f} "
              f"P(faithful)={chosen['precision_all_faithful']:.3f} "
              f"P(counterfactual)={chosen['precision_all_counterfactual']:.3f}")
    figures["cpu_seconds"] = time.process_time() - started
    figures["documents"] = {
        f"{dataset}/{part}": sum(1 for d in documents if d.dataset == dataset and d.part == part)
        for dataset in ("summedits", "counterfactual_pairs") for part in PARTS
    }
    figures["threshold_chosen_on"] = "validation groups of all documents pooled (part_of(group) == 'validation')"
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
