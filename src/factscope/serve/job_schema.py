"""The jobs endpoint's ``options`` parameter as the OpenAPI schema declares it. The endpoint reads the parameter
as text (``factscope.serve.requests.job_options``), so FastAPI alone shows a string; the schema declares it
instead as a JSON-encoded value (OpenAPI 3.1's ``content: {"application/json": ...}``) whose schema is any of the
systems' job options (``CheckOptions``, ``GroundOptions``, ...: their types, choices, ranges and defaults), each
in the schema's components."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from factscope.serve.systems import ServedSystem

COMPONENT = "#/components/schemas/{model}"
"""Where a model's schema is, as a ``$ref``."""


def declare_job_options(
    schema: dict[str, Any], systems: Mapping[str, ServedSystem[Any, Any]], path: str = "/v1/jobs"
) -> dict[str, Any]:
    """``schema`` (an OpenAPI document, changed in place) with the ``options`` query parameter of POST ``path``
    declared as JSON of any of the ``systems``' job options, and those options' models added to its components."""
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    choices = []
    for system in systems.values():
        model = system.options_type
        found = model.model_json_schema(ref_template=COMPONENT)
        components.update(found.pop("$defs", {}))
        components[model.__name__] = found
        choices.append({"$ref": COMPONENT.format(model=model.__name__)})
    parameters = schema["paths"][path]["post"]["parameters"]
    options = next(parameter for parameter in parameters if parameter["name"] == "options")
    del options["schema"]
    options["content"] = {"application/json": {"schema": {"anyOf": choices}}}
    return schema
