"""A writer, defined once: the ``Writer`` base class of the runs that write a results file with an LLM or a
checker beside the four systems (responses, answers, questions, knowledge, agreement with human labels), and the
one place where such a run starts.

A subclass says how its input is read (``load``; the settings of reading a file that are no option of its run,
such as a metadata file, are the instance's own), how its batches are made from its settings and the LLM
(``steps``) and the typed result of its rows (``result``). ``write`` is the same for every writer, as
``System.execute`` is for every system: the results path is judged and locked before the input is read, the
manifest records the components, every option of the settings that is not at its default (``spec_settings``) and
the writer's further settings, a rerun resumes without writing a record twice, and a results file made from
other input or settings is refused (``factscope.core.runs.loop.run_batches``); progress goes to the callback.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from factscope.core.files.input_notes import InputNotes
from factscope.core.files.manifest import SettingValue, spec_settings
from factscope.core.files.output_checks import check_outputs
from factscope.core.files.results_lock import results_lock
from factscope.core.runs.loop import (
    ProgressCallback,
    RunRows,
    report_progress,
    reporting_setup,
    run_batches,
    run_manifest,
)

SettingsT = TypeVar("SettingsT")
Item = TypeVar("Item")
RunT = TypeVar("RunT")


@dataclass(frozen=True)
class Loaded(Generic[Item]):
    """What a writer read: the items it runs, the input records that were usable and those that were skipped."""

    items: Sequence[Item]
    usable: int
    skipped: int = 0


@dataclass(frozen=True)
class WriterSteps(Generic[Item]):
    """How a writer makes its rows: the batch function (its components built), an item's key (its row's id), the
    type of its rows, the components and further settings its manifest records, and which rows record a failure
    that a rerun with ``retry_failed`` makes again (None: a failure writes no row). ``failures`` gathers the
    (id, error) of each item whose work failed without a row, so that any rerun tries it again."""

    process: Callable[[Sequence[Item]], Sequence[Any]]
    key: Callable[[Item], str]
    row_type: type[Any]
    components: Mapping[str, object]
    settings: Mapping[str, SettingValue] = field(default_factory=dict)
    failed: Callable[[Any], bool] | None = None
    failures: list[tuple[str, str | None]] = field(default_factory=list)


class FailedRows:
    """The totals of a writer's results file: how many of its rows, earlier runs' included, record a failure."""

    def __init__(self, failed: Callable[[Any], bool] | None) -> None:
        self.failed = failed
        self.count = 0

    def add(self, row: Any) -> None:
        """Count ``row`` when it records a failure."""
        if self.failed is not None and self.failed(row):
            self.count += 1

    def merge(self, other: FailedRows) -> None:
        """Count the failures ``other`` counted."""
        self.count += other.count


@dataclass(frozen=True)
class Produced:
    """What a writer's run made: the rows of the results file with the run's counts, the rows of the file that
    record a failure, and the failures this run wrote no row for (``WriterSteps.failures``)."""

    rows: RunRows[Any]
    failed_rows: int
    failures: list[tuple[str, str | None]]


class Writer(ABC, Generic[SettingsT, Item, RunT]):
    """A run that writes a results file (see the module's description). ``SettingsT`` is its frozen dataclass of
    options, validated on construction (``factscope.core.options.validation.ValidatedOptions``)."""

    name: ClassVar[str]
    """The command it runs, as its results files' manifests name it."""
    stage_name: ClassVar[str]
    """Its stage, as progress names it."""
    batch_size: ClassVar[int] = 16
    """Items per batch (``batch_of`` may take it from the settings)."""

    @abstractmethod
    def load(self, settings: SettingsT, inputs: Any, notes: InputNotes | None) -> Loaded[Item]:
        """The items of ``inputs`` (a file, or items), ``notes`` told of the records skipped and of what the
        settings added; an input with no usable record raises an InputError."""

    @abstractmethod
    def steps(self, settings: SettingsT, llm: Any, loaded: Loaded[Item], notes: InputNotes | None) -> WriterSteps[Item]:
        """How the rows are made with ``llm`` (the components built from the settings); ``notes`` is told of what
        building them chose."""

    @abstractmethod
    def result(self, settings: SettingsT, loaded: Loaded[Item], produced: Produced) -> RunT:
        """The typed result of the run."""

    def batch_of(self, settings: SettingsT) -> int:
        """Items per batch: the class's ``batch_size``."""
        return self.batch_size

    def run_notes(self) -> list[str]:
        """Lines a terminal shows before this writer's run (what it will not compute, and why); none by
        default."""
        return []

    def written(self, settings: SettingsT) -> Mapping[str, str | Path | None]:
        """Files a run writes beside its results file, by the parameter that names them; none by default."""
        return {}

    def write(
        self,
        settings: SettingsT,
        inputs: Any,
        *,
        llm: Any,
        output: str | Path | None = None,
        progress: ProgressCallback | None = None,
        overwrite: bool = False,
        retry_failed: bool = False,
        notes: InputNotes | None = None,
    ) -> RunT:
        """Write a row per item of ``inputs`` (a file, or items, as the writer's ``load`` takes them) into ``output`` (held in memory without one) with ``llm``, as the
        module's description says; with ``retry_failed``, the file's rows that record a failure are made again
        and replaced in place. ``notes`` is told of the records skipped and of each failure written as no row."""
        check_outputs(output, overwrite=overwrite, written=self.written(settings))
        with results_lock(output) if output is not None else nullcontext():
            loaded = self.load(settings, inputs, notes)
            with reporting_setup(progress):
                steps = self.steps(settings, llm, loaded, notes)
            report_progress(progress, *steps.components.values())
            manifest = (
                run_manifest(self.name, loaded.items, steps.components, {**spec_settings(settings), **steps.settings})
                if output is not None
                else None
            )
            totals = FailedRows(steps.failed)
            rows = run_batches(
                loaded.items, steps.process, key=steps.key, row_type=steps.row_type, totals=totals, output=output,
                batch_size=self.batch_of(settings), progress=progress, stage_name=self.stage_name, manifest=manifest,
                overwrite=overwrite, failed=steps.failed, retry_failed=retry_failed,
            )
        if notes is not None:
            for key, error in steps.failures:
                notes.warning(f"call failed for {key}: {error}")
        return self.result(settings, loaded, Produced(rows, totals.count, steps.failures))
