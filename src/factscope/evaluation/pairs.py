"""Labelled (premise, hypothesis) pair files: NLI-style records and LLM-AggreFact's rows, read with located errors.

Two record shapes are read, one per record (a file may mix them):

- ``premise`` / ``hypothesis`` / ``label``: the label a name in any case (entailment, neutral, contradiction,
  not_entailment) or 0 / 1 / 2 for entailment / neutral / contradiction;
- LLM-AggreFact's ``dataset`` / ``doc`` / ``claim`` / ``label``: the label 1 (supported: entailment) or 0
  (unsupported: not_entailment).

Both may carry ``id``, ``dataset`` and ``group``. Files are JSONL, a JSON list, CSV with a header row (``.csv``) or
Parquet (``.parquet``, LLM-AggreFact's published format; needs pyarrow, the ``tables`` extra), read by
``factscope.core.files.tables``; a Parquet record's line is its row number.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from factscope.core.errors import InputError
from factscope.core.fields import Identifier, NonBlank
from factscope.core.files.error_location import parse_located
from factscope.core.files.record_ids import RecordIds
from factscope.core.files.tables import read_records
from factscope.evaluation.splits import part_of

PairLabel = Literal["entailment", "neutral", "contradiction", "not_entailment"]
"""A pair's gold label; not_entailment is "neutral or contradiction", as two-way sets label it."""

THREE_WAY: tuple[PairLabel, PairLabel, PairLabel] = ("entailment", "neutral", "contradiction")
"""The 3-way classes, in factscope's probability order (``schema.LABELS``)."""

PartChoice = Literal["train", "validation", "test", "all"]
"""Which part of the split by group to keep (``factscope.evaluation.splits``), or all pairs."""

_NAMES: dict[str, PairLabel] = {
    "entailment": "entailment",
    "neutral": "neutral",
    "contradiction": "contradiction",
    "not_entailment": "not_entailment",
    "not entailment": "not_entailment",
    "not-entailment": "not_entailment",
}
_NUMBERS: dict[int, PairLabel] = {0: "entailment", 1: "neutral", 2: "contradiction"}
_SUPPORT: dict[int, PairLabel] = {1: "entailment", 0: "not_entailment"}


def _whole_number(value: Any) -> int | None:
    """A label given as a whole number, or as its digits (CSV cells are text)."""
    if type(value) is int:
        return value
    if type(value) is str and value.strip().isdigit():
        return int(value.strip())
    return None


def _nli_label(value: Any) -> PairLabel:
    number = _whole_number(value)
    if number in _NUMBERS:
        return _NUMBERS[number]
    if type(value) is str and value.strip().lower() in _NAMES:
        return _NAMES[value.strip().lower()]
    raise ValueError(
        f"{value!r} is not a pair label; use entailment / neutral / contradiction / not_entailment (any case) or "
        "0 / 1 / 2 for entailment / neutral / contradiction"
    )


def _support_label(value: Any) -> PairLabel:
    number = _whole_number(value)
    if number in _SUPPORT:
        return _SUPPORT[number]
    raise ValueError(f"{value!r} is not an LLM-AggreFact label; use 1 (supported) or 0 (unsupported)")


class _NLIRecord(BaseModel):
    premise: NonBlank
    hypothesis: NonBlank
    label: Annotated[PairLabel, BeforeValidator(_nli_label)]
    id: Identifier | None = None
    dataset: NonBlank | None = None
    group: Identifier | None = None


class _AggreFactRecord(_NLIRecord):
    """LLM-AggreFact's row: an NLI record whose premise is its ``doc``, whose hypothesis is its ``claim`` and whose
    label is 1 or 0."""

    premise: NonBlank = Field(validation_alias="doc")
    hypothesis: NonBlank = Field(validation_alias="claim")
    label: Annotated[PairLabel, BeforeValidator(_support_label)]


class PairFields(BaseModel):
    """What every gold-labelled (premise, hypothesis) pair holds: its id, texts and label, its dataset and the
    group a split by group (``part_of``) keeps in one part."""

    id: str
    premise: str
    hypothesis: str
    label: PairLabel
    dataset: str
    group: str


class LabelledPair(PairFields):
    """One gold-labelled (premise, hypothesis) pair and where it came from.

    ``dataset`` is the record's ``dataset`` field, else the file's stem; ``group`` is the record's ``group``,
    else its ``id``, else its line number: the split by group (``part_of``) keeps a group in one part.
    """

    model_config = ConfigDict(frozen=True)

    line: int

    @property
    def entailed(self) -> bool:
        """The binary gold decision: entailment vs not."""
        return self.label == "entailment"


def _pair(raw: dict[str, Any], *, path: Path, line: int) -> LabelledPair:
    """One record of either shape as a pair; a record of neither shape, or a bad field, raises InputError."""
    if "premise" in raw or "hypothesis" in raw:
        record = parse_located(_NLIRecord, raw, path=path, line=line)
    elif "doc" in raw or "claim" in raw:
        record = parse_located(_AggreFactRecord, raw, path=path, line=line)
    else:
        raise InputError(
            "missing; a pair has premise / hypothesis / label (or LLM-AggreFact's doc / claim / label)",
            path=path,
            line=line,
            field="premise",
        )
    return LabelledPair(
        id=record.id if record.id is not None else f"{path.stem}:{line}",
        premise=record.premise,
        hypothesis=record.hypothesis,
        label=record.label,
        dataset=record.dataset or path.stem,
        group=record.group if record.group is not None else record.id if record.id is not None else str(line),
        line=line,
    )


def read_pairs(path: str | Path, *, part: PartChoice = "all") -> tuple[list[LabelledPair], list[InputError]]:
    """The usable pairs of one file in ``part`` of the split by group, and the records skipped, each as a
    located InputError (bad JSON, a missing field, an unknown label such as BEGIN's ``generic``, a repeated id).

    A whole-file problem (missing, empty, not UTF-8) raises InputError.
    """
    path = Path(path)
    pairs: list[LabelledPair] = []
    skipped: list[InputError] = []
    ids = RecordIds(path)
    for line, raw in read_records(path):
        if isinstance(raw, InputError):
            skipped.append(raw)
            continue
        try:
            pair = _pair(raw, path=path, line=line)
        except InputError as error:
            skipped.append(error)
            continue
        if "id" in raw:
            repeated = ids.repeat(pair.id, line)
            if repeated is not None:
                skipped.append(repeated)
                continue
        if part == "all" or part_of(pair.group) == part:
            pairs.append(pair)
    return pairs, skipped


def sample_pairs(pairs: Sequence[LabelledPair], limit: int) -> list[LabelledPair]:
    """At most ``limit`` pairs of each dataset, in their order: those whose ids have the lowest SHA-256.

    The sample is the same on every run and spread over the whole file, unlike its first lines (files are
    often sorted by document or label).
    """
    by_dataset: dict[str, list[int]] = {}
    for index, pair in enumerate(pairs):
        by_dataset.setdefault(pair.dataset, []).append(index)
    kept: set[int] = set()
    for members in by_dataset.values():
        ranked = sorted(members, key=lambda index: hashlib.sha256(pairs[index].id.encode("utf-8")).digest())
        kept.update(ranked[:limit])
    return [pair for index, pair in enumerate(pairs) if index in kept]
