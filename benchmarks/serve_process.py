"""`factscope serve` as a subprocess on a free 127.0.0.1 port, for the serving benchmarks (``serve_load``,
``serve_soak``): started with a data folder and further options, waited for until ``/v1/health`` answers, its
resident memory read, and stopped when the benchmark is done."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx

START_SECONDS = 600
"""How long the server may take to answer its first health request (it loads its models first)."""


def free_port() -> int:
    """A free port on 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rss_mib(pid: int) -> float | None:
    """Resident memory of a process in MiB (Linux), or None."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


@contextmanager
def serving(
    data_dir: Path, options: Sequence[str], log: Path | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`factscope serve --data-dir DATA_DIR OPTIONS` on a free loopback port: the process and its base URL once it
    answers, terminated on leaving. Its output goes to ``log`` (default: discarded)."""
    port = free_port()
    command = [sys.executable, "-m", "factscope", "serve", "--port", str(port), "--data-dir", str(data_dir),
               *options]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    with (log.open("wb") if log else open(os.devnull, "wb")) as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env=env)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_for(process, url)
        yield process, url
    finally:
        process.terminate()
        process.wait(30)


def _wait_for(process: subprocess.Popen[bytes], url: str) -> None:
    deadline = time.time() + START_SECONDS
    while time.time() < deadline:
        if process.poll() is not None:
            raise SystemExit("the server exited before answering")
        try:
            if httpx.get(f"{url}/v1/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.5)
    raise SystemExit(f"the server did not answer within {START_SECONDS} s")
