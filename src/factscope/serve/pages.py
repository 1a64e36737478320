"""The web app: server-rendered pages to run a record of any system, upload a file as a job, follow jobs and
open their reports. Results are shown by the reports layer (``render_record`` for one result, ``render_report``
for a job's results file). Every page reads without JavaScript (the script only refreshes job progress and, on
hovering a claim, shows its probabilities and marks its evidence); every text is escaped (jinja2 autoescape)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape
from starlette.datastructures import UploadFile

from factscope.core.errors import InputError
from factscope.core.input_files import read_json_records
from factscope.core.version import __version__
from factscope.reports.dispatch import render_record, render_report
from factscope.reports.page import stylesheet
from factscope.serve.requests import RequestProblem
from factscope.serve.security import KEY_COOKIE, key_matches
from factscope.serve.uploads import file_chunks, save_upload

if TYPE_CHECKING:
    from factscope.serve.jobs import Job
    from factscope.serve.server import Server

REPORT_ROWS = 200
"""Records a job's report shows (its figures cover every row of the results file)."""


@dataclass(frozen=True)
class FormField:
    """One field of a system's form: ``kind`` says how its text becomes the record's value."""

    name: str
    label: str
    kind: str = "text"
    """text (as written), passages (split at blank lines), lines (one per line), json (parsed)."""
    lines: int = 1
    required: bool = False
    help: str = ""


@dataclass(frozen=True)
class SystemForm:
    """A system's page: its title, what it does, its fields and where its example comes from."""

    system: str
    command: str
    title: str
    intro: str
    fields: tuple[FormField, ...]
    example: str | None = None
    """The packaged example file whose first record fills the form (None: no example)."""


FORMS: dict[str, SystemForm] = {
    form.system: form
    for form in (
        SystemForm(
            "check", "check", "Check claims (RefChecker)",
            "Claims are extracted from the response and checked against the references: supported (Entailment), "
            "not verifiable (Neutral) or contradicted (Contradiction). Hover a claim for its probabilities.",
            (
                FormField("question", "Question"),
                FormField("response", "Response", lines=5, required=True),
                FormField("references", "References", "passages", lines=8, help="passages separated by a blank line"),
            ),
            "check.jsonl",
        ),
        SystemForm(
            "ground", "ground", "Grounding (Truly Ground)",
            "Precision: the response's atomic facts found in the contexts; recall: the gold facts found in the "
            "response; F1 is the grounding score.",
            (
                FormField("question", "Question", required=True),
                FormField("contexts", "Contexts", "passages", lines=6, required=True,
                          help="passages separated by a blank line"),
                FormField("gold_facts", "Gold atomic facts", "lines", lines=4, required=True, help="one per line"),
                FormField("response", "Response", lines=4, required=True),
                FormField("answer", "Short answer (optional)"),
            ),
            "ground/records.jsonl",
        ),
        SystemForm(
            "attribute", "attribute score", "Attribution to a knowledge graph (KaLMA)",
            "Citations such as [Q7186, spouse: Pierre Curie] are checked against the graph (correct), the minimum "
            "knowledge set (precise) and their sentence (aligned); [NA] marks knowledge the graph lacks.",
            (
                FormField("id", "Answer id", required=True),
                FormField("question", "Question"),
                FormField("answer", "Answer with citations", lines=5, required=True),
                FormField("graph", "Graph (JSON list of entities)", "json", lines=6, required=True,
                          help='e.g. [{"qid": "Q7186", "name": "Marie Curie", "properties": {"spouse": ["Pierre Curie"]}}]'),
                FormField("minimum", "Minimum knowledge (JSON list of [qid, relation, value])", "json", lines=3),
                FormField("removed", "Removed knowledge (JSON, optional)", "json", lines=2),
            ),
            "attribute/answers.jsonl",
        ),
        SystemForm(
            "knowledge", "knowledge score", "Knowledge quality (CONNER)",
            "CONNER's six dimensions of generated knowledge: factuality, relevance, coherence, informativeness, "
            "helpfulness and validity; those the server's models cannot compute say why.",
            (
                FormField("query", "Query", required=True),
                FormField("knowledge", "Knowledge", lines=5, required=True),
                FormField("evidence", "Evidence (optional)", "passages", lines=6,
                          help="passages separated by a blank line; factuality checks each knowledge sentence "
                               "against them (else against the server's --corpus)"),
                FormField("answer", "Answer (optional)",
                          help="helpfulness compares it with random other knowledge: run several records as a job"),
                FormField("gold_answer", "Gold answer (optional)"),
            ),
            "knowledge/with_evidence.jsonl",
        ),
    )
}


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


def render(template: str, *, current: str = "", **values: Any) -> str:
    """A page from its template, with the navigation filled in."""
    systems = [(form.system, form.title.split(" (")[0]) for form in FORMS.values()]
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


def form_record(form: SystemForm, values: dict[str, str]) -> dict[str, Any]:
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


def example_values(form: SystemForm) -> dict[str, str]:
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


