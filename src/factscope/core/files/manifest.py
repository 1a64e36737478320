"""What produced a results file: a manifest beside it, checked before a run resumes into it.

A results file ``out.jsonl`` gets ``out.jsonl.manifest.json``: the system, the factscope version, a fingerprint
(SHA-256 and size) of every input, and every setting that changes results. A rerun resumes into the file only
when its own manifest is the same; otherwise it stops and says what differs, so figures computed with one model,
input or threshold are never reported under another.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from string import Template
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field, ValidationError

from factscope.core.errors import InputError
from factscope.core.files.storage_faults import storage_fault
from factscope.core.options.metadata import option_fields

MANIFEST_SUFFIX = ".manifest.json"

SettingValue = str | int | float | bool | None | list[Any] | dict[str, Any]
"""The value a results file's manifest records for one setting of its run (JSON-shaped)."""


class InputFingerprint(BaseModel):
    """One input: where it was read from (for messages) and what it held (what is compared)."""

    source: str
    sha256: str
    size: int


class RunManifest(BaseModel):
    """The system, version, inputs and result-changing settings of a results file."""

    system: str
    factscope_version: str
    inputs: dict[str, InputFingerprint] = Field(default_factory=dict)
    settings: dict[str, SettingValue] = Field(default_factory=dict)


def manifest_path(output: str | Path) -> Path:
    """The manifest file of a results file: the same name with ``.manifest.json`` appended."""
    output = Path(output)
    return output.with_name(output.name + MANIFEST_SUFFIX)


def fingerprint_file(path: str | Path) -> InputFingerprint:
    """SHA-256 and size of a file, or of a folder's files (relative names and contents, in sorted order)."""
    path = Path(path)
    digest = hashlib.sha256()
    size = 0
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        if path.is_dir():
            digest.update(str(file.relative_to(path)).encode("utf-8") + b"\0")
        with file.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
                size += len(block)
    return InputFingerprint(source=str(path), sha256=digest.hexdigest(), size=size)


class ItemsDigest:
    """The SHA-256 of records taken one at a time, in order, as ``fingerprint_items`` takes them: a reader that
    digests its records as it reads them spares a run the pass its manifest would otherwise make."""

    def __init__(self) -> None:
        self._sha256 = hashlib.sha256()
        self.count = 0

    def add(self, item: object) -> None:
        """Take the next record."""
        self._sha256.update(_canonical(item).encode("utf-8") + b"\n")
        self.count += 1

    def fingerprint(self, source: str = "<records>") -> InputFingerprint:
        """The fingerprint of the records taken so far."""
        return InputFingerprint(source=source, sha256=self._sha256.hexdigest(), size=self.count)


@runtime_checkable
class DigestedItems(Protocol):
    """Records read afresh from a file on each pass that digest themselves as they are read: ``digest`` is that
    of the last complete pass (None before one, or while a pass is under way)."""

    digest: ItemsDigest | None


def fingerprint_items(items: Iterable[object], source: str = "<records>") -> InputFingerprint:
    """SHA-256 over records (pydantic models, dataclasses or JSON-like values), in order; records that digested
    themselves on a complete pass (``DigestedItems``) are not read again."""
    digest = items.digest if isinstance(items, DigestedItems) else None
    if digest is None:
        digest = ItemsDigest()
        for item in items:
            digest.add(item)
    return digest.fingerprint(source)


def _canonical(item: object) -> str:
    if isinstance(item, BaseModel):
        return item.model_dump_json()
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        item = dataclasses.asdict(item)
    return json.dumps(item, sort_keys=True, ensure_ascii=False, default=_fallback)


def _fallback(value: object) -> object:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    to_list = getattr(value, "to_list", None)
    if callable(to_list):
        return to_list()
    return repr(value)


NOT_RESULT_CHANGING = frozenset(
    {"batch_size", "concurrency", "progress", "chunk_batches", "name", "usage", "cache", "retry", "api_key"}
)
"""Component attributes that change speed or display, never results: left out of a description."""


