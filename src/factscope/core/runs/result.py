"""The one shape of every run's result: its rows, what this run did, and how many rows hold a failure.

Each system's run result (``CheckRun``, ``GroundRun``, ``AttributionRun``, ``KnowledgeRun`` and the generation
runs) derives from ``RunResult`` and adds its own figures, so a user's code reads every run the same way:
``results`` (the rows of the whole results file, read lazily), ``new_records``, ``resumed_records``, ``seconds``
and ``failed``. ``results`` is left out of ``model_dump``, which holds figures only.

A run result prints as one line of its key figures (``headline``), shows as its report in a notebook
(``_repr_html_``) and becomes a table with ``to_pandas``. A run that writes a file with an LLM (answers, questions,
responses, knowledge) is also a ``WriterRun``, which every front-end reports the same way.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from factscope.core.display.notebook import ShownAsHtml
from factscope.core.runs.results import ResultRows

Row = TypeVar("Row", bound=BaseModel)


class RunResult(ShownAsHtml, BaseModel, Generic[Row]):
    """A run's rows (earlier runs' included when resuming; left out of ``model_dump``), the records it processed
    and found already done, its seconds, and the rows that record a failure a rerun with ``retry_failed`` would
    process again (for a generation run that writes no row for a failed call: the calls that failed)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    results: ResultRows[Row] = Field(exclude=True)
    new_records: int
    resumed_records: int
    seconds: float
    failed: int = 0

    def headline(self) -> list[tuple[str, object]]:
        """The run's key figures, for its one-line summary (each system's run result names its own)."""
        return []

    def __repr__(self) -> str:
        from factscope.core.display.figure_table import format_value

        counts = (
            f"{self.new_records + self.resumed_records} records ({self.new_records} new, {self.resumed_records} "
            f"resumed), {self.failed} failed, {self.seconds:.1f} s"
        )
        figures = "".join(f"; {name} {format_value(value, 4, significant=True)}" for name, value in self.headline())
        return f"{type(self).__name__}: {counts}{figures}"

    __str__ = __repr__

    def to_pandas(self, level: str = "records") -> Any:
        """The run's rows as a pandas DataFrame: one row per record (``level="records"``), or one row per item
        where the system has them (``"claims"`` of a check, ``"facts"`` of a grounding run, ``"citations"`` of an
        attribution run, ``"sentences"`` of a knowledge run), or, for a check, one row per labelled span of each response
(``"spans"``; see ``factscope.core.files.result_tables``). Needs pandas
        (the ``tables`` extra)."""
        from factscope.core.files.result_tables import data_frame, table_rows

        return data_frame(table_rows(self.results, self.results.row_type, level))


class WriterRun(Protocol):
    """The result of a writer (a run that writes a results file with an LLM), as a front-end reports it: its
    summary rows, and its ``failed`` records, ``what_failed`` in words, kept in the file (``failures_kept``) or
    left out of it, so that a rerun tries them again."""

    failed: int
    what_failed: ClassVar[str]
    failures_kept: ClassVar[bool]

    def summary_rows(self) -> list[tuple[str, object]]:
        """The run's figures as a summary table's rows (label, value)."""
