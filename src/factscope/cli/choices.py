"""The fixed choice sets of command-line options, as Enums (typer lists them in --help and rejects others)."""

from __future__ import annotations

from enum import Enum


class RetrieverName(str, Enum):
    """Passage retrievers over a user corpus."""

    bm25 = "bm25"
    dense = "dense"
    hybrid = "hybrid"


class LLMCheckMode(str, Enum):
    """How the LLM checker batches claims: all claims of a record in one call, or one call per claim."""

    joint = "joint"
    single = "single"


class EmptyPolicy(str, Enum):
    """What a ratio with an empty denominator counts as: left out of the average, or zero."""

    skip = "skip"
    zero = "zero"


class GoldPosition(str, Enum):
    """Where the gold contexts go among distractors."""

    end = "end"
    beginning = "beginning"
    middle = "middle"
    random = "random"


class AgreementStatistic(str, Enum):
    """Statistics a presence threshold can be calibrated for."""

    pearson = "pearson"
    accuracy = "accuracy"
    macro_f1 = "macro-f1"
    kappa = "kappa"


class RetrieveMode(str, Enum):
    """Where each KaLMA question's graph comes from."""

    none = "none"
    local = "local"
    wikidata = "wikidata"
