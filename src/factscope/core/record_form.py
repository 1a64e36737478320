"""A system's web form: the fields of one input record as a page asks for them (``RecordForm``), declared by the
system itself (``factscope.engines.system.System.form``) and shown by the server's pages
(``factscope.serve.pages``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FieldKind = Literal["text", "passages", "lines", "json"]
"""How a field's text becomes the record's value: text (as written), passages (split at blank lines), lines (one
per line), json (parsed)."""


@dataclass(frozen=True)
class FormField:
    """One field of a record's form: the record's field ``name``, its ``label``, how its text is read (``kind``),
    the lines its box shows, whether the record needs it, and a hint."""

    name: str
    label: str
    kind: FieldKind = "text"
    lines: int = 1
    required: bool = False
    help: str = ""


@dataclass(frozen=True)
class RecordForm:
    """The form of one record of a system: what the system does, in a sentence or two (``intro``), its fields,
    and the packaged example file (under ``factscope.examples``) whose first record fills it (None: none)."""

    intro: str
    fields: tuple[FormField, ...]
    example: str | None = None
