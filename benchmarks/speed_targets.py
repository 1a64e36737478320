"""The three speed targets of exact checking on a CPU, each against the previous path in the same run.

- ``record``: seconds a realistic record takes in exact mode with the default checker, model loaded, in ONNX
  Runtime, in PyTorch (the path without the ``onnx`` extra) and in ONNX Runtime's int8: all loaded in one process
  and run in turn on each record, ``repeats`` times, so that the load of a shared machine falls on all alike; their
  labels compared, and their process CPU time, which the machine's other work disturbs less.
- ``mpnet``: the mpnet checker's seconds per pair over the default checker's, on the same deduplicated pairs (the
  decisive pairs of the records), each in its default runtime, in turn; and both in int8 (ONNX Runtime's dynamic
  int8, ``precision='int8'``), with the share of the pairs whose label int8 keeps.
- ``cli``: a fresh ``factscope check`` process on a short record file (the README's example): seconds until its
  first verdict is in the results file, and until it exits, from a warm disk (one untimed run first); with a
  ``baseline`` source folder (the ``src`` of a checkout of the previous version), that version's runs in turn.

Used by ``record_speed.py --targets``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from exact_baseline import tasks_of

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "check.jsonl"
CLI = "from factscope.cli.main import main; main()"


def spread(seconds: list[float]) -> dict[str, float]:
    """Median, smallest and largest of ``seconds``."""
    return {"median": statistics.median(seconds), "min": min(seconds), "max": max(seconds)}


def record_target(records: list[dict[str, Any]], repeats: int) -> dict[str, Any]:
    """Exact-mode seconds a record with the default checker in ONNX Runtime, in PyTorch and in ONNX Runtime's
    int8 (``precision='int8'``, with the share of the claims whose label it keeps), in turn."""
    from factscope.checkers.embedded import EmbeddedScorer, shipped_checker_dir
    from factscope.checkers.options import CheckerOptions
    from factscope.checkers.registry import _checker_defaults, _segmented

    paths = {}
    for runtime, onnx, precision in (("onnx", True, "fp32"), ("torch", False, "fp32"), ("onnx-int8", True, "int8")):
        scorer = EmbeddedScorer.from_dir(shipped_checker_dir(), onnx=onnx, precision=precision)
        paths[runtime] = _segmented(scorer, _checker_defaults(scorer, CheckerOptions()), name="embedded")
        paths[runtime].check(tasks_of(records[0])[:1])
    seconds: dict[str, dict[str, list[float]]] = {
        runtime: {r["id"]: [] for r in records} for runtime in paths
    }
    cpu: dict[str, list[float]] = {runtime: [] for runtime in paths}
    labels: dict[str, list[str]] = {}
    for _ in range(repeats):
        for record in records:
            for runtime, checker in paths.items():
                began, cpu_began = time.perf_counter(), time.process_time()
                verdicts = checker.check(tasks_of(record))
                seconds[runtime][record["id"]].append(time.perf_counter() - began)
                cpu[runtime].append(time.process_time() - cpu_began)
                labels.setdefault(runtime, []).extend(verdict.label.value for verdict in verdicts)
                print(
                    f"exact {runtime} {record['id']}: {seconds[runtime][record['id']][-1]:.2f} s", flush=True
                )
    medians = {
        runtime: {rid: statistics.median(found) for rid, found in by.items()}
        for runtime, by in seconds.items()
    }
    return {
        "seconds_each_run": seconds,
        "record_seconds": {runtime: spread(list(found.values())) for runtime, found in medians.items()},
        "times_as_fast_as_torch_each_record": {
            rid: medians["torch"][rid] / medians["onnx"][rid] for rid in medians["onnx"]
        },
        "times_as_fast_as_torch_total": sum(medians["torch"].values()) / sum(medians["onnx"].values()),
        "cpu_seconds_all_runs": {runtime: sum(found) for runtime, found in cpu.items()},
        "times_as_fast_as_torch_cpu": sum(cpu["torch"]) / sum(cpu["onnx"]),
        "labels_identical": labels["onnx"] == labels["torch"],
        "labels": len(labels["onnx"]),
        "int8_labels_same": sum(a == b for a, b in zip(labels["onnx"], labels["onnx-int8"])) / len(labels["onnx"]),
    }


def mpnet_target(
    records: list[dict[str, Any]], repeats: int, pairs: int, others: dict[str, Path] | None = None
) -> dict[str, Any]:
    """Seconds per pair of the mpnet checker over the default checker's, on the first ``pairs`` distinct decisive
    pairs of ``records``; both checkers in int8 (``precision='int8'``, with the share of pairs whose label it
    keeps) and ``others`` (name: checker folder) are timed the same way, each over the default's."""
    from factscope.checkers.embedded import load_embedded_scorer, mpnet_checker_dir
    from factscope.checkers.registry import make_checker

    checker = make_checker("embedded")
    found: dict[tuple[str, str], None] = {}
    for record in records:
        for task in tasks_of(record):
            for candidate in checker._scored(checker.candidates(task)):
                found[(candidate.text, task.claim)] = None
    chosen = list(found)[:pairs]
    premises, hypotheses = [p for p, _ in chosen], [h for _, h in chosen]
    scorers = {
        "embedded": load_embedded_scorer(),
        "mpnet": load_embedded_scorer(mpnet_checker_dir()),
        "embedded-int8": load_embedded_scorer(precision="int8"),
        "mpnet-int8": load_embedded_scorer(mpnet_checker_dir(), precision="int8"),
    }
    scorers.update({name: load_embedded_scorer(folder) for name, folder in (others or {}).items()})
    labels: dict[str, list[int]] = {}
    seconds: dict[str, list[float]] = {name: [] for name in scorers}
    for scorer in scorers.values():
        scorer.score(premises[:2], hypotheses[:2])
    for _ in range(repeats):
        for name, scorer in scorers.items():
            began = time.perf_counter()
            labels[name] = scorer.score(premises, hypotheses).argmax(axis=1).tolist()
            seconds[name].append((time.perf_counter() - began) / len(chosen))
            print(f"{name}: {seconds[name][-1] * 1000:.1f} ms a pair", flush=True)
    runtimes = {
        name: ("onnx" if scorer._model.members[0].onnx is not None else "torch")
        + ("-int8" if scorer.precision == "int8" else "")
        for name, scorer in scorers.items()
    }
    return {
        "pairs": len(chosen),
        "runtimes": runtimes,
        "seconds_per_pair": {name: spread(found) for name, found in seconds.items()},
        **{
            f"{name}_over_embedded": statistics.median(found) / statistics.median(seconds["embedded"])
            for name, found in seconds.items()
            if name != "embedded"
        },
        "int8_labels_same": {
            name: sum(a == b for a, b in zip(labels[name], labels[f"{name}-int8"])) / len(chosen)
            for name in ("embedded", "mpnet")
        },
    }


