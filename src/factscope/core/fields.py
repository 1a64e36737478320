"""Field types of the input models: exact where a reader needs one type, tolerant where files spell a value
several ways (one text or a list of texts, an id as a string or a number, a flag as true / false or 1 / 0)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator

from factscope.core.files.error_location import json_kind


def _identifier(value: Any) -> Any:
    if type(value) is int:
        return str(value)
    if type(value) is not str:
        raise ValueError(f"expected a string or a number, got {json_kind(value)}")
    return value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("empty; expected a non-empty string")
    return value


def _one_or_many(value: Any) -> Any:
    if type(value) is str:
        return [value]
    if type(value) is not list:
        raise ValueError(f"expected a string or a list of strings, got {json_kind(value)}")
    return value


def _without_blanks(values: list[str]) -> list[str]:
    return [value for value in values if value.strip()]


_FLAG_WORDS = {"true": True, "1": True, "false": False, "0": False}


def _flag(value: Any) -> Any:
    if type(value) is int and value in (0, 1):
        return bool(value)
    if type(value) is str and value.strip().lower() in _FLAG_WORDS:  # a CSV cell
        return _FLAG_WORDS[value.strip().lower()]
    if type(value) is not bool:
        raise ValueError(f"expected true / false or 1 / 0, got {value!r}")
    return value


Identifier = Annotated[str, BeforeValidator(_identifier)]
"""An id: a string, or a whole number read as its decimal text."""

NonBlank = Annotated[str, AfterValidator(_not_blank)]
"""A string with some non-space text in it (kept as given)."""

Texts = Annotated[list[str], BeforeValidator(_one_or_many)]
"""One string or a list of strings, read as a list."""

Passages = Annotated[Texts, AfterValidator(_without_blanks)]
"""One string or a list of strings, blank ones dropped."""

Flag = Annotated[bool, BeforeValidator(_flag)]
"""A boolean given as true / false or as 1 / 0 (as JSON values, or as the text of a CSV cell)."""
