"""Dependencies point one way: each package imports only the layers below it (see docs, architecture), and no
module imports, however indirectly, a module that imports it back.

Every ``factscope`` import counts, wherever it stands: at the top of a module, inside a function or under
``TYPE_CHECKING``."""

import ast
from pathlib import Path

import repo_paths

PACKAGE = repo_paths.PACKAGE
ROOT = "factscope"
"""The layer of the package root (``factscope/__init__.py``, the public Python API)."""

ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "llm": {"core"},
    "hf": {"core", "llm"},
    "kg": {"core", "llm"},
    "metrics": {"core", "kg"},
    "claims": {"core", "llm", "hf"},
    "checkers": {"core", "llm", "hf"},
    "retrieve": {"core", "llm", "hf", "kg"},
    "refchecker": {"core", "llm", "hf", "claims", "checkers", "retrieve", "metrics", "plots", "engines"},
    "grounding": {"core", "llm", "hf", "claims", "checkers", "retrieve", "metrics", "plots", "engines"},
    "kalma": {"core", "llm", "hf", "kg", "checkers", "retrieve", "metrics", "plots", "engines"},
    "conner": {"core", "llm", "hf", "checkers", "retrieve", "metrics", "plots", "engines"},
    "evaluation": {"core", "llm", "hf", "checkers", "metrics"},
    "plots": {"core"},
    "engines": {"core"},
    "training": {"core", "hf", "checkers", "metrics", "evaluation"},
    "systems": {"engines", "refchecker", "grounding", "kalma", "conner"},
    "reports": {"core", "metrics", "plots", "engines", "refchecker", "grounding", "kalma", "conner", "systems"},
    "serve": {
        "core", "llm", "hf", "kg", "claims", "checkers", "retrieve", "metrics", "evaluation", "plots", "engines",
        "refchecker", "grounding", "kalma", "conner", "systems", "reports",
    },
    ROOT: {
        "core", "llm", "hf", "kg", "metrics", "claims", "checkers", "retrieve", "refchecker", "grounding", "kalma",
        "conner", "evaluation", "plots", "engines", "systems", "reports",
    },
    "testing": {
        "core", "llm", "hf", "kg", "metrics", "claims", "checkers", "retrieve", "refchecker", "grounding", "kalma",
        "conner", "evaluation", "plots", "engines", "systems", "reports", ROOT,
    },
    "integrations": {
        "core", "llm", "hf", "kg", "metrics", "claims", "checkers", "retrieve", "refchecker", "grounding", "kalma",
        "conner", "evaluation", "plots", "engines", "systems", "reports", ROOT,
    },
    "cli": {
        "core", "llm", "hf", "kg", "metrics", "claims", "checkers", "retrieve", "refchecker", "grounding", "kalma",
        "conner", "evaluation", "plots", "engines", "systems", "training", "reports", "serve", ROOT,
    },
    "__main__": {"cli"},
}
"""What each layer may import; the systems never import each other, nothing below the CLI imports training, and
no layer below the package root imports it (the front-ends, the CLI and the server, sit on top, and so do the
pytest plugin ``testing`` and the ``integrations`` with other tools, which use the package root's API)."""


def _module(path: Path) -> str:
    """The dotted name of a module of the package (a package's ``__init__`` names the package)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _layer(module: str) -> str:
    """``core`` for ``factscope.core.schema``, the root layer for ``factscope``, ``__main__`` for the entry module."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ROOT


def _imported(module: str) -> set[str]:
    """The ``factscope`` modules (or packages) that ``module`` imports anywhere in its text; ``from X import y``
    names the module ``X.y`` where there is one, else ``X``."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.update(
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names
            )
    return {name for name in found if name == ROOT or name.startswith(ROOT + ".")} - {module}


def test_every_import_goes_to_a_layer_below():
    violations = []
    for module in MODULES:
        layer = _layer(module)
        for target in sorted(_imported(module)):
            if _layer(target) not in ALLOWED[layer] | {layer}:
                violations.append(f"{module} imports {target}")
    assert violations == []


def test_no_module_imports_itself_through_others():
    graph = {module: {target for target in _imported(module) if target in MODULES} for module in MODULES}
    cycles = []
    state: dict[str, str] = {}  # "open" while a module's imports are followed, "done" after

    def visit(module: str, trail: list[str]) -> None:
        state[module] = "open"
        trail = [*trail, module]
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                cycles.append(" -> ".join([*trail[trail.index(target):], target]))
            elif target not in state:
                visit(target, trail)
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
    assert cycles == []


def test_every_package_has_a_layer():
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    modules = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    assert packages | modules | {ROOT} == set(ALLOWED)
