"""The results file every benchmark writes: its figures with the machine, the date, the commit and the command.

A script adds the ``--out`` option with :func:`add_out_option` and ends with :func:`write_results`; by default the
file is ``benchmarks/results/<script name>.json``. The file holds::

    {"script", "date" (UTC, ISO 8601), "git_commit", "git_dirty", "command", "options", "machine", "figures"}

where ``machine`` names the CPU, its cores and memory, the OS, Python, torch and transformers, torch's intra-op
threads and whether CUDA was used in the process.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).resolve().parent / "results"
REPO = RESULTS_DIR.parent.parent
CPU_FLAGS = ("avx2", "avx512f", "avx512_bf16", "amx_bf16")


def add_out_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--out FILE`` (default: ``benchmarks/results/<script name>.json``)."""
    parser.add_argument(
        "--out", type=Path, help="results JSON (default: benchmarks/results/<script name>.json)"
    )


def load_average() -> float | None:
    """The 1-minute load average (None where the platform has none)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def _cpuinfo() -> dict[str, Any]:
    """CPU model and the vector-instruction flags that matter to torch, from /proc/cpuinfo where it exists."""
    fields: dict[str, str] = {}
    try:
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
    except OSError:
        lines = []
    for line in lines:
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    flags = set(fields.get("flags", "").split())
    return {
        "cpu": fields.get("model name") or platform.processor() or None,
        "cpu_flags": [flag for flag in CPU_FLAGS if flag in flags],
    }


def _memory_gib() -> float | None:
    """Total memory in GiB, from /proc/meminfo (None where it does not exist)."""
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    import torch

    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cuda_used = torch.cuda.is_initialized()
    return {
        **_cpuinfo(),
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "memory_gib": _memory_gib(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": _version("transformers"),
        "torch_threads": torch.get_num_threads(),
        "cuda_used": cuda_used,
        "gpu": torch.cuda.get_device_name() if cuda_used else None,
        "load_average_1min": load_average(),
    }


def _git(*command: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *command], cwd=REPO, capture_output=True, text=True, check=False, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _plain(value: Any) -> Any:
    """JSON fallback: numpy scalars and arrays to Python values, anything else (paths) to its string."""
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def write_results(script: str, args: argparse.Namespace, figures: dict[str, Any]) -> Path:
    """Write ``figures`` with the machine, date, commit, command and ``args`` to ``args.out`` or the default file.

    ``script`` is the calling script's ``__file__``. Returns the path written.
    """
    name = Path(script).name
    out = args.out or RESULTS_DIR / f"{Path(script).stem}.json"
    status = _git("status", "--porcelain", "--untracked-files=no")
    document = {
        "script": name,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": _git("rev-parse", "HEAD"),
        "git_dirty": None if status is None else bool(status),
        "command": shlex.join([Path(sys.executable).name, *sys.argv]),
        "options": vars(args),
        "machine": machine(),
        "figures": figures,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document, indent=2, default=_plain) + "\n", encoding="utf-8")
    print(f"results written to {out}")
    return Path(out)
