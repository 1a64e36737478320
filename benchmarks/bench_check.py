"""Speed of factscope's NLI check path against the model's own limit and RefChecker's NLIChecker, in one run.

All three paths score the same (claim, ~200-token segment) pairs with the same model and batch size:

- ``ours``: ``make_checker("path:MODEL").check(tasks)``, i.e. SegmentedChecker over HFNLIScorer, timed from
  strings to verdicts (segmentation, deduplication, length sorting, tokenisation, forward, A.3 merge, evidence);
- ``plain``: the model's own speed: tokenise all pairs at once, sort by token length, forward in batches with
  dynamic padding, argmax (nothing else);
- ``refchecker``: ``refchecker.checker.NLIChecker(model=MODEL).check(...)`` from PyPI, called per pair the way
  its pipeline calls an NLI checker (``is_joint=False``); install it for the benchmark only:
  ``pip install --no-deps refchecker`` plus the modules its package imports (see the README, check-path speed benchmark).

The model is the packaged all-MiniLM-L6-v2 with a new 3-way classification head (fixed seed), saved to a temp
folder that all paths load (or ``--model DIR``). Segments pack consecutive premises of an NLI JSONL file
(e.g. MNLI dev) up to ``--segment-tokens`` tokens; the claims are the hypotheses of those premises.
Each path is warmed up on other pairs first; repeats are interleaved (plain, ours, refchecker, plain, ...) so
CPU contention hits all paths alike, and the median is reported. The end-to-end figure runs
``factscope check`` as a subprocess on the shipped example and on synthetic records built from the same file.
The figures go to ``benchmarks/results/bench_check.json`` (see ``results_file``).

    HF_HUB_OFFLINE=1 python benchmarks/bench_check.py --data mnli_dev_matched.jsonl --pairs 1200
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from results_file import add_out_option, load_average, write_results

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

LABEL_NAMES = ("entailment", "neutral", "contradiction")
REPO = Path(__file__).resolve().parent.parent


def build_model(folder: Path, seed: int) -> str:
    """The packaged MiniLM with a freshly initialised 3-way NLI head (seeded), saved with its tokenizer."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from transformers.utils import logging as hf_logging

    from factscope.hf.embedded import minilm_path

    hf_logging.set_verbosity_error()
    torch.manual_seed(seed)
    model = AutoModelForSequenceClassification.from_pretrained(
        minilm_path(),
        num_labels=3,
        id2label=dict(enumerate(LABEL_NAMES)),
        label2id={name: i for i, name in enumerate(LABEL_NAMES)},
    )
    model.save_pretrained(folder)
    AutoTokenizer.from_pretrained(minilm_path()).save_pretrained(folder)
    return str(folder)


def read_nli(path: str) -> list[tuple[str, str]]:
    """(premise, hypothesis) of each JSONL line that has both."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                premise, hypothesis = (
                    str(record.get("premise", "")).strip(),
                    str(record.get("hypothesis", "")).strip(),
                )
                if premise and hypothesis:
                    rows.append((premise, hypothesis))
    return rows


def build_segments(
    rows: list[tuple[str, str]], tokenizer: Any, max_tokens: int
) -> list[tuple[str, list[str]]]:
    """Segments of consecutive premises with between 80% and 100% of ``max_tokens`` tokens, with their hypotheses."""
    lengths = [len(ids) for ids in tokenizer([p for p, _ in rows], add_special_tokens=False)["input_ids"]]
    segments: list[tuple[str, list[str]]] = []
    current: list[int] = []
    used = 0
    for index, length in enumerate(lengths):
        if length > max_tokens:
            continue
        if current and used + length > max_tokens:
            _close(rows, current, tokenizer, max_tokens, segments)
            current, used = [], 0
        current.append(index)
        used += length
    return segments


def _close(
    rows: list[tuple[str, str]], current: list[int], tokenizer: Any, max_tokens: int, out: list
) -> None:
    text = " ".join(rows[i][0] for i in current)
    tokens = len(tokenizer(text, add_special_tokens=False)["input_ids"])
    if 0.8 * max_tokens <= tokens <= max_tokens:
        out.append((text, [rows[i][1] for i in current]))


def build_pairs(segments: list[tuple[str, list[str]]], n: int, skip: int = 0) -> list[tuple[str, str]]:
    """``n`` distinct (segment, claim) pairs, after skipping the first ``skip`` segments."""
    pairs: dict[tuple[str, str], None] = {}
    for text, claims in segments[skip:]:
        for claim in claims:
            pairs[(text, claim)] = None
            if len(pairs) == n:
                return list(pairs)
    raise SystemExit(f"the data gives only {len(pairs)} pairs; use a larger --data file or fewer --pairs")


class Plain:
    """The model's own speed: one tokenizer call, token-length sorting, batched forward with dynamic padding."""

    name = "plain sorted forward"

    def __init__(self, model_dir: str, batch_size: int) -> None:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        self.model = AutoModelForSequenceClassification.from_pretrained(model_dir).eval()
        self.batch_size = batch_size

    def run(self, pairs: list[tuple[str, str]]) -> list[str]:
        import torch

        encoded = self.tokenizer(
            [p for p, _ in pairs], [h for _, h in pairs], truncation=True, max_length=512
        )
        order = sorted(range(len(pairs)), key=lambda i: len(encoded["input_ids"][i]))
        labels: list[str] = [""] * len(pairs)
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                batch = order[start : start + self.batch_size]
                features = [{key: encoded[key][i] for key in encoded} for i in batch]
                inputs = self.tokenizer.pad(features, return_tensors="pt")
                predicted = self.model(**inputs).logits.argmax(dim=-1).tolist()
                for i, column in zip(batch, predicted):
                    labels[i] = self.model.config.id2label[column].lower()
        return labels


