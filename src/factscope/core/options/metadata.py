"""An option declared once: a dataclass field whose metadata holds its help text, range and flag, read by every
front-end that offers the field (the command line builds its option from it, see ``factscope.cli.option_groups``;
the server its request fields, see ``factscope.serve.request_options``) and by the results file's manifest
(``factscope.core.files.manifest.spec_settings``).

A field without a help text is not offered as an option: it keeps its default there.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import sys
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import Field, fields
from types import ModuleType
from typing import Any


def about(help: str, *, catalogue: Callable[[], str] | None = None, **limits: Any) -> Mapping[str, Any]:
    """A field's metadata: its ``help`` text (a parameter written in backticks, `name`, is shown as its flag),
    followed by the text ``catalogue`` gives where there is one (a registry's list of components, plugins
    included, made only when a front-end reads the help, so that plugins are imported only then), and its
    ``limits``: ``min`` and ``max``; ``min_open``, the value must exceed ``min``; ``check``, a function that
    raises ConfigError or ValueError on a bad value; ``flag``, the option's flags where they are not the field's
    name ('--segment-tokens', '--abstention-detection/--no-abstention-detection'); ``option_type`` and
    ``parse``, the type the option reads where it is not the field's and the function that turns it into the
    field's value; ``envvar``, an environment variable the option is read from when it is not given;
    ``counts_when``, the option's rule (``factscope.core.options.rules.CountsWhen``, or a tuple of
    them): the other parameters' values it needs to count, without which a front-end refuses it.

    And where the option stands: ``per_request=True``, a setting that the server takes per request (one the
    pipeline is put together with, never one that a component is built with, as the server builds its components
    once); ``recorded_by``, the manifest setting that already records the field's value (a component's
    description: 'presence', 'evaluator'), and ``changes_results=False``, a field that never changes a result row:
    both keep the field itself out of the results file's manifest, which otherwise records it whenever it is not
    at its default."""
    if catalogue is None:
        return {"help": help, **limits}
    return CataloguedMetadata(help, catalogue, limits)


class CataloguedMetadata(Mapping[str, Any]):
    """A field's metadata whose help text ends with a catalogue, made when the help is first read (``about``)."""

    def __init__(self, help: str, catalogue: Callable[[], str], limits: Mapping[str, Any]) -> None:
        self._help = help
        self._catalogue = catalogue
        self._limits = dict(limits)

    def __getitem__(self, key: str) -> Any:
        if key == "help":
            return self._help + self._catalogue()
        return self._limits[key]

    def __contains__(self, key: object) -> bool:
        return key == "help" or key in self._limits

    def __iter__(self) -> Iterator[str]:
        return iter(["help", *self._limits])

    def __len__(self) -> int:
        return 1 + len(self._limits)


def option_fields(group: type) -> list[Field[Any]]:
    """The fields of the dataclass ``group`` offered as options: those with a help text."""
    return [item for item in fields(group) if "help" in item.metadata]


def declared_type(group: type, item: Field[Any]) -> Any:
    """The type of ``group``'s field ``item``, resolved where the field is declared (a subclass's fields and its
    base's each resolve); the names that module imports for the type checker only are imported when the type
    needs them."""
    if not isinstance(item.type, str):
        return item.type
    declared = next(cls for cls in group.__mro__ if item.name in vars(cls).get("__annotations__", {}))
    module = sys.modules[declared.__module__]
    alone = type(group.__name__, (), {"__annotations__": {item.name: item.type}})
    try:
        hints = typing.get_type_hints(alone, globalns=vars(module))
    except NameError:
        hints = typing.get_type_hints(alone, globalns=vars(module), localns=_type_checking_names(module))
    return hints[item.name]


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

