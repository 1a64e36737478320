"""Each choice set is named once: a ``Literal`` alias is defined in one module, and the command line's options take
the library's ``Literal``s rather than copies of them as Enums."""

import ast
from collections import Counter
from pathlib import Path

import repo_paths

PACKAGE = repo_paths.PACKAGE


def _literal_aliases(path: Path) -> list[str]:
    """The names a module binds to a ``Literal[...]`` at its top level."""
    names = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id == "Literal":
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [target.id for target in targets if isinstance(target, ast.Name)]
    return names


def test_every_literal_alias_is_defined_in_one_module():
    counts = Counter(name for path in PACKAGE.rglob("*.py") for name in _literal_aliases(path))
    assert [name for name, count in counts.items() if count > 1] == []


def test_the_command_line_defines_no_enum_of_choices():
    enums = [
        f"{path.name}: {node.name}"
        for path in sorted((PACKAGE / "cli").glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and any(getattr(base, "id", None) == "Enum" for base in node.bases)
    ]
    assert enums == []
