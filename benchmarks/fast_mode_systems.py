"""Exact against fast mode in the systems that check facts against long contexts: ground's presence checks,
knowledge's factuality and attribute's alignment checks, each run through its system definition.

Workloads, built from SummEdits (``--data``, the ``claims/summedits.jsonl`` of the shared data; each document has
consistent summaries and minimally edited inconsistent ones):

- **ground**: a record's response is ``--facts`` sentences of a document's consistent summaries and one sentence
  of an inconsistent summary (a counterfactual fact); its contexts are the document among other documents, about
  ``--context-tokens`` tokens in all (cycled over the records), as in Truly Ground's distractor setting; the gold
  facts are the response's consistent sentences. Presence models: ``bi-nli`` (the default: the embedded checker on
  the 3 windows closest by MiniLM cosine) and ``nli:embedded`` (the embedded checker on every window).
- **knowledge**: a record's knowledge is a consistent or an inconsistent summary of a document; the corpus is
  every SummEdits document (300 to 1,500 words each), ``evidence_k`` 5, checker the embedded one; relevance,
  coherence and the causal LM off (they do not depend on the mode).
- **attribute**: the packaged example answers (sentences citing a knowledge graph), repeated ``--answers`` times
  under new ids; the checker reads each sentence against each cited triple.

Per system and mode: seconds of the run with the components already built (the model loads once, outside the
timing), (premise, hypothesis) pairs the checker scored, and the agreement of the labels: ground, each fact's
present / absent decision; knowledge, each sentence's and each record's factuality label (the argmax of its
consistent / non-verified / inconsistent probabilities), with the largest change of a factuality probability;
attribute, every answer's figures. Each system's exact and fast runs alternate ``--repeats`` times and the
fastest of each is kept. Figures go to ``benchmarks/results/fast_mode_systems.json`` (see ``results_file``).

    HF_HUB_OFFLINE=1 python benchmarks/fast_mode_systems.py --ground-records 8 --knowledge-records 24
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from fast_mode import TOKENS_PER_WORD, CountingScorer, first_sentence
from results_file import add_out_option, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")

DEFAULT_DATA = Path("/work/shared/data/claims/summedits.jsonl")
EXAMPLES = Path(__file__).resolve().parent.parent / "src" / "factscope" / "examples"
LABELS = ("consistent", "non_verified", "inconsistent")


def load_documents(data: Path) -> dict[str, dict[str, list[str]]]:
    """Each SummEdits document with its consistent and inconsistent summaries."""
    documents: dict[str, dict[str, list[str]]] = {}
    for line in data.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            kind = "consistent" if row["label"] == "entailment" else "inconsistent"
            documents.setdefault(row["premise"].strip(), {"consistent": [], "inconsistent": []})[kind].append(
                row["hypothesis"].strip()
            )
    return documents


def ground_examples(
    documents: dict[str, dict[str, list[str]]], n_records: int, n_facts: int, lengths: Sequence[int], seed: int
) -> list[Any]:
    """Grounding examples: consistent sentences and one counterfactual sentence against a document among others."""
    from factscope.grounding.data import GroundExample

    generator = random.Random(seed)
    usable = sorted(doc for doc, sums in documents.items() if len(sums["consistent"]) >= n_facts and sums["inconsistent"])
    examples = []
    for number, document in enumerate(generator.sample(usable, n_records)):
        summaries = documents[document]
        faithful = [first_sentence(text) for text in generator.sample(summaries["consistent"], n_facts)]
        counterfactual = first_sentence(generator.choice(summaries["inconsistent"]))
        contexts = [document]
        others = [doc for doc in documents if doc != document]
        while sum(len(text.split()) for text in contexts) * TOKENS_PER_WORD < lengths[number % len(lengths)]:
            contexts.insert(generator.randint(0, len(contexts)), generator.choice(others))
        examples.append(
            GroundExample(
                id=f"g{number}",
                question="Summarise the document.",
                contexts=contexts,
                gold_facts=faithful,
                response=" ".join([*faithful, counterfactual]),
            )
        )
    return examples


def knowledge_records(documents: dict[str, dict[str, list[str]]], n_records: int, seed: int) -> list[Any]:
    """Knowledge records: a consistent or an inconsistent summary of a document, alternately."""
    from factscope.conner.data import KnowledgeRecord

    generator = random.Random(seed)
    usable = sorted(doc for doc, sums in documents.items() if sums["consistent"] and sums["inconsistent"])
    return [
        KnowledgeRecord(
            id=f"k{number}",
            query="What does the document say?",
            knowledge=generator.choice(documents[document]["consistent" if number % 2 == 0 else "inconsistent"]),
        )
        for number, document in enumerate(generator.sample(usable, n_records))
    ]


def attribute_answers(copies: int) -> list[Any]:
    """The packaged example answers, ``copies`` times under new ids."""
    from factscope.kalma.answers import load_answers

    loaded = load_answers(EXAMPLES / "attribute" / "answers.jsonl").records
    return [replace(answer, id=f"{answer.id}-{copy}") for copy in range(copies) for answer in loaded]


def count_pairs(checker: Any) -> CountingScorer:
    """Wrap a segmented checker's scorer so that the pairs it scores are counted."""
    counting = CountingScorer(checker.scorer)
    checker.scorer = counting
    return counting


