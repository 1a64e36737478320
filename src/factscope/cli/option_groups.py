"""A set of options declared once, as a dataclass, and added to any command that wants it: the command receives
the whole set as one keyword argument. The dataclass's fields are typer-annotated (``add_option_group``) or, for a
library dataclass that knows nothing of typer, carry their help and range in their metadata (``add_field_options``).
"""

from __future__ import annotations

import functools
import inspect
import math
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, Field, fields
from typing import Annotated, Any, TypeVar

import typer

from factscope.cli.parameter_flags import with_flags
from factscope.core.errors import ConfigError

Command = TypeVar("Command", bound=Callable[..., None])


def add_option_group(command: Command, group: type, keyword: str) -> Command:
    """``command`` with the fields of the dataclass ``group`` as keyword-only options (typer reads the new
    signature); it is called with them gathered into one ``group`` instance under ``keyword``."""
    return _with_group(command, group, keyword, typing.get_type_hints(group, include_extras=True))


def add_field_options(command: Command, group: type, keyword: str) -> Command:
    """``command`` with an option ``--field-name`` for each field of the dataclass ``group``, of the field's type
    and default, with the help text and range of its metadata (``help``; ``min``, ``max``; ``min_open``: the value
    must exceed ``min``; ``check``: a function that raises ConfigError or ValueError on a bad value); a float
    option also refuses nan and inf. A parameter the help names (`context_epochs`) is shown as its flag. It is
    called with them gathered into one ``group`` instance under ``keyword``."""
    types = typing.get_type_hints(group)
    flags = {item.name: "--" + item.name.replace("_", "-") for item in fields(group)}
    hints = {
        item.name: Annotated[types[item.name], _option(item, types[item.name], flags)]
        for item in fields(group)
    }
    return _with_group(command, group, keyword, hints)


def _option(item: Field[Any], kind: Any, flags: Mapping[str, str]) -> Any:
    """The typer option of the field ``item`` (of type ``kind``)."""
    meta = item.metadata
    low = meta.get("min")
    return typer.Option(
        flags[item.name],
        help=with_flags(meta["help"], flags),
        min=None if meta.get("min_open") else low,
        max=meta.get("max"),
        callback=_checked(meta, float in (kind, *typing.get_args(kind))),
    )


def _checked(meta: Mapping[str, Any], real: bool) -> Callable[[Any], Any] | None:
    """The parse-time check of an option with the metadata ``meta`` (``real``: of float values), or None."""
    check = meta.get("check")
    above = meta["min"] if meta.get("min_open") else None
    if check is None and above is None and not real:
        return None

    def checked(value: Any) -> Any:
        if value is None:
            return value
        if real and not math.isfinite(value):
            raise typer.BadParameter(f"{value} is not a finite number")
        if above is not None and not value > above:
            raise typer.BadParameter(f"{value} is not above {above:g}")
        if check is not None:
            try:
                check(value)
            except (ConfigError, ValueError) as error:
                raise typer.BadParameter(str(error)) from None
        return value

    return checked


def _with_group(command: Command, group: type, keyword: str, option_hints: Mapping[str, Any]) -> Command:
    """``command`` with the fields of ``group`` as keyword-only options annotated by ``option_hints``."""
    hints = typing.get_type_hints(command, include_extras=True)
    signature = inspect.signature(command)
    kept = [
        parameter.replace(annotation=hints.get(name, parameter.annotation))
        for name, parameter in signature.parameters.items()
        if name != keyword
    ]
    added = [
        inspect.Parameter(
            field.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=inspect.Parameter.empty if field.default is MISSING else field.default,
            annotation=option_hints[field.name],
        )
        for field in fields(group)
    ]

    @functools.wraps(command)
    def wrapper(**kwargs: Any) -> None:
        options = group(**{field.name: kwargs.pop(field.name) for field in fields(group)})
        command(**kwargs, **{keyword: options})

    wrapper.__signature__ = signature.replace(parameters=kept + added)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {**{p.name: p.annotation for p in kept + added}, "return": None}
    return typing.cast(Command, wrapper)