def describe(component: object, depth: int = 2) -> SettingValue:
    """The result-changing settings of a component: its own ``result_settings()`` when it has one, else its type
    and public plain-valued attributes (numbers, strings, flags, paths; a prompt template as a digest of its
    text) and those of the objects it holds, ``depth`` levels down."""
    if isinstance(component, (str, int, float, bool)) or component is None:
        return component
    if isinstance(component, Path):
        return str(component)
    if isinstance(component, Template):
        return "sha256:" + hashlib.sha256(component.template.encode("utf-8")).hexdigest()[:16]
    if isinstance(component, (list, tuple)) and all(isinstance(v, (str, int, float, bool)) for v in component):
        return list(component)
    result_settings = getattr(component, "result_settings", None)
    if callable(result_settings):
        return {"type": type(component).__name__, **result_settings()}
    attributes = getattr(component, "__dict__", None)
    if attributes is None or depth == 0:
        return type(component).__name__
    described: dict[str, Any] = {"type": type(component).__name__}
    name = getattr(component, "name", None)
    if isinstance(name, str):
        described["name"] = name
    for key, value in sorted(attributes.items()):
        if key.startswith("_") or key in NOT_RESULT_CHANGING or isinstance(value, (dict, set)):
            continue
        described[key] = describe(value, depth - 1)
    return described


def spec_settings(spec: object) -> dict[str, SettingValue]:
    """The options of the spec dataclass ``spec`` (its fields with a help text, ``option_fields``) that are not at
    their default, described, for its run's manifest: an option added to a spec enters the manifest of a run that
    sets it, and a run at its default makes the manifest that files written before it existed have, which
    therefore still resume. An option whose metadata says ``recorded_by`` (a component's description records it)
    or ``changes_results=False`` is left out; a spec that is not a dataclass has none."""
    chosen: dict[str, SettingValue] = {}
    if not dataclasses.is_dataclass(spec):
        return chosen
    for item in option_fields(type(spec)):
        if item.metadata.get("recorded_by") or item.metadata.get("changes_results", True) is False:
            continue
        default = item.default if item.default_factory is dataclasses.MISSING else item.default_factory()
        value = getattr(spec, item.name)
        if value != default:
            chosen[item.name] = describe(value)
    return chosen


def differences(recorded: RunManifest, current: RunManifest) -> list[str]:
    """What differs between a results file's manifest and the present run, one line each."""
    found = []
    if recorded.system != current.system:
        found.append(f"system: the file holds '{recorded.system}' results, this run is '{current.system}'")
    if recorded.factscope_version != current.factscope_version:
        found.append(f"factscope version: {recorded.factscope_version} -> {current.factscope_version}")
    found += _mapping_differences("input", _digests(recorded.inputs), _digests(current.inputs), current.inputs)
    found += _mapping_differences("setting", recorded.settings, current.settings, {})
    return found


def _digests(inputs: Mapping[str, InputFingerprint]) -> dict[str, str]:
    return {name: item.sha256 for name, item in inputs.items()}


def _mapping_differences(
    kind: str, old: Mapping[str, object], new: Mapping[str, object], sources: Mapping[str, InputFingerprint]
) -> list[str]:
    found = []
    for name in sorted(set(old) | set(new)):
        if name not in old:
            found.append(f"{kind} '{name}': not recorded in the file, now {_shown(new[name], name, sources)}")
        elif name not in new:
            found.append(f"{kind} '{name}': recorded as {_shown(old[name], name, {})}, not given now")
        elif old[name] != new[name]:
            before, after = old[name], new[name]
            if kind == "input":
                found.append(f"input '{name}': {sources[name].source} is not the input the file was made from")
            elif isinstance(before, dict) and isinstance(after, dict) and before.get("type") == after.get("type"):
                # two descriptions of one type of component: name the fields that differ ('checker.scorer.contents')
                inner = _mapping_differences(kind, before, after, {})
                found += [line.replace(f"{kind} '", f"{kind} '{name}.", 1) for line in inner]
            else:
                found.append(f"setting '{name}': {_shown(before, name, {})} -> {_shown(after, name, {})}")
    return found


def _shown(value: object, name: str, sources: Mapping[str, InputFingerprint]) -> str:
    if name in sources:
        return sources[name].source
    return json.dumps(value, ensure_ascii=False, default=str)


class ResultsMismatch(InputError):
    """The results file was made by another input, settings or system than the present run."""


