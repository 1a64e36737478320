"""For tests that run the real CLI in a subprocess against the fake LLM server: its environment, a script of LLM
faults, and JSON Lines in and out."""

from __future__ import annotations

import json
import os
from pathlib import Path

from fake_llm import Fail, Hang, Raw

FAULTS = [Fail(500), Fail(429, retry_after=0), Hang(3), Raw("not json at all"), Raw('{"choices": [{"mess')]
"""One of each fault the LLM client must survive: a server error, a rate limit, a hung call, malformed and
truncated JSON."""


def llm_environment(timeout: float = 1.0) -> dict[str, str]:
    """The subprocess's environment: offline, no retries, and a short LLM timeout so a hung call ends fast."""
    return {**os.environ, "HF_HUB_OFFLINE": "1", "FACTSCOPE_LLM_TIMEOUT": f"{timeout:g}",
            "FACTSCOPE_LLM_MAX_RETRIES": "0"}


def write_jsonl(path: Path, rows: list[dict]) -> None:
    """``rows`` as a JSON Lines file at ``path``."""
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def read_rows(out: Path) -> list[dict]:
    """The rows of the results file ``out``, which must not end in a torn line."""
    text = out.read_text(encoding="utf-8")
    assert not text or text.endswith("\n"), "no torn last line"
    return [json.loads(line) for line in text.splitlines()]