class Ours:
    """factscope's check path: a fresh ``make_checker("path:MODEL")`` per repeat, so no cache is warm."""

    name = "factscope NLI path"

    def __init__(self, model_dir: str, batch_size: int, max_tokens: int) -> None:
        self.model_dir, self.batch_size, self.max_tokens = model_dir, batch_size, max_tokens
        self.checker: Any = None

    def prepare(self) -> None:
        from factscope.checkers.registry import make_checker

        self.checker = make_checker(
            f"path:{self.model_dir}", batch_size=self.batch_size, max_tokens=self.max_tokens
        )

    def run(self, pairs: list[tuple[str, str]]) -> list[str]:
        from factscope.checkers.base import CheckTask

        verdicts = self.checker.check(
            [CheckTask(claim=claim, references=(segment,)) for segment, claim in pairs]
        )
        return [verdict.label.value.lower() for verdict in verdicts]


class RefChecker:
    """RefChecker's NLIChecker, one example per pair, pre-segmented (max_reference_segment_length=0)."""

    name = "RefChecker NLIChecker"

    def __init__(self, model_dir: str, batch_size: int) -> None:
        from refchecker.checker.nli_checker import NLIChecker

        self.checker = NLIChecker(model=model_dir, device="cpu", batch_size=batch_size)

    def run(self, pairs: list[tuple[str, str]]) -> list[str]:
        results = self.checker.check(
            batch_claims=[[claim] for _, claim in pairs],
            batch_references=[[segment] for segment, _ in pairs],
            max_reference_segment_length=0,
            merge_psg=True,
            is_joint=False,
        )
        return [claims[0].lower() for claims in results]


def time_paths(paths: dict[str, Any], pairs: list, warmup: list, repeats: int) -> dict[str, dict[str, Any]]:
    """Warm each path up, then time ``repeats`` interleaved runs; labels of the last run are kept."""
    from factscope.core.display.progress import progress

    figures: dict[str, dict[str, Any]] = {key: {"seconds": [], "cpu_seconds": []} for key in paths}
    with progress("benchmark runs", total=repeats * len(paths)) as bar:
        for _ in range(repeats):
            for key, path in paths.items():
                if hasattr(path, "prepare"):
                    path.prepare()
                path.run(warmup)
                started, cpu_started = time.perf_counter(), time.process_time()
                labels = path.run(pairs)
                figures[key]["seconds"].append(time.perf_counter() - started)
                figures[key]["cpu_seconds"].append(time.process_time() - cpu_started)
                figures[key]["labels"] = labels
                bar.advance()
    for key, figure in figures.items():
        figure["median_seconds"] = statistics.median(figure["seconds"])
        figure["pairs_per_second"] = len(pairs) / figure["median_seconds"]
        figure["pairs_per_cpu_second"] = len(pairs) / statistics.median(figure["cpu_seconds"])
        figure["label_counts"] = {name: figure["labels"].count(name) for name in LABEL_NAMES}
    return figures


