"""A training run's staging folder: kept for `--resume` when the settings match, else started anew."""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import asdict, replace
from pathlib import Path

from factscope.checkers.embedded import directory_digest
from factscope.core.errors import ConfigError
from factscope.training.distil import TEACHER_FILE
from factscope.training.nli_data import NLIExample, NLISplit, file_sha256
from factscope.training.options import TrainOptions

SETTINGS_FILE = "run_settings.json"
"""The staging folder's record of the settings and data its checkpoints were trained with."""

UNCHECKED = ("resume", "threads", "out")
"""Options that may differ between a run and its resumption."""


def staging_folder(out: Path) -> Path:
    """Where a run writes before its result replaces ``out``: ``OUT.partial`` beside it, checkpoints included."""
    return out.with_name(out.name + ".partial")


def run_settings(options: TrainOptions) -> dict:
    """The options that decide a run's result, with the sha256 of each data file."""
    settings = {key: value for key, value in asdict(options).items() if key not in UNCHECKED}
    settings["data"] = [{"path": str(path), "sha256": file_sha256(path)} for path in options.data]
    if options.teacher is not None:
        settings["teacher_contents"] = directory_digest(options.teacher)
    return json.loads(json.dumps(settings, default=str))


def prepare_staging(staging: Path, options: TrainOptions) -> None:
    """Empty ``staging`` and record the run's settings; with ``options.resume``, keep it when its settings match.

    A staging folder written with other settings or data is never resumed: the error names what differs.
    """
    settings = run_settings(options)
    recorded = staging / SETTINGS_FILE
    if options.resume and recorded.exists():
        before = json.loads(recorded.read_text(encoding="utf-8"))
        if before == settings:
            return
        differ = sorted(key for key in set(before) | set(settings) if before.get(key) != settings.get(key))
        raise ConfigError(
            f"the checkpoint in {staging} was written with other settings ({', '.join(f'`{key}`' for key in differ)}); "
            "rerun with the same settings to resume, or without `resume` to start over"
        )
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    recorded.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")


def finish_staging(staging: Path) -> None:
    """Remove the checkpoints, the settings record and the teacher's cached probabilities from a finished run's
    folder: a checker folder holds the checker only."""
    for checkpoint in staging.glob("checkpoint_*.pt"):
        checkpoint.unlink()
    (staging / SETTINGS_FILE).unlink(missing_ok=True)
    (staging / TEACHER_FILE).unlink(missing_ok=True)


def cap_per_set(split: NLISplit, limit: int | None, seed: int) -> NLISplit:
    """At most ``limit`` train pairs of each set (a seeded sample, in file order), and a quarter of that of its
    validation and test pairs; the split unchanged when ``limit`` is None."""
    if limit is None:
        return split
    held_out = max(1, limit // 4)
    return replace(
        split,
        train=_sample_per_set(split.train, limit, seed),
        validation=_sample_per_set(split.validation, held_out, seed + 1),
        test=_sample_per_set(split.test, held_out, seed + 2),
    )


def _sample_per_set(examples: list[NLIExample], limit: int, seed: int) -> list[NLIExample]:
    by_set: dict[str, list[int]] = {}
    for i, example in enumerate(examples):
        by_set.setdefault(example.source, []).append(i)
    rng = random.Random(seed)
    kept = sorted(i for positions in by_set.values() for i in (positions if len(positions) <= limit else rng.sample(positions, limit)))
    return [examples[i] for i in kept]
