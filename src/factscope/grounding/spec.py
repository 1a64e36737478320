"""What a grounding run is made of and set to (``GroundSpec``): the one place its options and their defaults are
declared, which the Python API, the command line and the server take theirs from. Light to import: the types of
ready components are named for the type checker only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from factscope.claims.base import Extractor
    from factscope.core.manifest import SettingValue
    from factscope.grounding.presence import PresenceModel
    from factscope.grounding.presence_rounds import PresenceMode
    from factscope.metrics.ratios import EmptyPolicy

DEFAULT_FACT_EXTRACTOR = "facts"
"""The atomic-fact extractor of a grounding run that names none: clause facts, offline."""

DEFAULT_PRESENCE = "bi-nli"
"""The presence model of `factscope ground` when none is named: the one that best told faithful from counterfactual
facts on held-out evaluation documents (see the ground guide, "The default presence model")."""


@dataclass(frozen=True)
class GroundSpec:
    """The components and settings of a grounding run.

    ``extractor``: the atomic facts of the responses, an extractor spec ('facts', the offline default; 'llm-facts';
    aliases 'spacy' and 'llm') or a ready Extractor. ``presence``: a presence spec ('bi-nli', 'bi', 'cross',
    'nli:embedded', 'llm', ...) or a ready model; ``threshold``, ``window``, ``stride``, ``min_window`` and ``mode``
    (exact, or fast: each fact against its most relevant windows only) go to ``make_presence`` with a spec. ``factors``: the metadata fields of the breakdowns (None: those of the paper's
    factors that the examples have). ``settings`` are further manifest settings (a supplied-facts file's).
    """

    extractor: str | Extractor = DEFAULT_FACT_EXTRACTOR
    presence: str | PresenceModel = DEFAULT_PRESENCE
    threshold: float | None = None
    window: int | None = None
    stride: int = 1
    min_window: int | None = None
    mode: PresenceMode = "exact"
    factors: tuple[str, ...] | None = None
    no_response_facts: EmptyPolicy = "zero"
    no_gold_facts: EmptyPolicy = "skip"
    settings: Mapping[str, SettingValue] = field(default_factory=dict)
