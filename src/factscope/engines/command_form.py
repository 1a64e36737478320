"""What a command line needs of a system to build its command, declared once by the system
(``System.command_form``): its help, its input argument, its results file, its batch size, its reader's options
and the groups of options that make up its spec, each with the --help panels it is shown under
(``factscope.core.options.panels``); and, as a ``WriterForm`` that the system's package declares, what it
needs of a command that runs a ``Writer``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from factscope.engines.writer import Writer


@dataclass(frozen=True)
class OptionGroup:
    """A group of a command's options: the fields of the dataclass ``options`` that have a help text (those in
    ``names`` when given), shown under ``panel`` (a field named in ``panels``: under the panel it gives),
    listed after the option ``after`` (None: after those added before it). ``into`` is the spec field the
    group's instance fills; None for the spec itself, or for a group of the reader's options."""

    options: type
    into: str | None = None
    names: frozenset[str] | None = None
    panel: str | None = None
    panels: Mapping[str, str] = field(default_factory=dict)
    after: str | None = None


@dataclass(frozen=True)
class CommandForm:
    """A system's command: its ``name`` (in its command group, if it is in one), its --help text ``help``; its
    input argument ``input`` (``input_help``); its results file's option --output (``output_help``, by default
    :attr:`output_text`'s), which defaults to INPUT's name with ``suffix`` (None: it must be given); --batch-size
    (``batch_help``; None: none, the run takes ``batch_size``), whose default is ``batch_size``; ``reading``, the
    groups of its reader's options (``System.reader`` takes their instances in this order); ``options``, the spec's
    group and those that fill its fields, in the order --help lists them; and ``panels``, the panels of ``input``,
    ``output`` and ``batch_size``."""

    name: str
    help: str
    input_help: str
    suffix: str | None
    batch_size: int
    options: tuple[OptionGroup, ...]
    reading: tuple[OptionGroup, ...] = ()
    output_help: str | None = None
    batch_help: str | None = "records per batch"
    input: str = "input"
    panels: Mapping[str, str] = field(default_factory=dict)

    @property
    def output_text(self) -> str:
        """The help of --output: ``output_help``, else the results file and its default name."""
        if self.output_help is not None:
            return self.output_help
        return "results JSONL" if self.suffix is None else f"results JSONL (default: INPUT name + {self.suffix}.jsonl)"


@dataclass(frozen=True)
class WriterForm:
    """A command that runs a ``Writer``: its ``name`` in its command group, its --help text ``help``; its
    input argument ``input`` (``input_help``); its results file's option --output (``output_help``), which
    defaults to INPUT's name with ``suffix`` and .jsonl (None: it must be given); ``options``, its groups of
    options by the keyword ``writing`` takes each one's instance under, in the order they are added; and
    ``writing``, which makes the writer and the settings it runs with of those instances."""

    name: str
    help: str
    input_help: str
    output_help: str
    options: Mapping[str, OptionGroup]
    writing: Callable[..., tuple[Writer[Any, Any, Any], Any]]
    suffix: str | None = None
    input: str = "input"
