"""The layout of a sharded run: input shards, one results shard per input shard, and one manifest for the folder.

The input is one JSON / JSONL file or a folder of ``*.jsonl`` shards (read in sorted order). The output is a
folder holding, for each input shard, a results shard of the same name (``part-003.jsonl`` gives
``part-003.jsonl``; a single ``answers.json`` gives ``answers.jsonl``) and ``manifest.json``, which records the
system, the fingerprint of every input shard and the settings, as a results file's manifest does
(``factscope.core.files.manifest``): a rerun resumes into the folder only when its manifest is the same.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from factscope.core.errors import InputError
from factscope.core.files.input_files import read_json_records, read_jsonl_range
from factscope.core.files.manifest import (
    InputFingerprint,
    RunManifest,
    fingerprint_file,
    nearest_existing_folder,
    read_manifest,
    refuse_another_run,
)
from factscope.core.files.record_limits import require_file
from factscope.engines.parts import RecordParser

Item = TypeVar("Item")

SHARD_SUFFIX = ".jsonl"
FOLDER_MANIFEST = "manifest.json"
"""The manifest file inside a results folder."""


@dataclass(frozen=True)
class WorkUnit:
    """Lines ``first`` to ``last`` (1-based, inclusive) of one input shard, held by its bytes ``start`` to ``end``:
    what one worker reads and runs. A JSONL shard's unit is read from those bytes alone; a JSON list is one unit,
    read whole."""

    shard: str
    first: int
    last: int
    start: int
    end: int


def input_shards(path: Path) -> list[Path]:
    """The input shards of ``path``: the file itself, or a folder's ``*.jsonl`` files in sorted order."""
    if path.is_dir():
        shards = sorted(p for p in path.iterdir() if p.suffix == SHARD_SUFFIX and p.is_file())
        if not shards:
            raise InputError(
                "is a folder with no *.jsonl shards; give a JSONL file or a folder of them", path=path
            )
        return shards
    require_file(path)
    return [path]


def result_shard(output: Path, shard: Path) -> Path:
    """The results shard in the folder ``output`` of the input shard ``shard``: the same name, as JSONL."""
    return output / (shard.stem + SHARD_SUFFIX)


def input_fingerprints(shards: Sequence[Path]) -> dict[str, InputFingerprint]:
    """The fingerprint of every input shard, by file name (a folder moved elsewhere is the same input)."""
    return {shard.name: fingerprint_file(shard) for shard in shards}


def count_lines(path: Path) -> int:
    """The number of lines of a file (a last line without a newline counts), read in blocks."""
    lines = 0
    last = b"\n"
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            lines += block.count(b"\n")
            last = block[-1:]
    return lines + (last != b"\n")


def work_units(shard: Path, lines_per_unit: int) -> list[WorkUnit]:
    """``shard`` cut into units of ``lines_per_unit`` lines, found by one pass over its lines noting the byte offset
    where each unit starts; a JSON file that is not JSONL (one list) is one unit, and an empty file none."""
    if lines_per_unit < 1:
        raise ValueError("lines_per_unit must be at least 1")
    if shard.suffix != SHARD_SUFFIX:
        lines = count_lines(shard)
        return [WorkUnit(str(shard), 1, lines, 0, shard.stat().st_size)] if lines else []
    units: list[WorkUnit] = []
    first, start, offset, number = 1, 0, 0, 0
    with shard.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            offset += len(raw)
            if number - first + 1 == lines_per_unit:
                units.append(WorkUnit(str(shard), first, number, start, offset))
                first, start = number + 1, offset
    if number >= first:
        units.append(WorkUnit(str(shard), first, number, start, offset))
    return units


def unit_records(unit: WorkUnit) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    """The records (or located errors) of the unit's lines: of a JSONL shard, read from the unit's bytes alone; of
    a JSON list, from the whole file. A problem with the whole file (bytes that are not UTF-8) ends the unit as
    its last error."""
    try:
        if Path(unit.shard).suffix == SHARD_SUFFIX:
            yield from read_jsonl_range(unit.shard, unit.start, unit.end, unit.first)
            return
        for line, raw in read_json_records(unit.shard):
            if line > unit.last:
                return
            if line >= unit.first:
                yield line, raw
    except InputError as error:
        yield error.line or unit.first, error


def check_results_folder(output: Path, *, overwrite: bool = False) -> None:
    """Judge a results folder before any work, as ``check_results_path`` judges a results file: refused with an
    InputError naming the path are a file, a folder that cannot be created or written, and, without ``overwrite``,
    a folder holding results shards but no readable manifest (not a factscope results folder)."""
    if output.exists() and not output.is_dir():
        raise InputError(
            "is a file; with `engine='ray'`, `output` names a results folder (one results shard per input shard)",
            path=output,
        )
    folder = output if output.is_dir() else nearest_existing_folder(output)
    if not folder.is_dir():
        raise InputError(
            f"cannot be created: {folder} is a file, not a folder; name another `output`", path=output
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(
            f"cannot be written: the folder {folder} is read-only; name another `output`", path=output
        )
    if not overwrite and _holds_rows(output):
        _recorded_manifest(output)


def prepare_results_folder(output: Path, manifest: RunManifest, *, overwrite: bool = False) -> None:
    """Make the folder ``output`` ready for a run described by ``manifest``, as ``prepare_results`` makes a file
    ready: with ``overwrite`` its results shards and manifest are removed; otherwise a folder holding results must
    have been made by the same manifest (resume), else ResultsMismatch says what differs. A new folder gets the
    manifest."""
    check_results_folder(output, overwrite=overwrite)
    sidecar = output / FOLDER_MANIFEST
    if overwrite and output.is_dir():
        for shard in output.glob("*" + SHARD_SUFFIX):
            shard.unlink()
        sidecar.unlink(missing_ok=True)
    if _holds_rows(output):
        refuse_another_run(output, _recorded_manifest(output), manifest, "folder")
        return
    output.mkdir(parents=True, exist_ok=True)
    sidecar.write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")


def _holds_rows(output: Path) -> bool:
    return output.is_dir() and any(shard.stat().st_size > 0 for shard in output.glob("*" + SHARD_SUFFIX))


def _recorded_manifest(output: Path) -> RunManifest:
    return read_manifest(
        output,
        output / FOLDER_MANIFEST,
        missing=f"holds results shards but no {FOLDER_MANIFEST}, so it is not a factscope results folder; rerun "
        "with `overwrite=True` to replace its shards, or name another `output`",
        named=FOLDER_MANIFEST,
    )


def readable_items(input: Path, parse: RecordParser[Item]) -> Iterator[Item]:
    """The items of every shard of ``input`` that ``parse`` reads (bad and passed-over records left out), read on
    this machine: the one pass over the records a system's ``prepare`` makes before a run on Ray."""
    for shard in input_shards(input):
        for line, raw in read_json_records(shard):
            if isinstance(raw, InputError):
                continue
            try:
                item = parse(raw, path=shard, line=line)
            except InputError:
                continue
            if item is not None:
                yield item
