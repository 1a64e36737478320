"""CONNER's own files: query tables (TSV) and knowledge written one text per line.

CONNER's test sets (``nq_test_random_testset.txt``, ``seen_random_testset.txt``) are tab-separated rows of four
columns, "a topic, query, knowledge, and answer" (CONNER 4.4): the topic (a Wikipedia page), the query (a
question, or for dialogue the partner's utterance), the reference knowledge and the reference answer or
response. They have no header row; a first row that names the four columns (``topic query knowledge response``,
``answer`` accepted for the last) is read as a header and skipped. The knowledge a model generated for such a
set is a plain text file, one knowledge text per line, line i answering the set's row i.

``file_layout`` tells the three apart: ``.json`` / ``.jsonl`` are records; ``.tsv`` a query table; any other file
is records when it starts with ``{`` or ``[`` (or is empty), a query table when its first non-blank line has a tab, and
otherwise one knowledge text per line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from factscope.core.errors import InputError
from factscope.core.files.input_files import read_lines

Layout = Literal["records", "table", "lines"]

COLUMNS = ("topic", "query", "knowledge", "response")
"""The columns of CONNER's query tables, in order."""

_HEADER_NAMES = (COLUMNS, ("topic", "query", "knowledge", "answer"))
_FIELDS = {"topic": "topic", "query": "query", "knowledge": "knowledge", "response": "gold_answer"}
"""Where each column goes in a knowledge record: the reference answer or response becomes its ``gold_answer``."""


_REQUIRED = {True: ("query", "knowledge"), False: ("query",)}
"""The columns a row must fill, with and without knowledge to evaluate."""


def file_layout(path: str | Path) -> Layout:
    """Whether a knowledge file holds records (JSON / JSONL, Parquet, CSV), a CONNER query table or one knowledge
    per line; only its first non-blank line is read."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".json", ".jsonl", ".parquet", ".csv"):
        return "records"
    if suffix == ".tsv":
        return "table"
    first = next((line for _, line in read_lines(path) if line.strip()), "")
    if first.lstrip()[:1] in ("{", "[", ""):
        return "records"
    return "table" if "\t" in first else "lines"


def _is_header(cells: list[str]) -> bool:
    return tuple(cell.strip().lower() for cell in cells) in _HEADER_NAMES


def read_query_table(
    path: str | Path, *, need_knowledge: bool = True
) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    """(line, record) for each row of a CONNER query table: ``{id, topic, query, knowledge, gold_answer}``, cells as
    written, blank topic and answer left out; a row with another number of columns, an empty query, or (with
    ``need_knowledge``) empty knowledge comes back as an InputError naming its line and column. The file is read a
    line at a time; blank lines are skipped; a row's id is its line (``line-N``), as for JSONL records."""
    path = Path(path)
    first_row = True
    for number, line in read_lines(path):
        if not line.strip():
            continue
        cells = line.split("\t")
        if first_row and _is_header(cells):
            first_row = False
            continue
        first_row = False
        if len(cells) != len(COLUMNS):
            yield (
                number,
                InputError(
                    f"{len(cells)} tab-separated columns, expected {len(COLUMNS)}: {', '.join(COLUMNS)}",
                    path=path,
                    line=number,
                ),
            )
            continue
        empty = [
            i for i, name in enumerate(COLUMNS) if not cells[i].strip() and name in _REQUIRED[need_knowledge]
        ]
        if empty:
            column = COLUMNS[empty[0]]
            yield (
                number,
                InputError(
                    f"empty; expected the {column}",
                    path=path,
                    line=number,
                    field=f"column {empty[0] + 1} ({column})",
                ),
            )
            continue
        given = {_FIELDS[name]: cell for name, cell in zip(COLUMNS, cells) if cell.strip()}
        yield number, {"id": f"line-{number}", **given}
    if first_row:
        raise InputError(
            "file is empty; expected rows of topic, query, knowledge and response separated by tabs",
            path=path,
        )
