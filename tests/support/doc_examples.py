"""The examples of a documentation page, for tests that run them: its ```python blocks (```py blocks are sketches
that need a service, and are not run)."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

from repo_paths import ROOT

DOCS = ROOT / "docs"


def python_blocks(page: str) -> list[str]:
    """The ```python blocks of ``docs/<page>``, in order."""
    text = (DOCS / page).read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.DOTALL | re.MULTILINE)


def run_block(block: str, folder: Path) -> dict[str, object]:
    """Run a block as a script in this process (as ``folder/example.py``); its globals."""
    script = folder / "example.py"
    script.write_text(block, encoding="utf-8")
    return runpy.run_path(str(script), run_name="example")
