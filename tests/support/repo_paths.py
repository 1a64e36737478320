"""Paths of the repository's shipped files and of the tests' own data, for tests (the one place they are named)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root folder."""
PACKAGE = ROOT / "src" / "factscope"
"""The ``factscope`` package's source folder."""
EXAMPLES = PACKAGE / "examples"
"""The shipped examples (``examples/`` at the root links here)."""
DATA = ROOT / "tests" / "data"
"""Small input files written for the tests, one folder per system."""
SUPPORT = ROOT / "tests" / "support"
"""The tests' shared modules (on the import path of a subprocess that needs them)."""
