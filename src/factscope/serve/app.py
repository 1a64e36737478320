"""The FastAPI application of ``factscope serve``: synchronous endpoints, the jobs API, the web pages.

``create_app(config)`` builds everything from a ``ServeConfig`` (``serve`` runs it at an address): every system
of ``factscope.systems`` (components built once, on first use or by ``warm``), one model worker with a
micro-batcher per system, the jobs store and its runner.
Errors come back as ``{"error": {"message", "field", "record"}}`` with a status that says whose problem it is,
each declared in the OpenAPI schema of the endpoints that answer it (``factscope.serve.statuses``); a 405 names
the methods the path takes (``Allow``); no response carries a traceback.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal, cast

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.routing import Match

from factscope.core.errors import FactscopeError, InputError
from factscope.core.files.storage_faults import StorageError
from factscope.core.runs.results import FirstRows, repeated_message
from factscope.core.version import __version__
from factscope.serve.config import ServeConfig, Startup
from factscope.serve.job_schema import declare_job_options
from factscope.serve.jobs import FINISHED, Job
from factscope.serve.pages import add_pages
from factscope.serve.request_options import RecordsRequest, chosen_options
from factscope.serve.requests import RequestProblem, job_options
from factscope.serve.security import (
    BodyLimit,
    BodyTooLarge,
    inside,
    key_matches,
    presented_key,
    require_key_off_loopback,
    safe_name,
)
from factscope.serve.server import Server
from factscope.serve.statuses import FILE_JOB, JOB, RECORDS, declared
from factscope.serve.systems import ServedSystem
from factscope.serve.uploads import UPLOAD_FIELD, request_file, save_upload

log = logging.getLogger("factscope.serve")

STATIC = Path(__file__).parent / "static"
UPLOAD_PATHS = ("/v1/jobs", "/jobs")
"""Paths whose bodies are input files, under the upload limit rather than the request limit."""
UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "description": f"the input file: the raw body, or a multipart/form-data upload in the field '{UPLOAD_FIELD}'",
        "content": {
            "application/x-ndjson": {"schema": {"type": "string", "format": "binary"}},
            "multipart/form-data": {"schema": {
                "type": "object",
                "properties": {UPLOAD_FIELD: {"type": "string", "format": "binary"}},
                "required": [UPLOAD_FIELD],
            }},
        },
    },
}
"""The jobs endpoint's body as OpenAPI shows it: the endpoint reads it itself (``request_file``), as a stream."""
OPEN_PATHS = ("/login", "/static/", "/docs-assets/")
"""Paths served without the API key: the sign-in page, the style sheet and scripts."""
CHUNK = 1 << 16