class PresenceRecorder:
    """Records what an exact presence model scored: each fact's windows and each (fact, window) pair's score."""

    def __init__(self, model: Any) -> None:
        self.windows: list[tuple[str, list[str]]] = []
        self.scores: dict[tuple[str, str], float] = {}
        best_scores, score_pairs = model.best_scores, model.score_pairs

        def recorded_best(facts: Sequence[str], windows: Sequence[Sequence[str]]) -> Any:
            self.windows.extend((fact, list(texts)) for fact, texts in zip(facts, windows))
            return best_scores(facts, windows)

        def recorded_pairs(pairs: Sequence[tuple[str, str]]) -> Any:
            values = score_pairs(pairs)
            self.scores.update(zip(pairs, (float(value) for value in values)))
            return values

        model.best_scores, model.score_pairs = recorded_best, recorded_pairs

    def sweep(self, threshold: float, top_ks: Sequence[int]) -> list[dict[str, Any]]:
        """Decision agreement and windows kept when only each fact's ``top_k`` BM25-ranked windows are read (all
        of them for a fact that shares no word with any; the early stop never changes a decision, so the best of
        the kept windows decides)."""
        from factscope.grounding.presence_rounds import rank_windows

        facts = [fact for fact, _ in self.windows]
        exact = [max((self.scores[(f, w)] for w in ws), default=-math.inf) >= threshold for f, ws in self.windows]
        found = []
        for top_k in top_ks:
            ranked = rank_windows(facts, [windows for _, windows in self.windows], top_k)
            ranked = [kept or every for kept, (_, every) in zip(ranked, self.windows)]
            fast = [max((self.scores[(f, w)] for w in ws), default=-math.inf) >= threshold for f, ws in zip(facts, ranked)]
            found.append({
                "top_k": top_k,
                "windows_kept": sum(len(ws) for ws in ranked),
                "agreement": sum(a == b for a, b in zip(exact, fast)) / max(1, len(exact)),
            })
        return found


def timed(
    definition: Any,
    spec: Any,
    items: Sequence[Any],
    checker_of: Callable[[Any], Any],
    hook: Callable[[Any], Any] | None = None,
) -> dict[str, Any]:
    """Run ``definition`` over ``items`` with the components of ``spec`` built beforehand; seconds, pairs, rows,
    and what ``hook`` (called with the ready spec) returns."""
    ready = definition.ready(spec, None)
    hooked = hook(ready) if hook is not None else None
    counting = count_pairs(checker_of(ready))
    started = time.perf_counter()
    run = definition.run(ready, items, batch_size=16)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "pairs_scored": counting.pairs, "rows": list(run.results), "hooked": hooked}


