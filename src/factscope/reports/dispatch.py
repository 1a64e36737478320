"""`factscope report` on any results file: which system wrote it, its rows, and that system's page.

The system comes from the manifest beside the file (``OUT.manifest.json``); without one, from the fields of its
first record. Each ``System`` (``factscope.engines.system``) brings its row model and its report hooks
(``ReportHooks``): its overview (figures and charts), its per-record fragment and contents line, and what
``only="hallucinated"`` keeps. Every system's page is the shared page (``factscope.reports.page``) filled by those
hooks alone. ``render_record`` gives one result's fragment, for pages (the server's) that show results one at a
time, styled by ``factscope.reports.page.stylesheet``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ValidationError

from factscope.core.errors import InputError
from factscope.core.files.error_location import parse_located
from factscope.core.files.input_files import read_json_records
from factscope.core.files.manifest import RunManifest, manifest_path
from factscope.core.runs.results import FirstRows, repeated_message
from factscope.core.schema import MODEL_FIELD
from factscope.reports.page import RecordEntry, render_page
from factscope.reports.report_options import Only, ReportOptions
from factscope.systems import BY_NAME, AnySystem

ReportedSystem = AnySystem
"""A system as a report sees it: its row type, manifest name, command and report hooks."""

SYSTEMS: dict[str, ReportedSystem] = BY_NAME
"""The systems a report can show, by short name: every system (``factscope.systems``)."""


@dataclass
class Report:
    """A rendered report: the page, the system, every row read (one per record id), the skipped rows, the rows
    shown, and what was said of files that repeat record ids (``repeated_message``: one line per such file)."""

    html: str
    system: ReportedSystem
    rows: list[Any]
    problems: list[InputError] = field(default_factory=list)
    shown: list[Any] = field(default_factory=list)
    repeated: list[str] = field(default_factory=list)

    def summary_rows(self, page: Path) -> list[tuple[str, object]]:
        """The figures of the report written to ``page``, as summary-table rows."""
        return [
            ("results of", self.system.command),
            ("records read", len(self.rows)),
            ("skipped rows", len(self.problems)),
            ("records shown", len(self.shown)),
            ("page", str(page)),
            ("page size", f"{len(self.html.encode('utf-8')) / 1024:.1f} KiB"),
        ]


def _recognised() -> str:
    return ", ".join(f"`{s.command}`" for s in SYSTEMS.values())


def system_of(path: Path) -> ReportedSystem:
    """The system that wrote a results file: from its manifest, else from the fields of its first record;
    an InputError naming the file when neither tells."""
    sidecar = manifest_path(path)
    if sidecar.is_file():
        try:
            written_by = RunManifest.model_validate_json(sidecar.read_text(encoding="utf-8")).system
        except (ValidationError, UnicodeDecodeError):
            written_by = None
        if written_by is not None:
            for system in SYSTEMS.values():
                if system.manifest == written_by:
                    return system
            raise InputError(
                f"was written by `factscope {written_by}` (its {sidecar.name} says so); reports show the results "
                f"of {_recognised()}",
                path=path,
            )
    first = next((item for _, item in read_json_records(path) if not isinstance(item, InputError)), None)
    for system in SYSTEMS.values():
        if first is not None and any(name in first for name in system.report.fields):
            return system
    raise InputError(
        "no check results, ground results, attribution scores or knowledge scores to report: it has no "
        f"{sidecar.name} and its first record has none of the fields that tell them apart "
        f"({'; '.join(', '.join(s.report.fields) + ' for ' + s.name for s in SYSTEMS.values())}); pass a results file "
        f"written by {_recognised()}",
        path=path,
    )


class ReadRows(NamedTuple):
    """The rows of a results file, one per record id; the rows that could not be read, as located errors; and
    how many rows repeated the id of an earlier row (left out: the first row of each record is kept)."""

    rows: list[Any]
    problems: list[InputError]
    repeated: int


def read_rows(path: Path, system: ReportedSystem) -> ReadRows:
    """The rows of a results file as ``system``'s row model, the first row of each record id (``FirstRows``);
    rows that are not come back as located errors, and later rows of an id are counted."""
    rows: list[Any] = []
    problems: list[InputError] = []
    first = FirstRows()
    for line, item in read_json_records(path):
        try:
            if isinstance(item, InputError):
                raise item
            if first.keep(item):
                rows.append(parse_located(system.row_type, item, path=path, line=line))
        except InputError as error:
            problems.append(error)
    return ReadRows(rows, problems, first.repeated)


def make_report(
    paths: Path | Sequence[Path],
    *,
    only: Only = ReportOptions.only,
    limit: int | None = ReportOptions.limit,
    title: str | None = ReportOptions.title,
) -> Report:
    """Read one or more results files of one system and render its page. With several files, a record with no
    ``model`` field of its own is named by its file's name, so check and ground pages compare them by model.
    ``only`` and ``limit`` choose the records shown; the figures always cover every row."""
    paths = [paths] if isinstance(paths, Path) else list(paths)
    if only not in ("all", "hallucinated"):
        raise InputError(f"only must be 'all' or 'hallucinated', got {only!r}")
    systems = [system_of(path) for path in paths]
    system = systems[0]
    for path, other in zip(paths, systems):
        if other is not system:
            raise InputError(
                f"holds {other.name} results, but {paths[0]} holds {system.name} results; "
                "report one system at a time",
                path=path,
            )
    rows: list[Any] = []
    problems: list[InputError] = []
    repeated: list[str] = []
    for path in paths:
        read, skipped, repeats = read_rows(path, system)
        if len(paths) > 1:
            _name_model(read, path.stem)
        rows += read
        problems += skipped
        if repeats:
            repeated.append(repeated_message(path, repeats))
    if not rows:
        where = paths[0] if len(paths) == 1 else None
        raise InputError(
            f"no {system.name} results to report; pass the results file (JSONL) that `{system.command}` wrote", path=where
        )
    chosen = [row for row in rows if only == "all" or system.report.flagged(row)]
    shown = chosen if limit is None else chosen[: max(limit, 0)]
    page = render_rows(
        system,
        rows,
        shown,
        only=only,
        title=title or f"factscope {system.name} report",
        source=", ".join(str(path) for path in paths),
        problems=[*repeated, *(str(problem) for problem in problems)],
    )
    return Report(page, system, rows, problems, shown, repeated)


def render_rows(
    system: ReportedSystem,
    rows: Sequence[Any],
    shown: Sequence[Any],
    *,
    title: str,
    only: Only = "all",
    source: str | None = None,
    problems: Sequence[str] = (),
) -> str:
    """The shared page of ``system``'s result ``rows`` filled by its report hooks: the overview of them all, and
    the ``shown`` ones, each with its contents line and fragment."""
    hooks = system.report
    return render_page(
        title=title,
        overview=hooks.overview(rows),
        records=[
            RecordEntry(anchor=f"r{index}", id=row.id, caption=hooks.caption(row), html=hooks.record(row, f"r{index}"))
            for index, row in enumerate(shown, start=1)
        ],
        source=source,
        problems=problems,
        only=only,
        flagged=hooks.flagged_means,
    )


def render_report(paths: Path | Sequence[Path], **options: Any) -> str:
    """The HTML page of one or more results files (see ``make_report`` for the options)."""
    return make_report(paths, **options).html


def render_record(
    system: str, row: BaseModel | dict[str, Any], anchor: str = "r1", *, contexts: Sequence[str] = ()
) -> str:
    """One result as an HTML fragment, ``system`` being a short name (check, ground, attribute, knowledge) or
    the system of a manifest; ``row`` its row model or the row as read from JSON (validated, errors located).
    ``contexts``: the input contexts the row was judged against, shown after it by a system whose rows do not
    hold them (``ReportHooks.record_in_context``: a ground record's, under its facts); other systems' rows hold
    their own texts."""
    reported = SYSTEMS.get(system) or next((s for s in SYSTEMS.values() if s.manifest == system), None)
    if reported is None:
        raise InputError(f"no report for system {system!r}; reports show {', '.join(SYSTEMS)}")
    if not isinstance(row, reported.row_type):
        data = row.model_dump() if isinstance(row, BaseModel) else row
        row = parse_located(reported.row_type, data, path=None, line=None, where=f"{reported.name} result")
    hooks = reported.report
    if contexts and hooks.record_in_context is not None:
        return str(hooks.record_in_context(row, anchor, contexts))
    return str(hooks.record(row, anchor))


def _name_model(rows: list[Any], name: str) -> None:
    for row in rows:
        metadata = getattr(row, "metadata", None)
        if isinstance(metadata, dict):
            metadata.setdefault(MODEL_FIELD, name)