def create_app(
    config: ServeConfig, *, warm: bool = False, systems: dict[str, ServedSystem[Any, Any]] | None = None
) -> FastAPI:
    """The application; ``warm`` builds the models at start-up rather than on the first request. ``systems``
    replaces the systems built from ``config.components`` (another set of systems to serve)."""
    server = Server(config, systems)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if warm:
            await asyncio.to_thread(server.warm)
        server.runner.start()
        try:
            yield
        finally:
            server.runner.stop()
            for batcher in server.batchers.values():
                await batcher.close()
            server.worker.close()

    app = FastAPI(
        title="factscope",
        version=__version__,
        description="Check what language models write against knowledge: RefChecker, Truly Ground, KaLMA, CONNER.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.server = server
    _errors(app)
    _api(app, server, config, 401 if config.api_key else None)
    _schema(app, server)
    add_pages(app, server)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    _docs(app)
    if config.api_key:
        _require_key(app, config.api_key)
    limits = config.limits
    app.add_middleware(
        BodyLimit,
        limit_for=lambda path: limits.max_upload_bytes if path in UPLOAD_PATHS else limits.max_body_bytes,
    )
    return app


def serve(config: ServeConfig, startup: Startup | None = None) -> None:
    """Serve ``create_app(config)`` at ``startup``'s address (default: ``Startup()``, 127.0.0.1:8000, warm) until
    interrupted; raises ConfigError for an address other than loopback without ``config.api_key``."""
    import uvicorn

    startup = startup or Startup()
    require_key_off_loopback(startup.host, config.api_key)
    app = create_app(config, warm=startup.warm)
    uvicorn.run(app, host=startup.host, port=startup.port, log_level="info", server_header=False)


def _schema(app: FastAPI, server: Server) -> None:
    """The OpenAPI schema, made on first request as FastAPI makes it, with the jobs endpoint's ``options`` declared
    as JSON of a system's options (``declare_job_options``)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = declare_job_options(FastAPI.openapi(app), server.systems)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _docs(app: FastAPI) -> None:
    """The OpenAPI docs at /docs, with Swagger UI served from the installed package (no CDN)."""
    import swagger_ui_bundle  # type: ignore[import-untyped]
    from fastapi.openapi.docs import get_swagger_ui_html

    app.mount("/docs-assets", StaticFiles(directory=swagger_ui_bundle.swagger_ui_path), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json", title="factscope API", swagger_js_url="/docs-assets/swagger-ui-bundle.js",
            swagger_css_url="/docs-assets/swagger-ui.css", swagger_favicon_url="/docs-assets/favicon-32x32.png",
        )


def _errors(app: FastAPI) -> None:
    """Every error as a short JSON body with the status that says whose it is; never a traceback."""

    @app.exception_handler(RequestProblem)
    async def problem(_: Request, error: RequestProblem) -> JSONResponse:
        return JSONResponse(error.payload(), status_code=error.status)

    @app.exception_handler(BodyTooLarge)
    async def too_large(_: Request, error: BodyTooLarge) -> JSONResponse:
        message = f"request body is over the limit of {error.limit} bytes"
        return JSONResponse(RequestProblem(413, message, field="body").payload(), status_code=413)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, error: RequestValidationError) -> JSONResponse:
        detail = error.errors()[0] if error.errors() else {"loc": (), "msg": "invalid request"}
        parts = [str(part) for part in detail.get("loc", ()) if part != "body"]
        field = ".".join(parts) or "body"
        record = int(parts[1]) if len(parts) > 1 and parts[0] == "records" and parts[1].isdigit() else None
        message = f"{field}: {str(detail.get('msg', 'invalid')).lower()}"
        return JSONResponse(RequestProblem(422, message, field=field, record=record).payload(), status_code=422)

    @app.exception_handler(InputError)
    async def bad_input(_: Request, error: InputError) -> JSONResponse:
        return JSONResponse(RequestProblem(422, str(error), field=error.field).payload(), status_code=422)

    @app.exception_handler(StorageError)
    async def storage(request: Request, error: StorageError) -> JSONResponse:
        log.error("%s", error)
        data_dir = str(request.app.state.server.config.data_dir.resolve()) + "/"
        message = str(error).replace(data_dir, "")
        return JSONResponse(RequestProblem(507, message).payload(), status_code=507)

    @app.exception_handler(FactscopeError)
    async def settings(_: Request, error: FactscopeError) -> JSONResponse:
        return JSONResponse(RequestProblem(503, str(error)).payload(), status_code=503)

    @app.exception_handler(HTTPException)
    async def http(request: Request, error: HTTPException) -> JSONResponse:
        headers = dict(error.headers or {})
        if error.status_code == 405:
            headers["Allow"] = ", ".join(_allowed_methods(app, request))
        return JSONResponse(RequestProblem(error.status_code, str(error.detail)).payload(),
                            status_code=error.status_code, headers=headers)

    @app.exception_handler(Exception)
    async def unexpected(_: Request, error: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=error)
        message = f"unexpected {type(error).__name__} in the server; its log has the details"
        return JSONResponse(RequestProblem(500, message).payload(), status_code=500)


def _require_key(app: FastAPI, api_key: str) -> None:
    """Every request but the sign-in page and static files must carry the key."""

    @app.middleware("http")
    async def check_key(request: Request, call_next: Any) -> Response:
        path = request.url.path
        if path.startswith(OPEN_PATHS) or key_matches(presented_key(dict(request.headers), request.cookies),
                                                       api_key):
            response: Response = await call_next(request)
            return response
        if path.startswith("/v1/") or path in ("/docs", "/openapi.json") or request.method != "GET":
            message = "missing or wrong API key: send `Authorization: Bearer KEY` or `X-API-Key: KEY`"
            return JSONResponse(RequestProblem(401, message).payload(), status_code=401,
                                headers={"WWW-Authenticate": "Bearer"})
        return RedirectResponse("/login", status_code=303)


def _allowed_methods(app: FastAPI, request: Request) -> list[str]:
    """The methods of the routes at the request's path (the ``Allow`` header of a 405, RFC 9110 15.5.6)."""
    methods = {
        method
        for route in app.router.routes
        if route.matches(request.scope)[0] != Match.NONE
        for method in getattr(route, "methods", None) or ()
    }
    return sorted(methods)


def _api(app: FastAPI, server: Server, config: ServeConfig, key: int | None) -> None:
    """The JSON API under /v1; ``key``, 401 where every request must carry the API key (declared with the other
    statuses of each endpoint)."""

    @app.get("/v1/health", tags=["server"], responses=declared((), key))
    async def health() -> dict[str, Any]:
        """Whether the server is up, and what its micro-batchers have done."""
        return {
            "status": "ok",
            "version": __version__,
            "batching": {name: vars(batcher.stats) for name, batcher in server.batchers.items()},
        }

    for name in server.systems:
        _sync_endpoint(app, server, name, declared(RECORDS, key))

    names = tuple(server.systems)

    async def create_job(
        request: Request,
        system: str = Query(description=", ".join(names)),
        name: str | None = Query(None, description="the input file's name (sanitised; default: the uploaded "
                                                    "file's name, else input.jsonl), which the job's problems name"),
        path: str | None = Query(None, description="instead of a body: a file already in the data folder's "
                                                   "inputs/ (its name there)"),
        options: str | None = Query(None, description="the job's options, a JSON object of its system's options "
                                                      "(CheckOptions, GroundOptions, ...: the fields of its "
                                                      "synchronous request other than records)"),
    ) -> Job:
        """Submit a JSONL (or JSON, CSV, Parquet) file as the raw request body, or as a multipart/form-data
        upload in the field ``file`` (``curl -F file=@answers.jsonl``), or name a file in the data folder's
        ``inputs/``; the job is queued and its id returned. Any other kind of body is refused (415). Records are
        in the system's input format; the job runs with the server's settings and the ``options`` given."""
        server.require_system(system)
        chosen = job_options(server.systems[system], options)
        if path is not None:
            try:
                source = inside(server.store.inputs, safe_name(path))
            except ValueError:
                raise RequestProblem(422, "path: outside the data folder", field="path") from None
            if not source.is_file():
                raise RequestProblem(422, f"path: no file {safe_name(path)!r} in the data folder's inputs/",
                                     field="path")
            upload = await save_upload(_file_chunks(source), server.store.inputs, source.stat().st_size)
            return await asyncio.to_thread(server.create_job, system, source.name, upload, chosen)
        chunks, filename = await request_file(request)
        upload = await save_upload(chunks, server.store.inputs, config.limits.max_upload_bytes)
        return await asyncio.to_thread(server.create_job, system, name or filename or "input.jsonl", upload, chosen)

    create_job.__annotations__["system"] = cast(Any, Literal)[names]  # this server's systems: an enum of the schema
    app.post("/v1/jobs", tags=["jobs"], status_code=202, openapi_extra=UPLOAD_BODY,
             responses=declared(FILE_JOB, key))(create_job)

    @app.get("/v1/jobs", tags=["jobs"], responses=declared((), key))
    async def list_jobs() -> list[Job]:
        """Every job, newest first, with its progress."""
        return await asyncio.to_thread(server.store.recent)

    @app.get("/v1/jobs/{job_id}", tags=["jobs"], responses=declared(JOB, key))
    async def get_job(job_id: str) -> Job:
        """One job: status, records done of all, records per second, skipped input records, error."""
        return await asyncio.to_thread(server.job, job_id)

    @app.post("/v1/jobs/{job_id}/cancel", tags=["jobs"], responses=declared(JOB, key))
    async def cancel_job(job_id: str) -> Job:
        """Cancel a job: a queued one at once, a running one after its current batch (its rows are kept)."""
        server.job(job_id)
        return await asyncio.to_thread(server.runner.cancel, job_id)

    @app.get("/v1/jobs/{job_id}/results", tags=["jobs"], response_class=StreamingResponse,
             responses=declared(JOB, key))
    async def job_results(job_id: str, follow: bool = Query(False, description="keep streaming rows as they are "
                                                                                "written, until the job ends")
                          ) -> StreamingResponse:
        """The job's results file as JSON lines, streamed: one row per record id, the first (a file that repeats
        some ids, written before results files were locked, has its later rows left out, logged once)."""
        server.job(job_id)
        _, results = server.store.paths(job_id)
        return StreamingResponse(_stream_rows(server, job_id, results, follow), media_type="application/x-ndjson")


def _sync_endpoint(app: FastAPI, server: Server, name: str, responses: dict[int | str, dict[str, Any]]) -> None:
    system = server.systems[name]

    async def endpoint(request: RecordsRequest) -> Any:
        return await server.run(name, request.records, chosen_options(request))

    endpoint.__annotations__["request"] = system.request_type

    endpoint.__doc__ = (
        f"{system.title}: run the records (each in the input format of `factscope {name}`) and return the "
        "per-record results with the summary over them, as the Python API returns them. The request may set the "
        "options of its body; those it leaves out keep the server's values. Concurrent requests share model "
        "batches."
    )
    app.post(system.path, response_model=system.run_type, tags=["systems"], name=name, responses=responses)(endpoint)


async def _file_chunks(path: Path) -> AsyncIterator[bytes]:
    with path.open("rb") as handle:
        while chunk := await asyncio.to_thread(handle.read, CHUNK):
            yield chunk


async def _stream_rows(server: Server, job_id: str, path: Path, follow: bool) -> AsyncIterator[bytes]:
    """Complete lines of the results file, the first of each record id; with ``follow``, new ones as they come,
    until the job ends."""
    position = 0
    first = FirstRows()
    while True:
        finished = server.store.get(job_id).status in FINISHED
        chunk = b""
        if path.exists():
            with path.open("rb") as handle:
                handle.seek(position)
                chunk = handle.read()
        complete = chunk[: chunk.rfind(b"\n") + 1]
        if complete:
            position += len(complete)
            kept = b"".join(line for line in complete.splitlines(keepends=True) if _first_of_its_id(line, first))
            if kept:
                yield kept
        if not follow or finished:
            if first.repeated:
                log.warning("%s", repeated_message(f"job {job_id}'s results", first.repeated))
            return
        await asyncio.sleep(0.25)


def _first_of_its_id(line: bytes, first: FirstRows) -> bool:
    """Whether a results line is the first of its record id (a line that is not a JSON object is kept)."""
    try:
        row = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return True
    return not isinstance(row, dict) or first.keep(row)
