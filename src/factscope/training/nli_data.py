"""Labelled (premise, hypothesis) pairs for training a checker: loading with located errors, mixing sets, and the
split by group that `factscope eval-checker --part` uses too."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from factscope.core.errors import InputError
from factscope.core.files.input_files import read_json_records
from factscope.evaluation.splits import part_of

THREE_WAY = ("entailment", "neutral", "contradiction")
"""Class names of a 3-way checker, in factscope's probability order (schema.LABELS)."""

TWO_WAY = ("entailment", "not_entailment")
"""Class names of a 2-way checker."""

NOT_ENTAILMENT = 3
"""Label index of a 2-way set's ``not_entailment`` pair inside a 3-way mix: trained on P(neutral) + P(contradiction),
never guessed as one of the two."""

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
    """One labelled pair; ``label`` indexes the dataset's ``classes`` (or is :data:`NOT_ENTAILMENT` in a mix).

    ``source`` names the set the pair came from (its ``dataset`` field, else the file's stem) and ``group`` the
    unit that the split keeps together (its ``group`` field, else its ``id``, else its line number). ``teacher``
    holds a teacher checker's class probabilities for the pair when training distils one
    (:mod:`factscope.training.distil`).
    """

    premise: str
    hypothesis: str
    label: int
    line: int
    source: str = ""
    group: str = ""
    teacher: tuple[float, ...] | None = None


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
    """Fit on train, tune on validation, report on test (held out)."""

    train: list[NLIExample]
    validation: list[NLIExample]
    test: list[NLIExample]


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
    rows: list[tuple[str, str, str, int, str, str]] = []
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
        source = record.get("dataset") if isinstance(record.get("dataset"), str) else path.stem
        group = record.get("group", record.get("id", line))
        rows.append((premise, hypothesis, name, line, str(source), str(group)))
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
    examples = [
        NLIExample(p, h, classes.index(name), line, source, group) for p, h, name, line, source, group in rows
    ]
    return NLIDataset(path=path, examples=examples, classes=classes, skipped=skipped)


def _text_field(record: dict, name: str, path: Path, line: int) -> str:
    """A non-empty string field of a record, or InputError naming it."""
    if name not in record:
        raise InputError("missing field", path=path, line=line, field=name)
    value = record[name]
    if not isinstance(value, str) or not value.strip():
        raise InputError("expected a non-empty string", path=path, line=line, field=name)
    return value


def load_training_mix(paths: list[Path], limit: int | None = None) -> tuple[list[NLIDataset], tuple[str, ...]]:
    """Read several labelled files and put their pairs on one label scheme.

    The mix is 3-way when any file is: a 2-way file's ``not_entailment`` pairs then get :data:`NOT_ENTAILMENT`.
    It is 2-way only when every file is. ``limit`` applies per file.
    """
    datasets = [load_nli_jsonl(path, limit=limit) for path in paths]
    if len(datasets) == 1 or all(d.classes == TWO_WAY for d in datasets):
        return datasets, datasets[0].classes
    for dataset in datasets:
        if dataset.classes == TWO_WAY:
            dataset.examples = [
                replace(e, label=NOT_ENTAILMENT) if e.label == 1 else e for e in dataset.examples
            ]
            dataset.classes = THREE_WAY
    return datasets, THREE_WAY


def split_by_group(examples: list[NLIExample]) -> NLISplit:
    """Train / validation / test by :func:`factscope.evaluation.splits.part_of` of each pair's group.

    Every pair of a group lands in one part, and `factscope eval-checker --part` picks the same parts, so a
    checker is never evaluated on a claim or document it was trained on.
    """
    parts: dict[str, list[NLIExample]] = {"train": [], "validation": [], "test": []}
    for example in examples:
        parts[part_of(example.group)].append(example)
    return NLISplit(train=parts["train"], validation=parts["validation"], test=parts["test"])


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a file's bytes, recorded in a checker's manifest."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
