"""Which factscope label each output column of a classifier stands for, read from its label names.

A name is cut into words (``not_entailment`` -> ``not``, ``entailment``; ``NotEntailed`` -> ``not``, ``entailed``)
and a word counts only when it *begins* with a known stem, so ``unsupported`` never reads as ``supported``:

- ``entail…``, ``support…``, ``consistent…`` -> Entailment;
- ``neutral…`` -> Neutral;
- ``contradict…``, ``refute…`` -> Contradiction;
- a negated Entailment word (preceded by ``not`` / ``non`` / ``no``, or prefixed ``un`` / ``non`` / ``in``, as in
  ``unsupported``, ``non-entailment``, ``inconsistent``) -> Neutral: "not entailed" says nothing of a contradiction.

A map that cannot be right is refused with a ConfigError naming ``label_order``: a name with no known word
(``LABEL_0``), a negated Contradiction word, two columns read as the same label, or no column for Entailment or for
"not entailed".
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from factscope.core.errors import ConfigError
from factscope.core.schema import Label

_STEMS: tuple[tuple[str, Label], ...] = (
    ("entail", Label.ENTAILMENT),
    ("support", Label.ENTAILMENT),
    ("consistent", Label.ENTAILMENT),
    ("neutral", Label.NEUTRAL),
    ("contradict", Label.CONTRADICTION),
    ("refute", Label.CONTRADICTION),
)
_NEGATION_WORDS = ("not", "non", "no")
_NEGATION_PREFIXES = ("non", "un", "in")
_HINT = "pass `label_order` with one name per output column, e.g. `label_order='not_entailment,entailment'`"


def name_words(name: str) -> list[str]:
    """The lower-case words of a label name: split at camel case, non-letters and digits."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)
    return [word for word in re.split(r"[^a-z]+", spaced.lower()) if word]


def read_label_name(name: str) -> Label | None:
    """The label a column name stands for, or None when it has no known word (or a negated Contradiction)."""
    negated = False
    for word in name_words(name):
        if word in _NEGATION_WORDS:
            negated = True
            continue
        found = _stem_label(word)
        if found is None:
            for prefix in _NEGATION_PREFIXES:
                if word.startswith(prefix) and (found := _stem_label(word[len(prefix) :])) is not None:
                    negated = True
                    break
        if found is None:
            continue
        if not negated:
            return found
        return Label.NEUTRAL if found is Label.ENTAILMENT else None
    return None


def _stem_label(word: str) -> Label | None:
    return next((label for stem, label in _STEMS if word.startswith(stem)), None)


def label_columns(id2label: Mapping[int, str], label_order: Sequence[str] | None = None) -> dict[int, Label]:
    """Map a classifier's output columns to factscope labels, from its config's ``id2label`` or from
    ``label_order`` (one name per column, in column order); a map that cannot be right raises ConfigError."""
    names = list(label_order) if label_order else [id2label[i] for i in sorted(id2label)]
    source = "`label_order`" if label_order else "the model's config"
    if label_order and len(names) != len(id2label):
        raise ConfigError(
            f"`label_order` names {len(names)} columns but the model has {len(id2label)} outputs"
        )
    mapping: dict[int, Label] = {}
    for column, name in enumerate(names):
        label = read_label_name(name)
        if label is None:
            raise ConfigError(
                f"cannot tell which label column {column} ('{name}', from {source}) is; {_HINT}"
            )
        repeated = next((other for other, seen in mapping.items() if seen is label), None)
        if repeated is not None:
            raise ConfigError(
                f"columns {repeated} ('{names[repeated]}') and {column} ('{name}') both read as {label.value} "
                f"(from {source}); {_HINT}"
            )
        mapping[column] = label
    if Label.ENTAILMENT not in mapping.values():
        raise ConfigError(f"no column of {names} (from {source}) reads as entailment; {_HINT}")
    if len(mapping) < 2:
        raise ConfigError(f"the labels {names} (from {source}) have no way to say 'not entailed'; {_HINT}")
    return mapping
