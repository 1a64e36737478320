"""The Python examples of the documentation, for tests that run them: the ```python and ```py blocks of every page
under docs/ and of README.md, and the file and model names a block's code writes as string literals."""

from __future__ import annotations

import ast
import re
import runpy
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from repo_paths import ROOT

DOCS = ROOT / "docs"
_PYTHON_BLOCK = re.compile(r"^```(?:python|py)\n(.*?)^```$", flags=re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class PythonExample:
    """One Python block of a page (``docs/``-relative, or README.md) and its place among the page's blocks."""

    page: str
    index: int
    code: str

    def has_line(self, start: str) -> bool:
        """Whether one of the block's lines, stripped, starts with ``start``."""
        return any(text.strip().startswith(start) for text in self.code.splitlines())


def python_blocks(page: str) -> list[str]:
    """The ```python and ```py blocks of ``docs/<page>``, in order."""
    return _PYTHON_BLOCK.findall((DOCS / page).read_text(encoding="utf-8"))


def python_examples() -> list[PythonExample]:
    """Every Python block of the documentation, pages in path order (README.md last), blocks in page order."""
    pages = [*sorted(DOCS.rglob("*.md")), ROOT / "README.md"]
    return [
        PythonExample(str(page.relative_to(DOCS if page.is_relative_to(DOCS) else ROOT)), index, code)
        for page in pages
        for index, code in enumerate(_PYTHON_BLOCK.findall(page.read_text(encoding="utf-8")))
    ]


def run_block(block: str, folder: Path) -> dict[str, object]:
    """Run a block as a script in this process (as ``folder/example.py``); its globals."""
    script = folder / "example.py"
    script.write_text(block, encoding="utf-8")
    return runpy.run_path(str(script), run_name="example")


OUTPUT_KEYWORDS = ("output", "report", "out")
"""Keyword arguments whose string value names a file the call writes."""


def named_inputs(code: str, functions: dict[str, str]) -> list[tuple[str, str]]:
    """The string literals of ``code`` that are not a written file's name (the value of an OUTPUT_KEYWORDS
    keyword), each with the kind of the innermost call named in ``functions`` that holds it (``""`` outside
    them), in order of appearance."""
    tree = ast.parse(code)
    kinds: dict[int, str] = {}
    written: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            for keyword in node.keywords:
                if keyword.arg in OUTPUT_KEYWORDS:
                    written.add(id(keyword.value))
            if name in functions:
                for inner in ast.walk(node):
                    kinds[id(inner)] = functions[name]
    found = [
        (node.value, kinds.get(id(node), ""), (node.lineno, node.col_offset))
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in written
    ]
    return [(value, kind) for value, kind, _ in sorted(found, key=lambda item: item[2])]


def with_literals(code: str, replace: Callable[[str], str], kept: tuple[str, ...] = ()) -> ast.Module:
    """``code`` parsed, with each string literal ``text`` replaced by ``replace(text)``, but the values of the
    keyword arguments named in ``kept``."""

    class Replace(ast.NodeTransformer):
        def visit_keyword(self, node: ast.keyword) -> ast.keyword:
            return node if node.arg in kept else self.generic_visit(node)

        def visit_Constant(self, node: ast.Constant) -> ast.Constant:
            if isinstance(node.value, str):
                return ast.copy_location(ast.Constant(replace(node.value)), node)
            return node

    return Replace().visit(ast.parse(code))


def free_names(code: str) -> set[str]:
    """The names ``code`` reads but never binds (those it takes from the text around it, or from builtins)."""
    tree = ast.parse(code)
    names = [node for node in ast.walk(tree) if isinstance(node, ast.Name)]
    bound = {node.id for node in names if not isinstance(node.ctx, ast.Load)}
    bound |= {
        alias.asname or alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    bound |= {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    return {node.id for node in names if isinstance(node.ctx, ast.Load)} - bound
