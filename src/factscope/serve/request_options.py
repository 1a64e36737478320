"""A synchronous request's body: its records (one at least), each shown in the schema as its system's
``request_record`` shows it (read by the system's parser, whose errors name the record and the field), and the
options of its system's spec that a request may set, generated from the spec's fields (their type, default, range, check and help text; see
``factscope.core.options.metadata``); a job's options are the same fields without the records.

A request may set the options whose metadata says ``per_request``: settings the pipeline is put together with,
never the choice of a component, as the server builds its components once. The server runs such a request with
its own spec and the options the request gives (``chosen_options``); an option left out keeps the server's value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import MISSING, Field
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, PlainValidator, create_model
from pydantic import Field as RequestField

from factscope.core.errors import ConfigError
from factscope.core.options.metadata import declared_type, option_fields
from factscope.core.options.validation import refusal


class RecordsRequest(BaseModel):
    """A synchronous request: the records to run, each in the system's input format (as in its input files); a
    field that is neither the records nor an option of the request is refused."""

    model_config = ConfigDict(extra="forbid")

    records: list[Any] = RequestField(
        min_length=1, description="records in the system's input format, as one line of its JSONL input"
    )


class RequestOptions(BaseModel):
    """A job's options: the options of a synchronous request; a field that is not one is refused."""

    model_config = ConfigDict(extra="forbid")


def request_options(spec_type: type) -> list[Field[Any]]:
    """The fields of the spec dataclass ``spec_type`` that a request may set (none for a spec that is not a
    dataclass)."""
    if not dataclasses.is_dataclass(spec_type):
        return []
    return [item for item in option_fields(spec_type) if item.metadata.get("per_request")]


def request_model(name: str, spec_type: type, record: type[BaseModel]) -> type[RecordsRequest]:
    """The request body of the system ``name`` (``CheckRequest``, ...): its records, shown in the schema as the
    model ``record`` (and read by the system's parser), and a field for each option of ``request_options``, with
    the option's type, default, range and help; an unknown field is refused."""
    options = _option_fields(spec_type)
    if "records" in options:
        raise ConfigError(f"{spec_type.__name__}: an option named 'records' would hide a request's records")
    records = list[Annotated[Any, PlainValidator(_as_given, json_schema_input_type=record)]]
    return create_model(
        f"{name.capitalize()}Request",
        __base__=RecordsRequest,
        __doc__=f"A synchronous {name} request: its records and the options of this request ({spec_type.__name__}).",
        records=(records, RecordsRequest.model_fields["records"]),
        **options,
    )


def _as_given(record: Any) -> Any:
    """A record as the request gives it: the system's parser reads it."""
    return record


def options_model(name: str, spec_type: type) -> type[RequestOptions]:
    """The options of a job of the system ``name`` (``CheckOptions``, ...): the fields of ``request_model`` but
    the records."""
    return create_model(
        f"{name.capitalize()}Options",
        __base__=RequestOptions,
        __doc__=f"The options of a job of the system {name} ({spec_type.__name__}).",
        **_option_fields(spec_type),
    )


def _option_fields(spec_type: type) -> dict[str, Any]:
    """A pydantic field for each option of ``request_options``, by name."""
    return {item.name: _request_field(spec_type, item) for item in request_options(spec_type)}


def chosen_options(request: RecordsRequest | RequestOptions) -> dict[str, Any]:
    """The options the request gives (those it leaves out keep the server's values), as JSON values."""
    return request.model_dump(mode="json", include=request.model_fields_set - {"records"})


def _request_field(spec_type: type, item: Field[Any]) -> tuple[Any, Any]:
    """The pydantic field of the spec's field ``item``: its type, default, range (shown in the schema) and help;
    a value is refused in the spec's own words (``factscope.core.options.validation.refusal``), a 422."""
    meta = item.metadata
    kind = declared_type(spec_type, item)
    kind = Annotated[kind, AfterValidator(_validator(spec_type, item))]
    limits: dict[str, Any] = {}
    if "min" in meta:
        limits["exclusiveMinimum" if meta.get("min_open") else "minimum"] = meta["min"]
    if "max" in meta:
        limits["maximum"] = meta["max"]
    default = item.default if item.default_factory is MISSING else item.default_factory()
    return kind, RequestField(
        default=default, description=meta["help"].replace("`", ""), json_schema_extra=limits or None
    )


def _validator(spec_type: type, item: Field[Any]) -> Callable[[Any], Any]:
    """A pydantic validator that refuses what the spec refuses of the field ``item`` (a ValueError, a 422)."""

    def checked(value: Any) -> Any:
        problem = refusal(spec_type, item, value)
        if problem is not None:
            raise ValueError(problem)
        return value

    return checked