def first_verdict(records: Path, source: Path | None = None) -> tuple[float, float]:
    """Seconds until a fresh ``factscope check`` process (of the package in ``source``, else the one imported
    here) has written its first verdict, and until it exits."""
    environment = os.environ.copy()
    if source is not None:
        environment["PYTHONPATH"] = str(source)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "checked.jsonl"
        command = [sys.executable, "-c", CLI, "check", str(records), "-o", str(out)]
        began = time.perf_counter()
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment
        )
        first = None
        while process.poll() is None:
            if first is None and out.is_file() and b"\n" in out.read_bytes():
                first = time.perf_counter() - began
            time.sleep(0.01)
        ended = time.perf_counter() - began
        if process.returncode:
            raise RuntimeError(f"factscope check exited with {process.returncode}")
        return (first if first is not None else ended), ended


def cli_target(repeats: int, baseline: Path | None = None, records: Path = EXAMPLE) -> dict[str, Any]:
    """:func:`first_verdict` ``repeats`` times after one untimed run (a warm disk), and as many of ``baseline``'s
    in turn."""
    sources: dict[str, Path | None] = {"current": None, **({"baseline": baseline} if baseline else {})}
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in sources}
    for source in sources.values():
        first_verdict(records, source)
    for _ in range(repeats):
        for name, source in sources.items():
            runs[name].append(first_verdict(records, source))
            print(
                f"cli {name}: first verdict {runs[name][-1][0]:.2f} s, exit {runs[name][-1][1]:.2f} s",
                flush=True,
            )
    found: dict[str, Any] = {
        "records": str(records.relative_to(EXAMPLE.parent.parent)),
        "baseline": str(baseline) if baseline else None,
    }
    for name, timed in runs.items():
        found[name] = {
            "first_verdict_seconds": spread([first for first, _ in timed]),
            "exit_seconds": spread([ended for _, ended in timed]),
        }
    if baseline:
        medians = {name: statistics.median(first for first, _ in timed) for name, timed in runs.items()}
        found["first_verdict_times_as_fast_as_baseline"] = medians["baseline"] / medians["current"]
    return found
