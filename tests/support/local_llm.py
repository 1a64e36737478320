"""A real local OpenAI-compatible server for tests: llama-cpp-python's server with the embedded SmolLM2-135M-Instruct.

``LocalLLMServer`` starts ``python -m llama_cpp.server`` on 127.0.0.1 at a free port, waits until it answers
``GET /v1/models`` and stops it on exit; its log is kept for the error message when it does not come up. The
``local_llm`` fixture (tests/conftest.py) starts one for the whole test session. Unlike tests/support/fake_llm.py it
scripts nothing: the replies are a 135M model's, short and often malformed, so tests assert the pipelines'
behaviour on them (parsed, or kept raw and marked failed; resumed; usage counted), never their quality.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Self

import httpx

MODEL_ALIAS = "smollm2"
READY_SECONDS = 120.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalLLMServer:
    """``python -m llama_cpp.server`` with ``model`` on 127.0.0.1, started on enter and stopped on exit."""

    def __init__(self, model: Path, log: Path, *, context: int = 2048, threads: int | None = None) -> None:
        from factscope.hf.llama_cpp_lm import cpu_threads

        self.model = model
        self.log = log
        self.context = context
        self.threads = threads or cpu_threads()
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Self:
        command = [
            sys.executable, "-m", "llama_cpp.server", "--model", str(self.model), "--model_alias", MODEL_ALIAS,
            "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.context),
            "--n_threads", str(self.threads), "--n_threads_batch", str(self.threads),
        ]
        # sleeping, not spinning, thread waits: the tests share the machine's cores with the server
        environment = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            env=environment)
        try:
            self._wait()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _wait(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + READY_SECONDS
        with httpx.Client(timeout=5) as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(f"llama_cpp.server exited ({self.process.returncode}): {self._log_tail()}")
                try:
                    if client.get(f"{self.base_url}/models").status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                time.sleep(0.2)
        raise RuntimeError(f"llama_cpp.server did not answer within {READY_SECONDS:.0f} s: {self._log_tail()}")

    def _log_tail(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-2000:]

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)
        self.process = None