def compare(
    definition: Any,
    specs: dict[str, Any],
    items: Sequence[Any],
    checker_of: Callable[[Any], Any],
    labels: Callable[[list[Any]], list[str]],
    repeats: int,
    exact_hook: Callable[[Any], Any] | None = None,
) -> dict[str, Any]:
    """Exact and fast runs alternated ``repeats`` times; the fastest of each, pairs, and label agreement;
    ``exact_hook`` is given each exact run's ready spec."""
    runs: dict[str, list[dict[str, Any]]] = {"exact": [], "fast": []}
    for _ in range(repeats):
        for mode in ("exact", "fast"):
            runs[mode].append(timed(definition, specs[mode], items, checker_of, exact_hook if mode == "exact" else None))
    best = {mode: min(found, key=lambda run: run["seconds"]) for mode, found in runs.items()}
    exact, fast = labels(best["exact"]["rows"]), labels(best["fast"]["rows"])
    return {
        "items": len(items),
        **{
            mode: {"seconds": [run["seconds"] for run in found], "pairs_scored": best[mode]["pairs_scored"]}
            for mode, found in runs.items()
        },
        "speedup": best["exact"]["seconds"] / best["fast"]["seconds"],
        "pair_reduction": best["exact"]["pairs_scored"] / max(1, best["fast"]["pairs_scored"]),
        "labels": len(exact),
        "label_agreement": sum(a == b for a, b in zip(exact, fast)) / max(1, len(exact)),
        "differing_labels": [(i, a, b) for i, (a, b) in enumerate(zip(exact, fast)) if a != b],
        "rows": best,
    }


def presence_labels(rows: list[Any]) -> list[str]:
    """Every response and gold fact's decision: present, absent or unjudged."""
    return [
        {True: "present", False: "absent", None: "unjudged"}[fact.present]
        for row in rows
        for fact in [*row.response_facts, *row.gold_facts]
    ]


def _argmax(probs: Sequence[float]) -> str:
    return LABELS[max(range(3), key=lambda i: probs[i])]


def factuality_labels(rows: list[Any]) -> list[str]:
    """Each sentence's factuality label, then each record's."""
    sentences = [_argmax(s.probs) if s.probs else "unscored" for row in rows for s in row.sentences]
    records = [
        _argmax((row.factuality.consistent, row.factuality.non_verified, row.factuality.inconsistent))
        if row.factuality
        else "unscored"
        for row in rows
    ]
    return sentences + records


def factuality_change(result: dict[str, Any]) -> float:
    """The largest change of a record's factuality probability between the modes."""
    pairs = zip(result["rows"]["exact"]["rows"], result["rows"]["fast"]["rows"])
    return max(
        (
            abs(getattr(a.factuality, name) - getattr(b.factuality, name))
            for a, b in pairs
            if a.factuality and b.factuality
            for name in LABELS
        ),
        default=0.0,
    )


def attribution_labels(rows: list[Any]) -> list[str]:
    """Every answer's row less its id, as JSON."""
    return [json.dumps(row.model_dump(mode="json", exclude={"id"}), sort_keys=True) for row in rows]


