"""What a scoring run of attributed answers is made of and set to (``AttributeSpec``): the one place its options
and their defaults are declared, which the Python API, the command line and the server take theirs from. Light to
import: the types of ready components are named for the type checker only."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from factscope.checkers.defaults import DEFAULT_CHECKER
from factscope.checkers.options import CheckedWithOptions, CheckerOptions
from factscope.core.errors import ConfigError
from factscope.core.options.metadata import about

if TYPE_CHECKING:
    from factscope.checkers.base import Checker
    from factscope.metrics.attribution import Matching
    from factscope.metrics.ratios import EmptyPolicy

ATTRIBUTE_BATCH_SIZE = 32
"""The default batch of a run: answers per checking batch."""

DEFAULT_HYPOTHESIS = "{relation}: {value}"
"""The NLI hypothesis of a citation or triple, as KaLMA A.3 writes it; ``{name}`` and ``{qid}`` are also
available, e.g. ``"{name} {relation} {value}"`` for NLI models that need a full sentence."""


def check_template(template: str) -> None:
    """Raise ConfigError when the hypothesis template uses fields other than qid, name, relation, value."""
    try:
        template.format(qid="Q1", name="n", relation="r", value="v")
    except (KeyError, IndexError, ValueError) as error:
        raise ConfigError(f"bad `template` {template!r} ({error}); use the fields "
                          "{qid}, {name}, {relation} and {value}") from None


@dataclass(frozen=True)
class AttributeSpec(CheckedWithOptions):
    """The components and settings of a scoring run.

    ``checker`` decides alignment and [NA]: a spec string ('embedded', 'nli:MODEL', 'path:DIR', 'similarity',
    'llm') or a ready Checker; ``checker_settings`` (a CheckerOptions, or a mapping of its fields) go whole to
    ``make_checker`` with a spec. With ``geval`` the LLM judges text quality (G-Eval; ``weighted``: also the probability-weighted score). ``template`` shapes the NLI
    hypothesis of a citation, ``empty_answers`` says how answers with no citations count in macro precision and
    ``matching`` how citations are read (see ``factscope.kalma.task.attribution_pipeline``).
    """

    checker: str | Checker = field(default=DEFAULT_CHECKER, metadata=about(
        "NLI checker for alignment and \\[NA]: embedded, nli:MODEL, path:DIR, similarity, llm", option_type=str,
        recorded_by="checker",
    ))
    checker_settings: CheckerOptions = field(default_factory=CheckerOptions)
    geval: bool = field(default=False, metadata=about(
        "also score text quality with an LLM judge (G-Eval)", flag="--geval/--no-geval", recorded_by="judge"
    ))
    weighted: bool = field(default=False, metadata=about(
        "also the probability-weighted G-Eval score from the completions endpoint's log-probabilities",
        flag="--geval-weighted/--no-geval-weighted",
    ))
    template: str = field(default=DEFAULT_HYPOTHESIS, metadata=about(
        "NLI hypothesis of a citation; fields {relation} {value} {name} {qid}; the paper's form is the default",
        flag="--hypothesis", check=check_template, per_request=True,
    ))
    empty_answers: EmptyPolicy = field(default="skip", metadata=about(
        "answers with no citations in macro precision", per_request=True, changes_results=False
    ))
    matching: Matching = field(default="normalized", metadata=about(
        "how citations are read and compared with the graph and the minimum set: normalized (case, quotes, spaces "
        "and a qid: prefix tolerated) or paper (exact strings, as KaLMA's released scoring; a repeated citation "
        "lowers precision)",
        per_request=True,
    ))
