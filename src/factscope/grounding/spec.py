"""What a grounding run is made of and set to (``GroundSpec``): the one place its options and their defaults are
declared, which the Python API, the command line and the server take theirs from. Light to import: the types of
ready components are named for the type checker only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from factscope.checkers.defaults import DEFAULT_MODE
from factscope.core.errors import ConfigError
from factscope.core.options.metadata import about
from factscope.core.options.rules import CountsWhen
from factscope.core.options.validation import ValidatedOptions

if TYPE_CHECKING:
    from factscope.claims.base import Extractor
    from factscope.core.files.manifest import SettingValue
    from factscope.grounding.presence import PresenceModel
    from factscope.grounding.presence_rounds import PresenceMode
    from factscope.metrics.ratios import EmptyPolicy

GROUND_BATCH_SIZE = 16
"""The default batch of a run: records per decomposition / presence batch."""

DEFAULT_FACT_EXTRACTOR = "facts"
"""The atomic-fact extractor of a grounding run that names none: clause facts, offline."""

DEFAULT_PRESENCE = "bi-nli"
"""The presence model of `factscope ground` when none is named: the one that best told faithful from counterfactual
facts on held-out evaluation documents (see the ground guide, "The default presence model")."""


def extractor_catalogue() -> str:
    """The fact extractors a spec string may name, plugins included (``EXTRACTORS``' catalogue)."""
    from factscope.claims.registry import EXTRACTORS

    return EXTRACTORS.catalogue()


def presence_catalogue() -> str:
    """The presence models a spec string may name, plugins included (``PRESENCE_MODELS``' catalogue)."""
    from factscope.grounding.presence import PRESENCE_MODELS

    return PRESENCE_MODELS.catalogue()


def factor_names(value: str | None) -> tuple[str, ...] | None:
    """The comma-separated metadata fields ``value`` as a tuple (None when not given)."""
    return tuple(name.strip() for name in value.split(",") if name.strip()) if value else None


WINDOWED = CountsWhen(lambda values: values["window"] != 0, "with sentence windows (`window` not 0)")
"""A setting of the presence windows: none without them."""

UP_TO_WINDOW = CountsWhen(
    lambda values: values["min_window"] is None
    or values["window"] is None
    or values["min_window"] <= values["window"],
    "up to `window` (the widest window)",
)
"""The narrowest window is not wider than the widest."""


SCORE_RANGES: dict[str, tuple[float, float, str]] = {
    "bi": (-1.0, 1.0, "a cosine similarity"),
    "nli": (0.0, 1.0, "an entailment probability"),
    "bi-nli": (0.0, 1.0, "an entailment probability"),
    "llm": (0.0, 1.0, "a judgement scored 0 or 1"),
}
"""The presence models (by registry name) whose scores have a fixed range, with what the score is; the
scores of the others (``cross``: a cross-encoder's raw relevance; plugins) are unbounded, so any finite
threshold fits them. The help text of ``GroundSpec.threshold`` states these ranges."""


def check_threshold(presence: str, threshold: float) -> None:
    """Refuse (ConfigError) a ``threshold`` outside the range of the scores of the presence model ``presence``
    names (``SCORE_RANGES``)."""
    name = presence.split(":", 1)[0]
    if name not in SCORE_RANGES:
        return
    low, high, score = SCORE_RANGES[name]
    if not low <= threshold <= high:
        raise ConfigError(
            f"`threshold={threshold:g}` is outside {low:g} to {high:g}, the range of `presence` {name}'s scores "
            f"({score})"
        )


@dataclass(frozen=True)
class GroundSpec(ValidatedOptions):
    """The components and settings of a grounding run.

    ``extractor``: the atomic facts of the responses, an extractor spec ('facts', the offline default; 'llm-facts';
    aliases 'spacy' and 'llm') or a ready Extractor. ``presence``: a presence spec ('bi-nli', 'bi', 'cross',
    'nli:embedded', 'llm', ...) or a ready model; ``threshold``, ``window``, ``stride``, ``min_window`` and ``mode``
    (exact, or fast: each fact against its most relevant windows only) go to ``make_presence`` with a spec. ``factors``: the metadata fields of the breakdowns (None: those of the paper's
    factors that the examples have). ``settings`` are further manifest settings (a supplied-facts file's);
    ``supplied_facts`` are served for their (question, response) pairs instead of extracted
    (``grounding.supplied_facts``).
    """

    extractor: str | Extractor = field(default=DEFAULT_FACT_EXTRACTOR, metadata=about(
        "atomic facts of the responses: facts (offline clause facts, the default; alias spacy), llm-facts (an LLM, "
        "Truly Ground style; alias llm), or any other extractor: ",
        catalogue=extractor_catalogue, option_type=str, recorded_by="extractor",
    ))
    presence: str | PresenceModel = field(default=DEFAULT_PRESENCE, metadata=about(
        "presence model M: ", catalogue=presence_catalogue, option_type=str, recorded_by="presence"
    ))
    threshold: float | None = field(default=None, metadata=about(
        "presence threshold (default: the model's, see `presence`): a finite number; -1 to 1 with `presence` bi "
        "(cosine), 0 to 1 with nli, bi-nli and llm (probabilities), any with cross (raw relevance scores)",
        recorded_by="presence",
    ))
    window: int | None = field(default=None, metadata=about(
        "sentences per window of a long text; 0 = whole text (default 3; LLM judge: whole)", min=0,
        recorded_by="presence",
    ))
    stride: int = field(default=1, metadata=about(
        "sentences between window starts", min=1, recorded_by="presence", counts_when=WINDOWED
    ))
    min_window: int | None = field(default=None, metadata=about(
        "also score narrower windows, of every width from this to `window` (default: `window` only)", min=1,
        recorded_by="presence", counts_when=(WINDOWED, UP_TO_WINDOW),
    ))
    mode: PresenceMode = field(default=DEFAULT_MODE, metadata=about(
        "exact (every window of every source is scored) or fast (each fact only against its most relevant "
        "windows, by BM25, stopping at the first that reaches the threshold; decisions differ from exact only "
        "where an unscored window would have decided)",
        recorded_by="presence",
    ))
    factors: tuple[str, ...] | None = field(default=None, metadata=about(
        "comma-separated metadata fields to break results down by; a field no record has is an error (default: "
        "those of pop, has_multi, has_answer that the records have)",
        flag="--by", option_type=str | None, parse=factor_names, per_request=True, changes_results=False,
    ))
    no_response_facts: EmptyPolicy = field(default="zero", metadata=about(
        "precision of a response with no atomic facts", per_request=True
    ))
    no_gold_facts: EmptyPolicy = field(default="skip", metadata=about(
        "recall / F1 of a record with no gold facts", per_request=True
    ))
    settings: Mapping[str, SettingValue] = field(default_factory=dict)
    supplied_facts: Mapping[tuple[str | None, str], Sequence[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Refuse a ``threshold`` outside the range of the named presence model's scores (``check_threshold``)."""
        super().__post_init__()
        if isinstance(self.presence, str) and self.threshold is not None:
            check_threshold(self.presence, self.threshold)
