"""Field types of the input models: exact where a reader needs one type, tolerant where files spell a value
several ways (one text or a list of texts, an id as a string or a number, a flag as true / false or 1 / 0). Each
type used in a record carries the JSON Schema of what it takes, so that a model's schema (a server's request
schema) says what its validation accepts."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, WithJsonSchema

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


SPACES = r"[\s\x1c-\x1f]"
"""A regular expression that finds a character ``str.strip`` removes: Unicode's white space (``\\s``) and the
separators U+001C to U+001F, which Python counts as space too."""

NON_BLANK = r"[^\s\x1c-\x1f]"
"""A regular expression that finds a character ``str.strip`` keeps: a string it finds one in is not blank."""

NON_BLANK_STRING: dict[str, Any] = {"type": "string", "pattern": NON_BLANK}
"""The JSON Schema of a string with some non-space text in it."""

STRINGS: dict[str, Any] = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
"""The JSON Schema of one string or a list of strings."""

SOME_TEXT: dict[str, Any] = {
    "anyOf": [NON_BLANK_STRING, {"type": "array", "items": {"type": "string"}, "contains": NON_BLANK_STRING}]
}
"""The JSON Schema of passages with one at least that is not blank: one such string, or a list holding one."""

_FLAG_WORDS = {"true": True, "1": True, "false": False, "0": False}


def _flag(value: Any) -> Any:
    if type(value) is int and value in (0, 1):
        return bool(value)
    if type(value) is str and value.strip().lower() in _FLAG_WORDS:  # a CSV cell
        return _FLAG_WORDS[value.strip().lower()]
    if type(value) is not bool:
        raise ValueError(f"expected true / false or 1 / 0, got {value!r}")
    return value


Identifier = Annotated[
    str, BeforeValidator(_identifier), WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "integer"}]})
]
"""An id: a string, or a whole number read as its decimal text."""

NonBlank = Annotated[str, AfterValidator(_not_blank), WithJsonSchema(NON_BLANK_STRING)]
"""A string with some non-space text in it (kept as given)."""

Texts = Annotated[list[str], BeforeValidator(_one_or_many), WithJsonSchema(STRINGS)]
"""One string or a list of strings, read as a list."""

Passages = Annotated[Texts, AfterValidator(_without_blanks)]
"""One string or a list of strings, blank ones dropped."""

Flag = Annotated[bool, BeforeValidator(_flag)]
"""A boolean given as true / false or as 1 / 0 (as JSON values, or as the text of a CSV cell)."""