def compare_ground(examples: list[Any], presence: str, repeats: int, top_ks: Sequence[int] = ()) -> dict[str, Any]:
    """Ground's presence decisions in both modes with presence model ``presence``; with ``top_ks``, the exact run's
    scores are also replayed at each of those ``top_k`` (``top_k_sweep``, for a model that reads every window)."""
    from factscope.grounding.system import GROUND, GroundSpec, make_spec_presence

    def checker_of(spec: Any) -> Any:
        model = spec.presence
        return model.judge.checker if hasattr(model, "judge") else model.checker

    def recorder(spec: Any) -> PresenceRecorder | None:
        return None if hasattr(spec.presence, "judge") else PresenceRecorder(spec.presence)

    specs = {mode: GroundSpec(presence=presence, mode=mode) for mode in ("exact", "fast")}
    result = compare(GROUND, specs, examples, checker_of, presence_labels, repeats, recorder if top_ks else None)
    recorded = result["rows"]["exact"]["hooked"]
    if recorded is not None:
        threshold = make_spec_presence(GroundSpec(presence=presence), None).threshold
        result["top_k_sweep"] = recorded.sweep(threshold, top_ks)
    result.pop("rows")
    return result


def compare_knowledge(records: list[Any], corpus: dict[str, str], repeats: int) -> dict[str, Any]:
    """Knowledge's factuality labels in both modes, with ``corpus`` (id -> text) as the evidence corpus."""
    from factscope.conner.system import KNOWLEDGE, KnowledgeSpec

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "corpus.jsonl"
        path.write_text(
            "".join(json.dumps({"id": key, "text": text}) + "\n" for key, text in corpus.items()), encoding="utf-8"
        )
        specs = {
            mode: KnowledgeSpec(corpus=path, relevance="none", coherence="none", mode=mode)
            for mode in ("exact", "fast")
        }
        result = compare(KNOWLEDGE, specs, records, lambda spec: spec.evaluator.checker, factuality_labels, repeats)
    result["largest_factuality_change"] = factuality_change(result)
    result.pop("rows")
    return result


def compare_attribute(copies: int, repeats: int) -> dict[str, Any]:
    """Attribute's figures in both modes on ``copies`` copies of the packaged example answers."""
    from factscope.kalma.system import ATTRIBUTE, AttributeSpec

    specs = {mode: AttributeSpec(checker_settings={"mode": mode}) for mode in ("exact", "fast")}
    result = compare(
        ATTRIBUTE, specs, attribute_answers(copies), lambda spec: spec.checker, attribution_labels, repeats
    )
    result.pop("rows")
    return result


def show(name: str, result: dict[str, Any]) -> None:
    """Print a system's comparison, less its differing labels."""
    print(f"{name}:", {key: value for key, value in result.items() if key != "differing_labels"}, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--ground-records", type=int, default=8)
    parser.add_argument("--facts", type=int, default=3, help="consistent sentences per ground response")
    parser.add_argument("--context-tokens", type=int, nargs="+", default=[1500, 3000])
    parser.add_argument("--presence", nargs="+", default=["bi-nli", "nli:embedded"])
    parser.add_argument("--top-k", type=int, nargs="+", default=[4, 8, 16, 32],
                        help="fast presence's top_k values replayed on the exact run's scores")
    parser.add_argument("--knowledge-records", type=int, default=24)
    parser.add_argument("--answers", type=int, default=25, help="copies of the example answers")
    parser.add_argument("--systems", nargs="+", default=["ground", "knowledge", "attribute"])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--seed", type=int, default=7)
    add_out_option(parser)
    args = parser.parse_args()
    documents = load_documents(args.data)
    figures: dict[str, Any] = {}
    if "ground" in args.systems:
        examples = ground_examples(documents, args.ground_records, args.facts, args.context_tokens, args.seed)
        for presence in args.presence:
            figures[f"ground {presence}"] = compare_ground(examples, presence, args.repeats, args.top_k)
            show(f"ground {presence}", figures[f"ground {presence}"])
    if "knowledge" in args.systems:
        records = knowledge_records(documents, args.knowledge_records, args.seed)
        corpus = {f"d{number}": document for number, document in enumerate(documents)}
        figures["knowledge"] = compare_knowledge(records, corpus, args.repeats)
        show("knowledge", figures["knowledge"])
    if "attribute" in args.systems:
        figures["attribute"] = compare_attribute(args.answers, args.repeats)
        show("attribute", figures["attribute"])
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