def summary_rows(system: str, run: Any) -> list[tuple[str, str]]:
    """A few figures of a request's run for the result page."""
    if system == "check":
        rates = run.rates
        shown = [(label.value, figure(rates.rates[label])) for label in rates.rates] if rates.rates else []
        return [*shown, ("hallucination rate", figure(rates.hallucination_rate)),
                ("seconds", f"{run.seconds:.2f}")]
    if system == "ground":
        overall = run.summary.overall
        return [("precision", figure(overall.precision)), ("recall", figure(overall.recall)),
                ("F1", figure(overall.f1)), ("seconds", f"{run.seconds:.2f}")]
    if system == "attribute":
        figures: dict[str, Any] = next(iter(run.summary.values()), {})
        chosen = ("correctness", "micro_precision", "micro_recall", "micro_f1")
        return [(name, figure(figures.get(name))) for name in chosen] + [("seconds", f"{run.seconds:.2f}")]
    return [("seconds", f"{run.seconds:.2f}")]


def add_pages(app: FastAPI, server: Server) -> None:
    """Add the web pages to ``app``."""

    def page(html: str, status: int = 200) -> HTMLResponse:
        return HTMLResponse(html, status_code=status, headers={
            "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; object-src 'none'; "
                                       "base-uri 'none'; frame-ancestors 'none'",
            "X-Content-Type-Options": "nosniff",
        })

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home(system: str = "check", example: bool = False) -> HTMLResponse:
        form = FORMS.get(system, FORMS["check"])
        values = example_values(form) if example else {}
        return page(render("home.html.j2", title=form.title, current=form.system, form=form, values=values,
                           fragments=[], summary=[], error=None))

    @app.post("/run/{system}", response_class=HTMLResponse, include_in_schema=False)
    async def run(system: str, request: Request) -> HTMLResponse:
        form = FORMS.get(system)
        if form is None:
            return page(render("problem.html.j2", title="No such system", message=f"no system {system!r}"), 404)
        submitted = await request.form()
        values = {field.name: str(submitted.get(field.name) or "") for field in form.fields}
        try:
            record = form_record(form, values)
            result = await server.run(system, [record])
        except RequestProblem as problem:
            return page(render("home.html.j2", title=form.title, current=system, form=form, values=values,
                               fragments=[], summary=[], error=problem.message), problem.status)
        contexts = record.get("contexts", []) if system == "ground" else []
        fragments = [Markup(render_record(system, row, f"r{index}", contexts=contexts))
                     for index, row in enumerate(getattr(result, "results", []), start=1)]
        return page(render("home.html.j2", title=form.title, current=system, form=form, values=values,
                           fragments=fragments, summary=summary_rows(system, result), error=None))

    @app.post("/jobs", include_in_schema=False)
    async def upload(request: Request) -> Response:
        submitted = await request.form()
        system = str(submitted.get("system") or "")
        file = submitted.get("file")
        if not isinstance(file, UploadFile) or system not in FORMS:
            return page(render("problem.html.j2", title="Cannot start the job",
                               message="choose a system and a file to upload"), 422)
        saved = await save_upload(file_chunks(file), server.store.inputs, server.config.limits.max_upload_bytes)
        job = await asyncio.to_thread(server.create_job, system, file.filename or "input.jsonl", saved)
        return RedirectResponse(f"/jobs/{job.id}", status_code=303)

    @app.get("/jobs", response_class=HTMLResponse, include_in_schema=False)
    async def jobs() -> HTMLResponse:
        listed = await asyncio.to_thread(server.store.recent)
        return page(render("jobs.html.j2", title="Jobs", current="jobs", jobs=listed))

    def of_job(handler: Callable[[Job], Awaitable[Response]]) -> Callable[[str], Awaitable[Response]]:
        """The page of the path's ``job_id`` that ``handler`` makes from its job, or the "No such job" page (404)
        where there is none."""

        async def respond(job_id: str) -> Response:
            try:
                found = server.job(job_id)
            except RequestProblem as problem:
                return page(render("problem.html.j2", title="No such job", message=problem.message), 404)
            return await handler(found)

        return respond

    @app.get("/jobs/{job_id}", response_class=HTMLResponse, include_in_schema=False)
    @of_job
    async def job(found: Job) -> Response:
        return page(render("job.html.j2", title=f"Job {found.id}", current="jobs", job=found))

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
            return page(render("problem.html.j2", title="No report yet", message=message), 404)
        shown_as = f"job {found.id}: {found.input_name}"
        return page(html.replace(str(escape(str(results))), str(escape(shown_as))))

    @app.get("/login", response_class=HTMLResponse, include_in_schema=False)
    async def login_form() -> HTMLResponse:
        return page(render("login.html.j2", title="Sign in", error=None))

    @app.post("/login", include_in_schema=False)
    async def login(request: Request) -> Response:
        submitted = await request.form()
        key = str(submitted.get("key") or "")
        expected = server.config.api_key
        if expected is None or not key_matches(key, expected):
            return page(render("login.html.j2", title="Sign in", error="wrong key"), 401)
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(KEY_COOKIE, key, httponly=True, samesite="strict",
                            secure=request.url.scheme == "https")
        return response
