"""A results file of any system as a Parquet or CSV table (`factscope export`): the system that wrote it and its
rows (``factscope.reports.dispatch``), their table at a level (``factscope.core.files.result_tables``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from factscope.core.errors import InputError
from factscope.core.files.result_tables import RECORDS, table_rows, write_table
from factscope.core.runs.results import repeated_message
from factscope.reports.dispatch import ReportedSystem, read_rows, system_of


@dataclass(frozen=True)
class ExportedTable:
    """A results file written as a table: the system that wrote it, the records read (one row per record id),
    the rows that could not be read, what was said of rows that repeat a record id, the level, how many table
    rows were written and where."""

    system: ReportedSystem
    records: int
    problems: list[InputError]
    repeated: list[str]
    level: str
    written: int
    table: Path

    def summary_rows(self) -> list[tuple[str, object]]:
        """The figures of the export, as summary-table rows."""
        return [
            ("results of", self.system.command),
            ("records read", self.records),
            ("skipped rows", len(self.problems)),
            (f"rows written ({self.level})", self.written),
            ("table", str(self.table)),
        ]


def export_results(results: Path, table: Path, level: str = RECORDS) -> ExportedTable:
    """Write the rows of the results file ``results`` (any system's; rows that cannot be read are skipped and
    returned) as a table at ``level`` to ``table``, a ``.parquet`` or ``.csv`` file (``write_table``); an
    InputError for a level the system lacks or another suffix."""
    system = system_of(results)
    rows, problems, repeated = read_rows(results, system)
    written = write_table(table_rows(rows, system.row_type, level), table)
    said = [repeated_message(results, repeated)] if repeated else []
    return ExportedTable(system, len(rows), problems, said, level, written, table)
