"""The error statuses the server answers, as the OpenAPI schema declares them: each with what it means and the
body every error has (``Problem``: ``{"error": {"message", "field", "record"}}``); ``declared`` gives an
endpoint's ``responses``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel


class ProblemDetail(BaseModel):
    """What is wrong with a request, and where."""

    message: str
    field: str | None = None
    """The field, parameter or record field at fault (``records.0.response``), where there is one."""
    record: int | None = None
    """The index (from 0) of the record at fault, where there is one."""


class Problem(BaseModel):
    """The body of every error the server answers."""

    error: ProblemDetail


MEANINGS: dict[int, str] = {
    400: "a body that cannot be read: JSON that does not parse, or a broken multipart upload",
    401: "the request carries no API key, or a wrong one",
    404: "no job of that id",
    413: "a body over the server's limit, or more records than one request takes (send them as a job)",
    415: "a body that is neither a file nor a multipart upload of one",
    422: "a parameter, option or record the server refuses, named in the error",
    503: "a component that the server's settings cannot build or run (an LLM component without an endpoint)",
    507: "the server's data folder refused a write (a full disk); nothing was kept",
}
"""What each error status the server answers means."""

RECORDS = (400, 413, 422, 503)
"""The errors of a synchronous request."""
FILE_JOB = (400, 413, 415, 422, 503, 507)
"""The errors of a job's submission."""
JOB = (404, 422)
"""The errors of a request about one job."""


def declared(statuses: Iterable[int], key: int | None) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of an endpoint that answers the errors ``statuses``, and ``key`` (401) where the server
    asks for an API key."""
    chosen = [*statuses, *([key] if key is not None else [])]
    return {status: {"model": Problem, "description": MEANINGS[status]} for status in sorted(chosen)}
