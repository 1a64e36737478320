"""Results in a notebook: a run result shows its report page (the figures of all its rows, and its first
records), a result row its record as the page shows it. Each is drawn in a frame of its own, so the report's
stylesheet styles it and leaves the notebook alone."""

from __future__ import annotations

from html import escape

from markupsafe import Markup
from pydantic import BaseModel

from factscope.core.runs.result import RunResult
from factscope.core.schema import LABELS, Verdict
from factscope.refchecker.html_report import verdict_class as label_class
from factscope.reports.dispatch import SYSTEMS, ReportedSystem, render_rows
from factscope.reports.page import stylesheet

NOTEBOOK_RECORDS = 20
"""The records a run's page shows in a notebook (its figures cover every row); ``factscope report`` shows all."""


def notebook_html(result: object) -> str | None:
    """The HTML a notebook shows for a run result or a result row of a system with a report; None for anything
    else."""
    if isinstance(result, RunResult):
        system = _system_of(result.results.row_type)
        if system is None:
            return None
        rows = list(result.results)
        path = result.results.path
        page = render_rows(
            system,
            rows,
            rows[:NOTEBOOK_RECORDS],
            title=f"{type(result).__name__}: {system.title}",
            source=str(path) if path is not None else None,
        )
        return framed(page, height=640)
    if isinstance(result, Verdict):
        return verdict_html(result)
    if isinstance(result, BaseModel):
        system = _system_of(type(result))
        if system is None:
            return None
        fragment = system.report.record(result, "r1")
        return framed(_fragment_page(fragment), height=420)
    return None


def verdict_html(verdict: Verdict) -> str:
    """A verdict as a small table: its label (coloured as the check report colours it), the probabilities, the
    evidence and what decided it."""
    label = verdict.label.value if verdict.label is not None else "failed" if verdict.failed else "none"
    probabilities = (
        ", ".join(f"{name.value} {value:.3f}" for name, value in zip(LABELS, verdict.probs))
        if verdict.probs is not None else "n/a"
    )
    cells = [
        ("label", f'<span class="badge {label_class(verdict)}">{escape(label)}</span>'),
        ("probabilities", escape(probabilities)),
        ("evidence", escape(verdict.evidence or "none")),
        ("decided by", escape(" / ".join(part for part in (verdict.rule, verdict.reason) if part) or "n/a")),
        *([("error", escape(verdict.error))] if verdict.error else []),
    ]
    rows = "".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in cells)
    return framed(_fragment_page(Markup(f'<table class="verdict">{rows}</table>')), height=200)


def _system_of(row_type: type[BaseModel]) -> ReportedSystem | None:
    return next((system for system in SYSTEMS.values() if system.row_type is row_type), None)


def _fragment_page(fragment: Markup) -> str:
    """A page of one fragment, styled as the report pages are."""
    head = f'<meta charset="utf-8"><style>{stylesheet()}</style>'
    return f"<!DOCTYPE html><html><head>{head}</head><body>{fragment}</body></html>"


def framed(page: str, *, height: int) -> str:
    """A whole HTML page inside an iframe of ``height`` pixels (scrolled within), the width of the output."""
    return (
        f'<iframe srcdoc="{escape(page, quote=True)}" style="width:100%;height:{height}px;border:1px solid #ddd" '
        'sandbox="allow-same-origin"></iframe>'
    )
