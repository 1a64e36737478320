"""Wall time of the LLM roles with the embedded SmolLM2-135M-Instruct run in-process, as a user runs them:

    factscope check examples/check.jsonl --checker llm --llm local:embedded
    factscope check examples/check.jsonl --extractor llm --llm local:embedded

Each command runs once in a fresh process (the model's dequantised folder already in the user's cache, the LLM
response cache off), with its results file in a temporary folder. Recorded per command: the wall seconds, the
exit code, the CPU seconds the command's process used (user and system; on a machine shared with other work,
wall time grows with the load while CPU time does not), the summary rows about the LLM (calls, failed calls,
prompt and completion tokens), the number of progress lines the command wrote while it ran, and the 1-minute load
average before it started.

    python benchmarks/embedded_llm_roles.py
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from results_file import add_out_option, load_average, write_results

REPO = Path(__file__).resolve().parent.parent
COMMANDS = {
    "llm_checker": ["--checker", "llm"],
    "llm_extractor": ["--extractor", "llm"],
}
"""Each role's options, added to ``check examples/check.jsonl --llm local:embedded``."""
SUMMARY_ROW = re.compile(r"^\W*(LLM [a-z ]+?)\s*[│|]\s*(\S+)", re.MULTILINE)


def timed(options: list[str], folder: Path) -> dict[str, Any]:
    """One command's wall time, exit code, LLM summary rows and progress lines."""
    command = [
        sys.executable, "-m", "factscope", "check", str(REPO / "examples" / "check.jsonl"),
        "-o", str(folder / "checked.jsonl"), "--llm", "local:embedded", "--llm-cache", "off", *options,
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "COLUMNS": "200"}
    load = load_average()
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, check=False, env=env, capture_output=True, text=True, cwd=folder)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - used.ru_utime) + (after.ru_stime - used.ru_stime)
    rows = dict(SUMMARY_ROW.findall(done.stdout))
    return {
        "command": " ".join(["factscope", "check", "examples/check.jsonl", *options, "--llm", "local:embedded"]),
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu, 1),
        "exit_code": done.returncode,
        "load_average_before": load,
        "llm_summary": rows,
        "progress_lines": sum(1 for line in done.stderr.splitlines() if "LLM" in line or "extracting" in line),
        "stderr_tail": done.stderr[-1500:],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--role", choices=sorted(COMMANDS), action="append", help="time only these roles")
    add_out_option(parser)
    args = parser.parse_args()
    figures: dict[str, Any] = {}
    for role in args.role or sorted(COMMANDS):
        with tempfile.TemporaryDirectory() as folder:
            figures[role] = timed(COMMANDS[role], Path(folder))
        print(json.dumps({role: figures[role]}, indent=2), flush=True)
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
