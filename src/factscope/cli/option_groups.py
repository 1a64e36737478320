"""A set of options declared once, as a dataclass of typer-annotated fields, and added to any command that wants
it: the command receives the whole set as one keyword argument."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

Command = TypeVar("Command", bound=Callable[..., None])


def add_option_group(command: Command, group: type, keyword: str) -> Command:
    """``command`` with the fields of the dataclass ``group`` as keyword-only options (typer reads the new
    signature); it is called with them gathered into one ``group`` instance under ``keyword``."""
    hints = typing.get_type_hints(command, include_extras=True)
    option_hints = typing.get_type_hints(group, include_extras=True)
    signature = inspect.signature(command)
    kept = [
        parameter.replace(annotation=hints.get(name, parameter.annotation))
        for name, parameter in signature.parameters.items()
        if name != keyword
    ]
    added = [
        inspect.Parameter(
            field.name, inspect.Parameter.KEYWORD_ONLY, default=field.default, annotation=option_hints[field.name]
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
