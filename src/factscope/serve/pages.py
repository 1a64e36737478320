"""The web app: server-rendered pages to run a record of any system (its form, ``System.form``), upload a file as a
job, follow jobs and open their reports. Results are shown by the reports layer (``render_record`` for one result, ``render_report``
for a job's results file). Every page reads without JavaScript (the script only refreshes job progress and, on
hovering a claim, shows its probabilities and marks its evidence); every text is escaped (jinja2 autoescape)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape
from starlette.datastructures import UploadFile

from factscope.core.errors import InputError
from factscope.core.files.input_files import read_json_records
from factscope.core.record_form import RecordForm
from factscope.core.version import __version__
from factscope.reports.dispatch import render_record, render_report
from factscope.reports.page import stylesheet
from factscope.serve.requests import RequestProblem
from factscope.serve.security import KEY_COOKIE, key_matches
from factscope.serve.uploads import file_chunks, save_upload

if TYPE_CHECKING:
    from factscope.serve.jobs import Job
    from factscope.serve.server import Server
    from factscope.serve.systems import ServedSystem

REPORT_ROWS = 200
"""Records a job's report shows (its figures cover every row of the results file)."""


@cache
def environment() -> Environment:
    """The pages' templates, with every value escaped."""
    env = Environment(
        loader=PackageLoader("factscope.serve", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["when"] = lambda seconds: time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(seconds))
    return env


def render(template: str, *, systems: list[tuple[str, str]], current: str = "", **values: Any) -> str:
    """A page from its template, with the navigation (``systems``: each one's name and short title) filled in."""
    return environment().get_template(template).render(
        systems=systems, current=current, version=__version__, record_css=Markup(stylesheet()), **values
    )


def figure(value: float | bool | None) -> str:
    """A figure as the pages print it."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:.3f}"


def form_record(form: RecordForm, values: dict[str, str]) -> dict[str, Any]:
    """The record a filled-in form stands for; a JSON field that does not parse raises RequestProblem."""
    record: dict[str, Any] = {}
    for field in form.fields:
        text = values.get(field.name, "")
        if not text.strip():
            continue
        if field.kind == "passages":
            record[field.name] = [part.strip() for part in text.replace("\r\n", "\n").split("\n\n") if part.strip()]
        elif field.kind == "lines":
            record[field.name] = [line.strip() for line in text.splitlines() if line.strip()]
        elif field.kind == "json":
            try:
                record[field.name] = json.loads(text)
            except json.JSONDecodeError as error:
                raise RequestProblem(422, f"{field.label}: not valid JSON ({error.msg}, line {error.lineno})",
                                     field=field.name) from None
        else:
            record[field.name] = text.strip() if field.lines == 1 else text
    return record


def example_values(form: RecordForm) -> dict[str, str]:
    """The form's fields filled from the first record of its packaged example."""
    if form.example is None:
        return {}
    from importlib.resources import as_file, files

    with as_file(files("factscope.examples").joinpath(form.example)) as path:
        first = next((item for _, item in read_json_records(path) if isinstance(item, dict)), {})
    values = {}
    for field in form.fields:
        value = first.get(field.name)
        if value is None:
            continue
        if field.kind == "passages" and isinstance(value, list):
            values[field.name] = "\n\n".join(str(v) for v in value)
        elif field.kind == "json":
            values[field.name] = json.dumps(value, ensure_ascii=False)
        else:
            values[field.name] = str(value)
    return values


def summary_rows(system: ServedSystem[Any, Any], run: Any) -> list[tuple[str, str]]:
    """A few figures of a request's run for the result page (``System.page_figures``) and its seconds."""
    shown = [(label, figure(value)) for label, value in system.system.page_figures(run)]
    return [*shown, ("seconds", f"{run.seconds:.2f}")]


def record_page(system: ServedSystem[Any, Any]) -> dict[str, Any]:
    """What the record page of ``system`` names: its title, its name and command, and its form."""
    return {"title": system.title, "current": system.name, "system": system.name,
            "command": system.system.command, "form": system.system.form}


def add_pages(app: FastAPI, server: Server) -> None:
    """Add the web pages to ``app``: a record page for each of the server's systems."""
    navigation = [(name, system.title.split(" (")[0]) for name, system in server.systems.items()]

    def shown(template: str, **values: Any) -> str:
        return render(template, systems=navigation, **values)

    def page(html: str, status: int = 200) -> HTMLResponse:
        return HTMLResponse(html, status_code=status, headers={
            "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; object-src 'none'; "
                                       "base-uri 'none'; frame-ancestors 'none'",
            "X-Content-Type-Options": "nosniff",
        })

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home(system: str = "", example: bool = False) -> HTMLResponse:
        served = server.systems.get(system) or next(iter(server.systems.values()))
        values = example_values(served.system.form) if example else {}
        return page(shown("home.html.j2", **record_page(served), values=values, fragments=[], summary=[],
                          error=None))

    @app.post("/run/{system}", response_class=HTMLResponse, include_in_schema=False)
    async def run(system: str, request: Request) -> HTMLResponse:
        served = server.systems.get(system)
        if served is None:
            return page(shown("problem.html.j2", title="No such system", message=f"no system {system!r}"), 404)
        form = served.system.form
        submitted = await request.form()
        values = {field.name: str(submitted.get(field.name) or "") for field in form.fields}
        try:
            record = form_record(form, values)
            result = await server.run(system, [record])
        except RequestProblem as problem:
            return page(shown("home.html.j2", **record_page(served), values=values, fragments=[], summary=[],
                              error=problem.message), problem.status)
        contexts = record.get("contexts", [])
        fragments = [Markup(render_record(system, row, f"r{index}", contexts=contexts))
                     for index, row in enumerate(getattr(result, "results", []), start=1)]
        return page(shown("home.html.j2", **record_page(served), values=values, fragments=fragments,
                          summary=summary_rows(served, result), error=None))

    @app.post("/jobs", include_in_schema=False)
    async def upload(request: Request) -> Response:
        submitted = await request.form()
        system = str(submitted.get("system") or "")
        file = submitted.get("file")
        if not isinstance(file, UploadFile) or system not in server.systems:
            return page(shown("problem.html.j2", title="Cannot start the job",
                               message="choose a system and a file to upload"), 422)
        saved = await save_upload(file_chunks(file), server.store.inputs, server.config.limits.max_upload_bytes)
        job = await asyncio.to_thread(server.create_job, system, file.filename or "input.jsonl", saved)
        return RedirectResponse(f"/jobs/{job.id}", status_code=303)

    @app.get("/jobs", response_class=HTMLResponse, include_in_schema=False)
    async def jobs() -> HTMLResponse:
        listed = await asyncio.to_thread(server.store.recent)
        return page(shown("jobs.html.j2", title="Jobs", current="jobs", jobs=listed))

    def of_job(handler: Callable[[Job], Awaitable[Response]]) -> Callable[[str], Awaitable[Response]]:
        """The page of the path's ``job_id`` that ``handler`` makes from its job, or the "No such job" page (404)
        where there is none."""

        async def respond(job_id: str) -> Response:
            try:
                found = server.job(job_id)
            except RequestProblem as problem:
                return page(shown("problem.html.j2", title="No such job", message=problem.message), 404)
            return await handler(found)

        return respond

    @app.get("/jobs/{job_id}", response_class=HTMLResponse, include_in_schema=False)
    @of_job
    async def job(found: Job) -> Response:
        return page(shown("job.html.j2", title=f"Job {found.id}", current="jobs", job=found))

    @app.post("/jobs/{job_id}/cancel", include_in_schema=False)
    @of_job
    async def cancel(found: Job) -> Response:
        await asyncio.to_thread(server.runner.cancel, found.id)
        return RedirectResponse(f"/jobs/{found.id}", status_code=303)

    @app.get("/jobs/{job_id}/report", response_class=HTMLResponse, include_in_schema=False)
    @of_job
    async def report(found: Job) -> Response:
        _, results = server.store.paths(found.id)
        title = f"Report of job {found.id} ({found.input_name})"
        try:
            html = await asyncio.to_thread(render_report, results, limit=REPORT_ROWS, title=title)
        except InputError as error:
            message = str(error).replace(str(server.store.data_dir) + "/", "")
            return page(shown("problem.html.j2", title="No report yet", message=message), 404)
        shown_as = f"job {found.id}: {found.input_name}"
        return page(html.replace(str(escape(str(results))), str(escape(shown_as))))

    @app.get("/login", response_class=HTMLResponse, include_in_schema=False)
    async def login_form() -> HTMLResponse:
        return page(shown("login.html.j2", title="Sign in", error=None))

    @app.post("/login", include_in_schema=False)
    async def login(request: Request) -> Response:
        submitted = await request.form()
        key = str(submitted.get("key") or "")
        expected = server.config.api_key
        if expected is None or not key_matches(key, expected):
            return page(shown("login.html.j2", title="Sign in", error="wrong key"), 401)
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(KEY_COOKIE, key, httponly=True, samesite="strict",
                            secure=request.url.scheme == "https")
        return response