def agreement(a: list[str], b: list[str]) -> float:
    """Share of pairs with the same label."""
    return sum(x == y for x, y in zip(a, b)) / len(a)


def synthetic_records(segments: list[tuple[str, list[str]]], n: int, folder: Path) -> Path:
    """``n`` check records: a response of up to three hypotheses, the segment they came from as the reference."""
    path = folder / "synthetic.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for index, (text, claims) in enumerate(segments[:n]):
            response = " ".join(
                claim if claim.endswith((".", "!", "?")) else claim + "." for claim in claims[:3]
            )
            handle.write(
                json.dumps({"id": f"syn-{index}", "response": response, "references": [text]}) + "\n"
            )
    return path


def end_to_end(input_path: Path, checker: str | None, folder: Path, threads: int) -> dict[str, Any]:
    """Run ``factscope check`` as a user would; records/s over the run itself, and the whole process's wall time."""
    output, summary = folder / f"{input_path.stem}.out.jsonl", folder / f"{input_path.stem}.summary.json"
    output.unlink(missing_ok=True)
    command = [
        sys.executable,
        "-m",
        "factscope",
        "check",
        str(input_path),
        "-o",
        str(output),
        "--summary",
        str(summary),
    ]
    if checker:
        command += ["--checker", checker, "--extractor", "rules"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": str(threads)}
    started = time.perf_counter()
    done = subprocess.run(command, check=False, capture_output=True, text=True, env=env, cwd=folder)
    wall = time.perf_counter() - started
    if done.returncode != 0 or not summary.exists():
        return {
            "input": str(input_path),
            "error": (done.stderr or done.stdout)[-2000:],
            "returncode": done.returncode,
        }
    figures = json.loads(summary.read_text(encoding="utf-8"))
    with output.open(encoding="utf-8") as handle:
        claims = sum(len(json.loads(line).get("claims", [])) for line in handle if line.strip())
    records = figures.get("new_records", 0)
    return {
        "input": str(input_path),
        "checker": checker or "embedded (default)",
        "records": records,
        "claims": claims,
        "run_seconds": figures.get("seconds"),
        "records_per_second": records / figures["seconds"] if figures.get("seconds") else None,
        "claims_per_second": claims / figures["seconds"] if figures.get("seconds") else None,
        "process_seconds": wall,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data",
        required=True,
        help="NLI JSONL with premise and hypothesis (not shipped with factscope; e.g. MultiNLI dev matched)",
    )
    parser.add_argument("--pairs", type=int, default=1200, help="timed (segment, claim) pairs (default 1200)")
    parser.add_argument("--warmup-pairs", type=int, default=64, help="pairs run by each path before timing")
    parser.add_argument(
        "--segment-tokens", type=int, default=200, help="segment length in tokens (default 200)"
    )
    parser.add_argument(
        "--batch-size", type=int, default=32, help="pairs per forward batch, all paths (default 32)"
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="interleaved timed runs per path; median reported"
    )
    parser.add_argument("--threads", type=int, default=2, help="torch intra-op threads (default 2)")
    parser.add_argument(
        "--model", help="an NLI model folder to use instead of the packaged MiniLM + 3-way head"
    )
    parser.add_argument("--seed", type=int, default=0, help="torch seed of the new 3-way head")
    parser.add_argument("--records", type=int, default=200, help="synthetic records for the end-to-end run")
    parser.add_argument(
        "--no-refchecker", action="store_true", help="skip RefChecker (if it is not installed)"
    )
    parser.add_argument("--no-end-to-end", action="store_true", help="skip the `factscope check` runs")
    add_out_option(parser)
    args = parser.parse_args()

    import torch
    from transformers import AutoTokenizer

    from factscope.cli.display import print_table
    from factscope.core.display.figure_table import summary_table
    from factscope.core.display.progress import console

    torch.set_num_threads(args.threads)
    workdir = Path(tempfile.mkdtemp(prefix="factscope-bench-"))
    model_dir = args.model or build_model(workdir / "minilm-3way", args.seed)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    segments = build_segments(read_nli(args.data), tokenizer, args.segment_tokens)
    pairs = build_pairs(segments, args.pairs)
    used_segments = len({segment for segment, _ in pairs})
    warmup = build_pairs(segments, args.warmup_pairs, skip=used_segments)
    token_counts = [len(tokenizer(s, c)["input_ids"]) for s, c in pairs]

    paths: dict[str, Any] = {
        "plain": Plain(model_dir, args.batch_size),
        "ours": Ours(model_dir, args.batch_size, args.segment_tokens),
    }
    refchecker_error = None
    if not args.no_refchecker:
        try:
            paths["refchecker"] = RefChecker(model_dir, args.batch_size)
        except Exception as error:  # noqa: BLE001 - any import or load failure is reported, the rest still runs
            refchecker_error = f"{error.__class__.__name__}: {error}"
            console.print(f"[yellow]RefChecker not measured[/] {refchecker_error}")
    load_before = load_average()
    figures = time_paths(paths, pairs, warmup, args.repeats)
    load_after = load_average()

    labels = {key: figure.pop("labels") for key, figure in figures.items()}
    agree = {"ours_vs_plain": agreement(labels["ours"], labels["plain"])}
    if "refchecker" in labels:
        agree["ours_vs_refchecker"] = agreement(labels["ours"], labels["refchecker"])
        agree["refchecker_vs_plain"] = agreement(labels["refchecker"], labels["plain"])
    results: dict[str, Any] = {
        "model": args.model or f"packaged all-MiniLM-L6-v2 + 3-way head (seed {args.seed})",
        "data": args.data,
        "pairs": len(pairs),
        "segments": used_segments,
        "pair_tokens": {
            "min": min(token_counts),
            "median": statistics.median(token_counts),
            "max": max(token_counts),
        },
        "load_average_1min": {"before": load_before, "after": load_after},
        "paths": figures,
        "ours_over_plain": figures["ours"]["pairs_per_second"] / figures["plain"]["pairs_per_second"],
        "ours_over_plain_cpu": figures["ours"]["pairs_per_cpu_second"]
        / figures["plain"]["pairs_per_cpu_second"],
        "label_agreement": agree,
        "refchecker_error": refchecker_error,
    }
    if "refchecker" in figures:
        results["ours_over_refchecker"] = (
            figures["ours"]["pairs_per_second"] / figures["refchecker"]["pairs_per_second"]
        )
    if not args.no_end_to_end:
        synthetic = synthetic_records(segments[used_segments:], args.records, workdir)
        results["end_to_end"] = [
            end_to_end(REPO / "examples" / "check.jsonl", None, workdir, args.threads),
            end_to_end(synthetic, f"path:{model_dir}", workdir, args.threads),
        ]
    rows: list[tuple[str, object]] = [
        ("pairs (segments)", f"{len(pairs)} ({used_segments})"),
        ("tokens per pair (min / median / max)", "{min} / {median} / {max}".format(**results["pair_tokens"])),
    ]
    for key, figure in figures.items():
        runs = ", ".join(f"{s:.1f}" for s in figure["seconds"])
        rows.append((f"{paths[key].name}: pairs/s (runs, s)", f"{figure['pairs_per_second']:.1f} ({runs})"))
    rows.append(
        (
            "ours / plain (wall; CPU time)",
            f"{results['ours_over_plain']:.3f}; {results['ours_over_plain_cpu']:.3f}",
        )
    )
    if "ours_over_refchecker" in results:
        rows.append(("ours / RefChecker", f"{results['ours_over_refchecker']:.3f}"))
    rows.extend((f"same labels: {key.replace('_', ' ')}", f"{value:.4f}") for key, value in agree.items())
    for run in results.get("end_to_end", []):
        name = Path(run["input"]).name
        if "error" in run:
            rows.append((f"factscope check {name}", f"failed: {run['error'][-200:]}"))
        else:
            rows.append(
                (
                    f"factscope check {name} ({run['checker'].split('/')[-1]})",
                    (
                        f"{run['records_per_second']:.2f} records/s, {run['claims_per_second']:.1f} claims/s "
                        f"({run['records']} records, process {run['process_seconds']:.1f} s)"
                    ),
                )
            )
    rows.append(("load average (1 min) before / after", f"{load_before} / {load_after}"))
    print_table(summary_table("check-path benchmark", rows))
    write_results(__file__, args, results)


if __name__ == "__main__":
    main()
