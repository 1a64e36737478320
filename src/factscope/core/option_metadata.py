"""An option declared once: a dataclass field whose metadata holds its help text, range and flag, read by every
front-end that offers the field (the command line builds its option from it, see ``factscope.cli.option_groups``;
the server its request fields, see ``factscope.serve.request_options``) and by the results file's manifest
(``factscope.core.manifest.spec_settings``).

A field without a help text is not offered as an option: it keeps its default there.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import sys
from dataclasses import Field, fields
from types import ModuleType
from typing import Any


def about(help: str, **limits: Any) -> dict[str, Any]:
    """A field's metadata: its ``help`` text (a parameter written in backticks, `name`, is shown as its flag) and
    its ``limits``: ``min`` and ``max``; ``min_open``, the value must exceed ``min``; ``check``, a function that
    raises ConfigError or ValueError on a bad value; ``flag``, the option's flags where they are not the field's
    name ('--segment-tokens', '--abstention-detection/--no-abstention-detection'); ``option_type`` and
    ``parse``, the type the option reads where it is not the field's and the function that turns it into the
    field's value.

    And where the option stands: ``per_request=True``, a setting that the server takes per request (one the
    pipeline is put together with, never one that a component is built with, as the server builds its components
    once); ``recorded_by``, the manifest setting that already records the field's value (a component's
    description: 'presence', 'evaluator'), and ``changes_results=False``, a field that never changes a result row:
    both keep the field itself out of the results file's manifest, which otherwise records it whenever it is not
    at its default."""
    return {"help": help, **limits}


def option_fields(group: type) -> list[Field[Any]]:
    """The fields of the dataclass ``group`` offered as options: those with a help text."""
    return [item for item in fields(group) if "help" in item.metadata]


def declared_type(group: type, item: Field[Any]) -> Any:
    """The type of ``group``'s field ``item``, resolved where the field is declared (a subclass's fields and its
    base's each resolve), with the names that module imports for the type checker only."""
    if not isinstance(item.type, str):
        return item.type
    declared = next(cls for cls in group.__mro__ if item.name in vars(cls).get("__annotations__", {}))
    module = sys.modules[declared.__module__]
    namespace = {**vars(module), **_type_checking_names(module)}
    return eval(item.type, namespace)


@functools.cache
def _type_checking_names(module: ModuleType) -> dict[str, Any]:
    """The names ``module`` imports under ``if TYPE_CHECKING:``, imported: a light spec module names the types of
    its fields so."""
    names: dict[str, Any] = {}
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in (s for s in node.body if isinstance(s, ast.ImportFrom) and s.module):
                source = importlib.import_module(str(statement.module))
                names |= {alias.asname or alias.name: getattr(source, alias.name) for alias in statement.names}
    return names

