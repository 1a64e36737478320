"""Errors located in the user's file: a pydantic ``ValidationError`` of one record turned into an ``InputError``
that names the file, the line and the field, in the words of the file's author."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from factscope.core.errors import InputError

ModelT = TypeVar("ModelT", bound=BaseModel)


_JSON_KINDS: dict[type, str] = {
    str: "a string", bool: "true / false", int: "a number", float: "a number", list: "a list",
    dict: "an object", type(None): "null",
}
_EXPECTED: dict[str, str] = {
    "string_type": "expected a string", "list_type": "expected a list", "tuple_type": "expected a list",
    "dict_type": "expected an object", "model_type": "expected an object",
    "model_attributes_type": "expected an object", "bool_type": "expected true or false",
    "int_type": "expected a whole number", "float_type": "expected a number",
}


def json_kind(value: Any) -> str:
    """What a parsed JSON value is, in the words of the file's author: 'a string', 'an object', 'null'."""
    return _JSON_KINDS.get(type(value), type(value).__name__)


def _plain_words(detail: ErrorDetails) -> str:
    """One pydantic error in the words of the input file's author."""
    kind = detail["type"]
    ctx = detail.get("ctx", {})
    if kind == "missing":
        return "missing"
    if kind in ("value_error", "assertion_error"):
        return str(ctx["error"])
    if kind == "literal_error":
        return f"{detail['input']!r} is not one of {ctx['expected']}"
    if kind in _EXPECTED:
        return f"{_EXPECTED[kind]}, got {json_kind(detail['input'])}"
    message = detail["msg"]
    return message[:1].lower() + message[1:]


def located_error(
    error: ValidationError, *, path: str | Path | None, line: int | None, where: str | None = None
) -> InputError:
    """The first problem of a ValidationError as an InputError naming the file, the line and the field.

    The field is the path into the record joined with '.' (``references.2``); ``where`` names the record in
    the message when it has no line (``question 'q7'`` of a file keyed by question id).
    """
    detail = error.errors(include_url=False)[0]
    field = ".".join(str(part) for part in detail["loc"]) or None
    message = _plain_words(detail)
    return InputError(f"{where}: {message}" if where else message, path=path, line=line, field=field)


def parse_located(
    model_type: type[ModelT], data: Any, *, path: str | Path | None, line: int | None, where: str | None = None
) -> ModelT:
    """Validate one raw record into ``model_type``; a bad record raises the located InputError."""
    try:
        return model_type.model_validate(data)
    except ValidationError as error:
        raise located_error(error, path=path, line=line, where=where) from None
