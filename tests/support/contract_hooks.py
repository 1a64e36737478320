"""Schemathesis hooks of the server's contract test (``SCHEMATHESIS_HOOKS=contract_hooks``): the one exception
to "a request the schema allows is accepted" is a 422 for a rule that the schema cannot state, each told apart
here from the request itself, read as the test's server reads it (its systems, parsers and ``admit``):

- a synchronous request whose records repeat an id (ids are unique across a request; a record without one gets
  it from its content or its place);
- a synchronous request whose records its system refuses together with the request's options
  (``ServedSystem.admit``): check records without references on a server without a retriever, unless the request
  sets ``allow_missing_references``; a grounding breakdown by a field no record has;
- a job without an input file (no body and no ``path``), naming a file that its server's ``inputs/`` does not
  hold (``path``), or with options (a JSON object in the ``options`` query parameter) that are not its
  system's.

Any other refusal of a schema-valid request stays a failure."""

from __future__ import annotations

import json
from typing import Any

import schemathesis
from schemathesis.specs.openapi.checks import RejectedPositiveData

from factscope.core.errors import ConfigError, InputError
from factscope.serve.config import Components
from factscope.serve.request_options import chosen_options
from factscope.serve.systems import make_systems

SERVED = {system.path: system for system in make_systems(Components(knowledge_lm="none")).values()}
"""The systems of the test's server, by the path of their endpoint (their components are never built here)."""
JOB_FIELDS = ("body", "path", "options")
"""The fields of a job's refusals for a rule of its parameters together or of the server's files."""


@schemathesis.hook
def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
    """Keep every failure but a schema-valid request refused (422) for one of the rules above."""
    return not (isinstance(failure, RejectedPositiveData) and response.status_code == 422
                and _refused_by_a_stated_rule(case, response))


def _refused_by_a_stated_rule(case: Any, response: Any) -> bool:
    if case.path == "/v1/jobs":
        field = json.loads(response.content)["error"]["field"] or ""
        return field.split(".")[0] in JOB_FIELDS
    system = SERVED.get(case.path)
    if system is None:
        return False
    try:
        request = system.request_type.model_validate(case.body)
        items = [system.parse(record, index) for index, record in enumerate(request.records)]
    except (InputError, ValueError):
        return False
    ids = [system.item_id(item) for item in items]
    if len(set(ids)) < len(ids):
        return True
    try:
        system.admit(items, chosen_options(request))
    except (InputError, ConfigError):
        return True
    return False
