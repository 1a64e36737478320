"""Grounding datasets: the seed 003 layout (a JSON object keyed by question id) and a generic JSONL.

Seed layout: ``{"<qid>": {"qId", "qText", "answer", "atomic_texts": [gold facts],
"context_list": ["Title: ... \\n\\n text", ...]}, ...}`` with an optional metadata file keyed by the same ids
(``{"has_answer", "has_multi", "pop"}``). The Original and Conflict versions are two such files.

Generic JSONL: one object per line with ``question``, ``contexts`` (a list or one string), ``gold_facts`` and
optionally ``id``, ``response``, ``answer``, ``metadata``; other top-level fields join the metadata.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from factscope.core.errors import InputError


@dataclass
class GroundExample:
    """One grounding instance: a question, its input contexts, the gold atomic facts, maybe a response."""

    id: str
    question: str
    contexts: list[str]
    gold_facts: list[str]
    answer: str | None = None
    response: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class GroundDataset:
    """Examples that loaded, and the errors of those that did not (each names file, key or line, and field)."""

    examples: list[GroundExample]
    errors: list[InputError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


_TITLE = re.compile(r"^\s*Title:\s*(?P<title>[^\n]*?)\s*(?:\n|$)")


def context_title(context: str) -> str | None:
    """The title of a ``"Title: X \\n\\n text"`` context, or None when it has none."""
    match = _TITLE.match(context)
    return match.group("title") if match else None


def _string_list(value: Any, *, path: Path, where: str, name: str, line: int | None = None) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InputError(f"{where}: expected a list of strings", path=path, line=line, field=name)
    return [item for item in value if item.strip()]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise InputError("file not found; check the path", path=path) from error
    except json.JSONDecodeError as error:
        raise InputError(
            f"not valid JSON ({error.msg} at column {error.colno})", path=path, line=error.lineno
        ) from error


def is_seed_layout(path: Path) -> bool:
    """True when the file is one JSON object whose values are objects with ``qText`` (the seed layout)."""
    text = path.read_text(encoding="utf-8")
    if not text.lstrip().startswith("{"):
        return False
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return False
    return isinstance(data, dict) and any(isinstance(v, dict) and "qText" in v for v in data.values())


def load_seed_dataset(path: str | Path, metadata_path: str | Path | None = None) -> GroundDataset:
    """Read a seed-layout file (and its metadata file); bad entries are reported and skipped."""
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, dict):
        raise InputError("expected a JSON object keyed by question id (the seed layout)", path=path)
    dataset = GroundDataset(examples=[])
    for key, entry in data.items():
        try:
            dataset.examples.append(_seed_example(path, str(key), entry))
        except InputError as error:
            dataset.errors.append(error)
    if metadata_path is not None:
        _attach_metadata(dataset, Path(metadata_path), {str(k) for k in data})
    return dataset


def _seed_example(path: Path, key: str, entry: Any) -> GroundExample:
    where = f"question {key!r}"
    if not isinstance(entry, dict):
        raise InputError(f"{where}: expected an object", path=path, field=key)
    for name in ("qText", "context_list", "atomic_texts"):
        if name not in entry:
            raise InputError(f"{where}: missing", path=path, field=name)
    question = entry["qText"]
    if not isinstance(question, str) or not question.strip():
        raise InputError(f"{where}: expected a non-empty string", path=path, field="qText")
    contexts = _string_list(entry["context_list"], path=path, where=where, name="context_list")
    if not contexts:
        raise InputError(f"{where}: no input context", path=path, field="context_list")
    gold = _string_list(entry["atomic_texts"], path=path, where=where, name="atomic_texts")
    if not gold:
        raise InputError(
            f"{where}: no gold atomic facts; recall needs at least one", path=path, field="atomic_texts"
        )
    answer = entry.get("answer")
    if answer is not None and not isinstance(answer, (str, int, float)):
        raise InputError(f"{where}: expected a string", path=path, field="answer")
    qid = entry.get("qId", key)
    if str(qid) != key:
        raise InputError(f"{where}: qId {qid!r} differs from its key", path=path, field="qId")
    return GroundExample(
        id=key,
        question=question,
        contexts=contexts,
        gold_facts=gold,
        answer=None if answer is None else str(answer),
    )


def _attach_metadata(dataset: GroundDataset, path: Path, data_ids: set[str]) -> None:
    metadata = _read_json(path)
    if not isinstance(metadata, dict):
        raise InputError("expected a JSON object keyed by question id", path=path)
    for example in dataset.examples:
        entry = metadata.get(example.id)
        if entry is None:
            continue
        if not isinstance(entry, dict):
            dataset.errors.append(
                InputError(f"question {example.id!r}: expected an object", path=path, field=example.id)
            )
            continue
        example.metadata.update(entry)
    without = sorted(data_ids - set(metadata))
    unknown = sorted(set(metadata) - data_ids)
    if without:
        dataset.warnings.append(f"{path}: no metadata for {len(without)} question id(s): {_ids(without)}")
    if unknown:
        dataset.warnings.append(f"{path}: {len(unknown)} metadata id(s) match no question: {_ids(unknown)}")


def _ids(ids: list[str], shown: int = 5) -> str:
    more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
    return ", ".join(ids[:shown]) + more


_GENERIC_FIELDS = {"id", "question", "contexts", "gold_facts", "answer", "response", "metadata"}


def generic_example(obj: Mapping[str, Any], *, path: Path, line: int) -> GroundExample:
    """One generic JSONL object as an example; errors name the file, line and field."""
    if not isinstance(obj, Mapping):
        raise InputError("expected a JSON object", path=path, line=line)
    for name in ("question", "contexts", "gold_facts"):
        if name not in obj:
            raise InputError("missing", path=path, line=line, field=name)
    question = obj["question"]
    if not isinstance(question, str) or not question.strip():
        raise InputError("expected a non-empty string", path=path, line=line, field="question")
    contexts = _string_list(obj["contexts"], path=path, where="contexts", name="contexts", line=line)
    if not contexts:
        raise InputError("no input context", path=path, line=line, field="contexts")
    gold = _string_list(obj["gold_facts"], path=path, where="gold_facts", name="gold_facts", line=line)
    if not gold:
        raise InputError(
            "no gold atomic facts; recall needs at least one", path=path, line=line, field="gold_facts"
        )
    response = obj.get("response")
    if response is not None and not isinstance(response, str):
        raise InputError("expected a string", path=path, line=line, field="response")
    metadata = obj.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise InputError("expected an object", path=path, line=line, field="metadata")
    extra = {k: v for k, v in obj.items() if k not in _GENERIC_FIELDS}
    answer = obj.get("answer")
    return GroundExample(
        id=str(obj.get("id", line)),
        question=question,
        contexts=contexts,
        gold_facts=gold,
        answer=None if answer is None else str(answer),
        response=response,
        metadata={**extra, **metadata},
    )


def load_generic_dataset(path: str | Path) -> GroundDataset:
    """Read the generic JSONL (or JSON list) layout; bad lines are reported and skipped."""
    from factscope.core.io import read_json_records

    path = Path(path)
    if not path.exists():
        raise InputError("file not found; check the path", path=path)
    dataset = GroundDataset(examples=[])
    seen: set[str] = set()
    for line, item in read_json_records(path):
        if isinstance(item, InputError):
            dataset.errors.append(item)
            continue
        try:
            example = generic_example(item, path=path, line=line)
        except InputError as error:
            dataset.errors.append(error)
            continue
        if example.id in seen:
            dataset.errors.append(
                InputError(f"duplicate id {example.id!r}", path=path, line=line, field="id")
            )
            continue
        seen.add(example.id)
        dataset.examples.append(example)
    return dataset


def load_dataset(path: str | Path, metadata_path: str | Path | None = None) -> GroundDataset:
    """Read either layout, chosen by content; a metadata file applies to both (keyed by id)."""
    path = Path(path)
    if not path.exists():
        raise InputError("file not found; check the path", path=path)
    if is_seed_layout(path):
        return load_seed_dataset(path, metadata_path)
    dataset = load_generic_dataset(path)
    if metadata_path is not None:
        _attach_metadata(dataset, Path(metadata_path), {e.id for e in dataset.examples})
    return dataset


def attach_responses(dataset: GroundDataset, path: str | Path, field_name: str = "response") -> None:
    """Set each example's response from a JSONL of ``{id, response}`` (e.g. ``ground generate`` output).

    A row may also carry ``contexts`` (the input contexts the model was given, e.g. with distractors added by
    ``ground generate``): they replace the example's contexts, so precision is judged against what the model saw.
    Examples without a response line are reported in ``warnings``; response ids matching no example too.
    """
    from factscope.core.io import read_json_records

    path = Path(path)
    if not path.exists():
        raise InputError("file not found; check the path", path=path)
    responses: dict[str, str] = {}
    contexts: dict[str, list[str]] = {}
    for line, item in read_json_records(path):
        if isinstance(item, InputError):
            dataset.errors.append(item)
            continue
        if "id" not in item:
            dataset.errors.append(InputError("missing", path=path, line=line, field="id"))
            continue
        text = item.get(field_name)
        if not isinstance(text, str):
            dataset.errors.append(
                InputError("missing or not a string", path=path, line=line, field=field_name)
            )
            continue
        if "contexts" in item:
            try:
                contexts[str(item["id"])] = _string_list(
                    item["contexts"], path=path, where="contexts", name="contexts", line=line
                )
            except InputError as error:
                dataset.errors.append(error)
                continue
        responses[str(item["id"])] = text
    ids = {e.id for e in dataset.examples}
    for example in dataset.examples:
        if example.id in responses:
            example.response = responses[example.id]
        if contexts.get(example.id):
            example.contexts = contexts[example.id]
    missing = sorted(ids - set(responses))
    unknown = sorted(set(responses) - ids)
    if missing:
        dataset.warnings.append(f"{path}: no response for {len(missing)} question id(s): {_ids(missing)}")
    if unknown:
        dataset.warnings.append(f"{path}: {len(unknown)} response id(s) match no question: {_ids(unknown)}")
