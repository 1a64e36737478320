"""The type checker and the documentation build run with the test suite, so neither can rot unseen."""

import subprocess
import sys

import repo_paths

ROOT = repo_paths.ROOT


def test_mypy_passes_on_the_package():
    """In a process of its own: mypy raises the interpreter's recursion limit, which other tests rely on."""
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), str(ROOT / "src" / "factscope")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_documentation_builds_strictly(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "index.html").is_file()
