"""Reading a synchronous request's records: the limits, the system's own record reader, unique ids, and the
system's policies with the request's options."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from factscope.core.errors import ConfigError, InputError
from factscope.serve.config import Limits
from factscope.serve.request_options import chosen_options
from factscope.serve.systems import ServedSystem


class RequestProblem(Exception):
    """A request the server refuses: its HTTP status, what is wrong, and where (field, record index)."""

    def __init__(self, status: int, message: str, *, field: str | None = None, record: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field
        self.record = record

    def payload(self) -> dict[str, Any]:
        """The JSON error body."""
        return {"error": {"message": self.message, "field": self.field, "record": self.record}}


def too_long(value: Any, limit: int, where: str) -> str | None:
    """The path of the first text in ``value`` longer than ``limit`` characters, or None."""
    if isinstance(value, str):
        return where if len(value) > limit else None
    if isinstance(value, dict):
        children = ((f"{where}.{key}", child) for key, child in value.items())
    elif isinstance(value, list):
        children = ((f"{where}.{index}", child) for index, child in enumerate(value))
    else:
        return None
    for path, child in children:
        found = too_long(child, limit, path)
        if found is not None:
            return found
    return None


def read_records(
    system: ServedSystem[Any, Any], records: Sequence[Any], limits: Limits, options: Mapping[str, Any] | None = None
) -> list[Any]:
    """The request's records as the system's items; raises RequestProblem (413 too many records, 422 a text
    over the limit, a bad record or a repeated id) naming the field and the record's index, and the system's
    InputError (a 422) when it refuses the records together with the request's ``options``
    (``ServedSystem.admit``); a ConfigError of those options with the records (a breakdown by a field no record
    has) is a RequestProblem (422) too."""
    if len(records) > limits.max_records:
        raise RequestProblem(
            413,
            f"{len(records)} records is over the limit of {limits.max_records} per request; send fewer, or submit "
            "the file as a job (POST /v1/jobs)",
            field="records",
        )
    items = []
    seen: dict[str, int] = {}
    for index, record in enumerate(records):
        path = too_long(record, limits.max_field_chars, f"records.{index}")
        if path is not None:
            raise RequestProblem(
                422, f"{path}: over the limit of {limits.max_field_chars:,} characters", field=path, record=index
            )
        try:
            item = system.parse(record, index)
        except InputError as error:
            field = f"records.{index}.{error.field}" if error.field else f"records.{index}"
            raise RequestProblem(422, f"{field}: {error.reason}", field=field, record=index) from None
        item_id = system.item_id(item)
        if item_id in seen:
            raise RequestProblem(
                422, f"records.{index}.id: repeats the id {item_id!r} of record {seen[item_id]}; ids must be unique",
                field=f"records.{index}.id", record=index,
            )
        seen[item_id] = index
        items.append(item)
    try:
        system.admit(items, options)
    except ConfigError as error:
        raise RequestProblem(422, f"records: {error}", field="records") from None
    return items


def job_options(system: ServedSystem[Any, Any], text: str | None) -> dict[str, Any]:
    """The spec options of a job request, given as the JSON object ``text`` (None: none), checked as a synchronous
    request's are (``ServedSystem.options_type``); a RequestProblem (422) names the option that is wrong."""
    if text is None:
        return {}
    try:
        given = json.loads(text)
    except json.JSONDecodeError as error:
        raise RequestProblem(422, f"options: not JSON ({error.msg})", field="options") from None
    if not isinstance(given, dict):
        raise RequestProblem(422, "options: give a JSON object of the system's options", field="options")
    try:
        return chosen_options(system.options_type.model_validate(given))
    except ValidationError as error:
        detail = error.errors()[0]
        name = ".".join(str(part) for part in detail["loc"])
        raise RequestProblem(422, f"options.{name}: {detail['msg'].lower()}", field=f"options.{name}") from None
