"""Dependencies point one way: each package imports only the layers below it (see docs, architecture)."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "factscope"

ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "llm": {"core"},
    "hf": {"core", "llm"},
    "kg": {"core", "llm"},
    "metrics": {"core", "kg"},
    "claims": {"core", "llm", "hf"},
    "checkers": {"core", "llm", "hf"},
    "retrieve": {"core", "llm", "hf", "kg"},
    "refchecker": {"core", "llm", "hf", "claims", "checkers", "retrieve", "metrics", "plots"},
    "grounding": {"core", "llm", "hf", "claims", "checkers", "retrieve", "metrics", "plots"},
    "kalma": {"core", "llm", "hf", "kg", "checkers", "retrieve", "metrics", "plots"},
    "conner": {"core", "llm", "hf", "checkers", "retrieve", "metrics", "plots"},
    "evaluation": {"core", "llm", "hf", "checkers", "metrics"},
    "plots": {"core"},
    "engines": {"core"},
    "training": {"core", "hf", "checkers", "metrics", "evaluation"},
    "reports": {"core", "metrics", "plots", "refchecker", "grounding", "kalma", "conner"},
    "serve": {
        "core", "llm", "hf", "kg", "claims", "checkers", "retrieve", "metrics", "evaluation", "plots",
        "refchecker", "grounding", "kalma", "conner", "reports",
    },
}
"""What each layer may import; the systems never import each other, and nothing below the CLI imports training."""


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        found.update(name.split(".")[1] for name in names if name.startswith("factscope."))
    return found


def test_every_package_imports_only_the_layers_below_it():
    violations = []
    for package, allowed in ALLOWED.items():
        for path in sorted((PACKAGE / package).rglob("*.py")):
            for target in sorted(_imports(path) - allowed - {package}):
                violations.append(f"{path.relative_to(PACKAGE)} imports factscope.{target}")
    assert violations == []


def test_every_package_has_a_layer():
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages - {"cli"} == set(ALLOWED)