def check_results_path(output: str | Path, *, overwrite: bool = False) -> None:
    """Judge a results path as far as it can be judged without the run's manifest, so that a command can refuse a
    bad one before any model loads; ``prepare_results`` applies the same rules when the run starts.

    Refused, each with an InputError naming the path and what to do: a folder; a path under a file; a file or a
    folder that cannot be written; and, without ``overwrite``, an existing non-empty file that is not a factscope
    results file (no readable manifest beside it), so results are never appended to a foreign file.
    """
    output = Path(output)
    if output.is_dir():
        raise InputError("is a folder; name a results file as `output`, e.g. `output='results.jsonl'`", path=output)
    folder = nearest_existing_folder(output)
    if not folder.is_dir():
        raise InputError(f"cannot be created: {folder} is a file, not a folder; name another `output`", path=output)
    if output.exists() and not os.access(output, os.W_OK):
        raise InputError("is read-only; make it writable (chmod u+w) or name another `output`", path=output)
    if (overwrite or not output.exists()) and not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(
            f"cannot be written: the folder {folder} is read-only; name an `output` in a folder you can write",
            path=output,
        )
    if not overwrite and output.exists() and output.stat().st_size > 0:
        _read_manifest(output, manifest_path(output))


def nearest_existing_folder(path: Path) -> Path:
    """The closest parent of ``path`` that exists (it may be a file, which the caller reports)."""
    parent = path.absolute().parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    return parent


def prepare_results(output: str | Path, manifest: RunManifest, *, overwrite: bool = False) -> None:
    """Make ``output`` ready for a run described by ``manifest``, before any work.

    With ``overwrite``, an existing results file and its manifest are removed. Otherwise an existing, non-empty
    results file must have a manifest equal to ``manifest`` (resume); one without a manifest, or with another,
    raises ResultsMismatch naming what differs and what to do. The manifest is written for a new file.
    """
    output = Path(output)
    sidecar = manifest_path(output)
    check_results_path(output, overwrite=overwrite)
    if overwrite:
        output.unlink(missing_ok=True)
        sidecar.unlink(missing_ok=True)
    has_rows = output.exists() and output.stat().st_size > 0
    if has_rows:
        refuse_another_run(output, _read_manifest(output, sidecar), manifest, "file")
        return
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        sidecar.write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
    except OSError as error:
        raise storage_fault(error, sidecar, "writing the results file's manifest, before any record ran",
                            kept="Nothing was run") from error


def discard_unwritten(output: str | Path) -> None:
    """Remove the results file ``output`` and its manifest when the file holds nothing: what a run that made it
    leaves when it stops before its first row (a refused key, say)."""
    output = Path(output)
    if output.is_file() and output.stat().st_size == 0:
        output.unlink(missing_ok=True)
        manifest_path(output).unlink(missing_ok=True)


def _read_manifest(output: Path, sidecar: Path) -> RunManifest:
    return read_manifest(
        output,
        sidecar,
        missing=f"exists but has no {sidecar.name}, so it is not a factscope results file (or was made before "
        "results files recorded their settings); rerun with `overwrite=True` to replace it, or name another "
        "`output`",
        named=f"manifest {sidecar.name}",
    )


def read_manifest(output: Path, sidecar: Path, *, missing: str, named: str) -> RunManifest:
    """The manifest ``sidecar`` of the results ``output`` (a file or a folder); a ResultsMismatch naming ``output``
    when there is none (``missing`` says what that means) or it cannot be read (``named``: what it is called)."""
    if not sidecar.is_file():
        raise ResultsMismatch(missing, path=output)
    try:
        return RunManifest.model_validate_json(sidecar.read_text(encoding="utf-8"))
    except (ValidationError, UnicodeDecodeError) as error:
        raise ResultsMismatch(
            f"its {named} cannot be read ({type(error).__name__}); rerun with `overwrite=True` to start again, or "
            "name another `output`",
            path=output,
        ) from None


def refuse_another_run(output: Path, recorded: RunManifest, manifest: RunManifest, kind: str) -> None:
    """A ResultsMismatch naming what differs when the results ``output`` (a ``kind``: file or folder) were written
    by a run with another manifest than ``manifest``."""
    found = differences(recorded, manifest)
    if found:
        raise ResultsMismatch(
            "holds results of another run, so resuming into it would mix them: "
            + "; ".join(found)
            + f". Rerun with `overwrite=True` to start this {kind} again, or name another `output`",
            path=output,
        )
