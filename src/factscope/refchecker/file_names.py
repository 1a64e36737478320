"""What the names of RefChecker's data files say: the evaluated model and the context setting.

RefChecker names its human annotations ``<dataset>_<model>_answers.json`` (``nq_gpt4_answers.json``), its
collected responses ``<setting>_context_<model>_answers.json`` and its benchmark records ``<dataset>.json``, in
folders ``zero_context``, ``noisy_context`` and ``accurate_context``. Each dataset stands for one setting: NQ for
Zero Context, MS MARCO for Noisy Context, databricks-dolly-15k for Accurate Context. factscope also reads names
with the setting at the end, ``<model>_<setting>.json`` (``gpt4_zero.json``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from factscope.core.schema import ContextSetting

SETTING_WORDS: dict[str, ContextSetting] = {
    "zero_context": "zero",
    "noisy_context": "noisy",
    "accurate_context": "accurate",
    "zero": "zero",
    "noisy": "noisy",
    "accurate": "accurate",
    "nq": "zero",
    "msmarco": "noisy",
    "dolly": "accurate",
}
"""Words that name a context setting in a file name, RefChecker's dataset names among them (any case)."""

ANSWERS_SUFFIX = "_answers"
"""The ending of RefChecker's annotation and response files, dropped from the model name."""


@dataclass(frozen=True)
class NamedFile:
    """The model and the context setting (None when the name gives none) read from a file name."""

    model: str
    setting: ContextSetting | None


def read_file_name(path: str | Path) -> NamedFile:
    """The model and setting a file's name gives.

    A trailing ``_answers`` is dropped. Then a setting word at the start of the stem (followed by ``_``), or
    else at its end (after ``_``), gives the setting and is dropped; the rest is the model. A stem with no
    setting word takes its setting from the parent folder when that folder's name is a setting word. A stem
    that is a setting word alone gives the setting and stays the model name.
    """
    path = Path(path)
    stem = path.stem
    if stem.lower().endswith(ANSWERS_SUFFIX) and len(stem) > len(ANSWERS_SUFFIX):
        stem = stem[: -len(ANSWERS_SUFFIX)]
    lowered = stem.lower()
    if lowered in SETTING_WORDS:
        return NamedFile(model=stem, setting=SETTING_WORDS[lowered])
    for word in sorted(SETTING_WORDS, key=len, reverse=True):
        if lowered.startswith(word + "_") and len(stem) > len(word) + 1:
            return NamedFile(model=stem[len(word) + 1 :], setting=SETTING_WORDS[word])
    for word in sorted(SETTING_WORDS, key=len, reverse=True):
        if lowered.endswith("_" + word) and len(stem) > len(word) + 1:
            return NamedFile(model=stem[: -len(word) - 1], setting=SETTING_WORDS[word])
    return NamedFile(model=stem, setting=SETTING_WORDS.get(path.parent.name.lower()))
