"""Labelled (premise, hypothesis) pairs for training a checker: loading with located errors, and a fixed-seed split."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from factscope.core.errors import InputError
from factscope.core.io import read_json_records

THREE_WAY = ("entailment", "neutral", "contradiction")
"""Class names of a 3-way checker, in factscope's probability order (schema.LABELS)."""

TWO_WAY = ("entailment", "not_entailment")
"""Class names of a 2-way checker."""

_LABEL_NAMES = {
    "entailment": "entailment",
    "entailed": "entailment",
    "neutral": "neutral",
    "contradiction": "contradiction",
    "contradicted": "contradiction",
    "not_entailment": "not_entailment",
    "not entailment": "not_entailment",
    "non-entailment": "not_entailment",
    "non_entailment": "not_entailment",
    "not_entailed": "not_entailment",
}
_LABEL_NUMBERS = {0: "entailment", 1: "neutral", 2: "contradiction"}


@dataclass(frozen=True)
class NLIExample:
    """One labelled pair; ``label`` indexes the dataset's ``classes``."""

    premise: str
    hypothesis: str
    label: int
    line: int


@dataclass
class NLIDataset:
    """The usable pairs of one file, its class names, and the records that were skipped (with reasons)."""

    path: Path
    examples: list[NLIExample]
    classes: tuple[str, ...]
    skipped: list[InputError] = field(default_factory=list)

    @property
    def labels(self) -> np.ndarray:
        """The label index of every example."""
        return np.array([example.label for example in self.examples], dtype=np.int64)


@dataclass(frozen=True)
class NLISplit:
    """A fixed-seed stratified split: fit on train, tune on validation, report on test (held out)."""

    train: list[NLIExample]
    validation: list[NLIExample]
    test: list[NLIExample]
    seed: int


def parse_label(value: object) -> str:
    """A class name from a record's label: a name (any case) or 0/1/2 for entailment/neutral/contradiction."""
    if isinstance(value, int) and not isinstance(value, bool) and value in _LABEL_NUMBERS:
        return _LABEL_NUMBERS[value]
    if isinstance(value, str):
        key = value.strip().strip(".").strip().lower()
        if key in _LABEL_NAMES:
            return _LABEL_NAMES[key]
    raise ValueError(
        f"unknown label {value!r}; use entailment / neutral / contradiction (or 0 / 1 / 2), "
        "or entailment / not_entailment for a 2-way checker"
    )


def load_nli_jsonl(path: str | Path, limit: int | None = None) -> NLIDataset:
    """Read ``{premise, hypothesis, label}`` records (JSONL or a JSON list).

    Broken lines and records with a missing field or unknown label are skipped and listed in
    ``skipped`` with file, line and field. The file is 3-way when it has a neutral or contradiction label,
    2-way when it has not_entailment; mixing the two raises InputError. ``limit`` keeps the first N usable pairs.
    """
    path = Path(path)
    rows: list[tuple[str, str, str, int]] = []
    skipped: list[InputError] = []
    for line, record in read_json_records(path):
        if isinstance(record, InputError):
            skipped.append(record)
            continue
        try:
            premise = _text_field(record, "premise", path, line)
            hypothesis = _text_field(record, "hypothesis", path, line)
            if "label" not in record:
                raise InputError("missing field", path=path, line=line, field="label")
            try:
                name = parse_label(record["label"])
            except ValueError as error:
                raise InputError(str(error), path=path, line=line, field="label") from None
        except InputError as error:
            skipped.append(error)
            continue
        rows.append((premise, hypothesis, name, line))
        if limit is not None and len(rows) >= limit:
            break
    names = {row[2] for row in rows}
    if not rows:
        raise InputError("no usable {premise, hypothesis, label} records", path=path)
    if "not_entailment" in names and names & {"neutral", "contradiction"}:
        raise InputError(
            "mixes 2-way (not_entailment) and 3-way (neutral / contradiction) labels; use one scheme per file",
            path=path,
        )
    classes = TWO_WAY if "not_entailment" in names else THREE_WAY
    examples = [NLIExample(p, h, classes.index(name), line) for p, h, name, line in rows]
    return NLIDataset(path=path, examples=examples, classes=classes, skipped=skipped)


def _text_field(record: dict, name: str, path: Path, line: int) -> str:
    """A non-empty string field of a record, or InputError naming it."""
    if name not in record:
        raise InputError("missing field", path=path, line=line, field=name)
    value = record[name]
    if not isinstance(value, str) or not value.strip():
        raise InputError("expected a non-empty string", path=path, line=line, field=name)
    return value


def split_dataset(
    dataset: NLIDataset, seed: int = 13, validation: float = 0.1, test: float = 0.15
) -> NLISplit:
    """Stratified split with a fixed seed: within each class, shuffle, then cut test, validation, train.

    Every class with at least 3 examples gets at least one test and one validation pair.
    """
    if not 0 < validation < 1 or not 0 < test < 1 or validation + test >= 1:
        raise ValueError("validation and test fractions must be in (0, 1) and sum to less than 1")
    rng = np.random.default_rng(seed)
    parts: dict[str, list[int]] = {"train": [], "validation": [], "test": []}
    labels = dataset.labels
    for label in range(len(dataset.classes)):
        indices = np.flatnonzero(labels == label)
        rng.shuffle(indices)
        n = len(indices)
        n_test = max(1, round(n * test)) if n >= 3 else 0
        n_validation = max(1, round(n * validation)) if n >= 3 else 0
        parts["test"].extend(indices[:n_test].tolist())
        parts["validation"].extend(indices[n_test : n_test + n_validation].tolist())
        parts["train"].extend(indices[n_test + n_validation :].tolist())
    pick = {name: [dataset.examples[i] for i in sorted(idx)] for name, idx in parts.items()}
    return NLISplit(train=pick["train"], validation=pick["validation"], test=pick["test"], seed=seed)


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a file's bytes, recorded in a checker's manifest."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
