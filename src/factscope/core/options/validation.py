"""A dataclass of options validates itself on construction (``ValidatedOptions``): each field's declared limits
(``factscope.core.options.metadata.about``: ``min``, ``max``, ``min_open``, ``check``; a float field is finite), its
choices (the values of a ``Literal`` type) and the rules (``counts_when``) of each field set away from its default,
read over its own fields and those of the option dataclasses it holds. The Python API, the command line and the
server all build the dataclass, so they refuse the same values with the same words (``refusal``)."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import math
import typing
from collections.abc import Mapping
from dataclasses import MISSING, Field
from typing import Any, Literal, TypeVar

from factscope.core.errors import ConfigError
from factscope.core.options.metadata import declared_type
from factscope.core.options.rules import broken_rule, field_rules

T = TypeVar("T")


def refusal(group: type, item: Field[Any], value: Any) -> str | None:
    """Why the value ``value`` of ``group``'s field ``item`` is refused, naming the field (`name`), or None when
    it is within the field's limits and choices."""
    if value is None:
        return None
    meta = item.metadata
    name = f"`{item.name}`"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{name} must be a finite number, not {value}"
    low, high = meta.get("min"), meta.get("max")
    if low is not None and meta.get("min_open") and not value > low:
        return f"{name} must be above {low:g}, not {value:g}"
    if low is not None and not value >= low:
        return f"{name} must be at least {low:g}, not {value:g}"
    if high is not None and not value <= high:
        return f"{name} must be at most {high:g}, not {value:g}"
    options = choices(group, item)
    if options and value not in options:
        return f"{name} must be one of {', '.join(map(repr, options))}, not {value!r}"
    check = meta.get("check")
    if check is not None:
        try:
            check(value)
        except (ConfigError, ValueError) as error:
            return str(error) if "`" in str(error) else f"{name}: {error}"
    return None


@functools.cache
def choices(group: type, item: Field[Any]) -> tuple[Any, ...]:
    """The values the field ``item`` of ``group`` may take when its type is a ``Literal`` (or one or None); else
    none, and any value of its type is taken."""
    if "help" not in item.metadata and "min" not in item.metadata:
        return ()
    kind = declared_type(group, item)
    literals = [part for part in (kind, *typing.get_args(kind)) if typing.get_origin(part) is Literal]
    return tuple(value for part in literals for value in typing.get_args(part))


def default_of(item: Field[Any]) -> Any:
    """The default of the field ``item`` (its factory's value), or MISSING when it has none."""
    return item.default if item.default_factory is MISSING else item.default_factory()


def parameter_values(options: object) -> dict[str, Any]:
    """The values of the dataclass ``options``' fields by name, and of the fields of each option dataclass it
    holds (its own fields first): what a field's rule reads."""
    own = {item.name: getattr(options, item.name) for item in dataclasses.fields(options)}  # type: ignore[arg-type]
    held = {
        name: value
        for inner in own.values()
        if isinstance(inner, ValidatedOptions)
        for name, value in parameter_values(inner).items()
    }
    return held | own


def validate_options(options: object, values: Mapping[str, Any] | None = None) -> None:
    """Raise ConfigError when a field of the dataclass ``options`` is outside its limits or choices, or is set
    away from its default where its rule does not hold for the parameter ``values`` (default: those of
    ``options``, ``parameter_values``); the option dataclasses it holds are checked against the same values."""
    every = parameter_values(options) if values is None else values
    group = type(options)
    for item in dataclasses.fields(options):  # type: ignore[arg-type]
        value = getattr(options, item.name)
        problem = refusal(group, item, value)
        if problem is not None:
            raise ConfigError(problem)
        if isinstance(value, ValidatedOptions) and value is not options:
            validate_options(value, every)
        rule = broken_rule([r for r in field_rules(item) if not r.warn], every)
        if rule is not None and value != default_of(item):
            raise ConfigError(rule_refusal(item.name, rule.condition))


def ignored_options(options: object, values: Mapping[str, Any]) -> dict[str, str]:
    """The fields of the dataclass ``options`` whose rule that only warns does not hold for the parameter
    ``values``, each with its warning: a run ignores them (the Ray engine's settings on the local engine)."""
    ignored = {}
    for item in dataclasses.fields(options):  # type: ignore[arg-type]
        rule = broken_rule([r for r in field_rules(item) if r.warn], values)
        if rule is not None:
            ignored[item.name] = f"{rule_refusal(item.name, rule.condition)}; this run ignores it"
    return ignored


def rule_refusal(name: str, condition: str) -> str:
    """The refusal of the parameter ``name`` given where its rule, whose condition is ``condition``, does not
    hold."""
    return f"`{name}` counts only {condition}"


def options_from(group: type[T], settings: Mapping[str, Any], what: str, base: T | None = None) -> T:
    """The option dataclass ``group`` (``base`` with them replaced, when given) built from ``settings``, its
    fields by name; an unknown name is refused (ConfigError) listing the valid ones and suggesting the nearest
    (``what`` names a setting: 'checker setting')."""
    valid = [item.name for item in dataclasses.fields(group)]  # type: ignore[arg-type]
    for name in settings:
        if name not in valid:
            nearest = difflib.get_close_matches(name, valid, n=1)
            suggestion = f"did you mean '{nearest[0]}'? " if nearest else ""
            raise ConfigError(f"unknown {what} '{name}'; {suggestion}valid: {', '.join(valid)}")
    if base is not None:
        return dataclasses.replace(base, **settings)  # type: ignore[type-var]
    return group(**settings)


class ValidatedOptions:
    """A base of option dataclasses: the instance validates its fields on construction (``validate_options``). A
    subclass with its own ``__post_init__`` calls this one first."""

    def __post_init__(self) -> None:
        validate_options(self)
