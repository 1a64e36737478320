"""The parts of a system that the layers below the systems share: how a file's records are read
(``RecordParser``, ``RecordSource``), what a run result says of its pipeline (``RunFacts``), what a front-end adds
to a summary table (``RunOutcome``), what a report needs of a system's rows (``ReportHooks``, read from its report
module, a ``SystemReport``), and the picklable factory an engine sends to its workers (``SystemBuild``). The
``System`` base class that each system subclasses, and whose ``run`` chooses the engine, is
``factscope.engines.system.System``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from markupsafe import Markup
from pydantic import BaseModel

from factscope.core.errors import InputError
from factscope.core.files.manifest import SettingValue
from factscope.core.runs.loop import Pipeline

LLMClient = Any
"""An ``LLMClient`` of ``factscope.llm`` (a layer above core, so named here only)."""

SpecT = TypeVar("SpecT")
Item = TypeVar("Item")
Item_co = TypeVar("Item_co", covariant=True)
Row = TypeVar("Row", bound=BaseModel)
Row_contra = TypeVar("Row_contra", bound=BaseModel, contravariant=True)


class RecordParser(Protocol[Item_co]):
    """Turns one JSON object of an input file into an item; a bad record raises a located InputError, and a record
    that is to be passed over, not run (an answers file's failed generation), gives None."""

    def __call__(self, item: dict[str, Any], /, *, path: Path, line: int) -> Item_co | None: ...


class RecordSource(Protocol[Item_co]):
    """A file's items, read again each time they are iterated; the records that could not be read are in
    ``problems`` (located errors) once the items have been read."""

    problems: list[InputError]

    def __iter__(self) -> Iterator[Item_co]: ...


@dataclass(frozen=True)
class RunFacts:
    """What a run result says of the pipeline that made it: the name of each component and the manifest's
    settings (the same on the driver of a Ray run, which never builds the models, as in a local run)."""

    names: Mapping[str, str]
    settings: Mapping[str, SettingValue]


@dataclass(frozen=True)
class RunOutcome:
    """What a front-end adds to a run result in its summary table: the input records skipped, the records the
    parser passed over (an answers file's failed generations) and the results file (or folder)."""

    skipped: int
    output: Path
    passed_over: int = 0


class SystemReport(Protocol[Row_contra]):
    """A system's report module, as ``ReportHooks.of`` reads it: the fields that mark its result rows, what its
    flag means, and its functions of one row or of all the rows."""

    @property
    def RESULT_FIELDS(self) -> tuple[str, ...]: ...

    @property
    def FLAGGED_MEANS(self) -> str: ...

    def is_flagged(self, row: Row_contra, /) -> bool: ...

    def record_html(self, row: Row_contra, anchor: str, /) -> Markup: ...

    def overview_html(self, rows: Sequence[Row_contra], /) -> Markup: ...

    def record_caption(self, row: Row_contra, /) -> str: ...


@dataclass(frozen=True)
class ReportHooks(Generic[Row]):
    """What ``factscope report`` and the server's pages need of a system's result rows."""

    fields: tuple[str, ...]
    """Row fields only this system's results have (any one tells the system of a file without a manifest)."""
    flagged: Callable[[Row], bool]
    flagged_means: str
    """What ``only='hallucinated'`` keeps, in words."""
    record: Callable[[Row, str], Markup]
    """One row as an HTML fragment, under an anchor."""
    overview: Callable[[Sequence[Row]], Markup]
    """The figures and charts of all the rows, at the top of the shared page."""
    caption: Callable[[Row], str]
    """A record's short line of figures in the page's contents."""
    record_in_context: Callable[[Row, str, Sequence[str]], Markup] | None = None
    """One row as ``record`` shows it followed by the input contexts it was judged against, for a system whose rows
    do not hold them (None: its rows hold their own texts)."""

    @classmethod
    def of(
        cls,
        report: SystemReport[Row],
        *,
        record_in_context: Callable[[Row, str, Sequence[str]], Markup] | None = None,
    ) -> ReportHooks[Row]:
        """The hooks of a system's report module: ``fields`` are its ``RESULT_FIELDS``, ``flagged`` its
        ``is_flagged``, ``flagged_means`` its ``FLAGGED_MEANS``, ``record`` its ``record_html``, ``overview`` its
        ``overview_html`` and ``caption`` its ``record_caption``."""
        return cls(
            fields=report.RESULT_FIELDS, flagged=report.is_flagged, flagged_means=report.FLAGGED_MEANS,
            record=report.record_html, overview=report.overview_html, caption=report.record_caption,
            record_in_context=record_in_context,
        )


def facts_of(pipeline: Pipeline[Any, Any, Any]) -> RunFacts:
    """The names and manifest settings of a built pipeline."""
    return RunFacts(names=pipeline.names(), settings=pipeline.manifest([]).settings)


class BuildsPipelines(Protocol):
    """What ``SystemBuild`` needs of a system: whether a spec calls an LLM, and its pipeline built from a spec."""

    def needs_llm(self, spec: Any, /) -> bool: ...

    def pipeline(self, spec: Any, llm: LLMClient | None, /) -> Pipeline[Any, Any, Any]: ...


@dataclass(frozen=True)
class SystemBuild(Generic[SpecT]):
    """A system's pipeline, built where it runs: an engine sends this to each worker, which calls it once, so the
    models load once per worker. ``llm`` makes the LLM client (called only when the spec needs one)."""

    system: BuildsPipelines
    spec: SpecT
    llm: Callable[[], LLMClient] | None = None

    def __call__(self) -> Pipeline[Any, Any, Any]:
        return self.with_client()[0]

    def with_client(self) -> tuple[Pipeline[Any, Any, Any], LLMClient | None]:
        """The pipeline and the LLM client it calls (None when the spec needs none), whose usage the worker
        reports."""
        client = self.llm() if self.llm is not None and self.system.needs_llm(self.spec) else None
        return self.system.pipeline(self.spec, client), client
