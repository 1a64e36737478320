"""Assertions for RAG regression tests, and the pytest plugin that serves them.

``assert_grounded`` extracts the claims of a response and checks them against references; ``assert_claims_supported``
checks claims given as a list; ``assert_facts_grounded`` scores a response's atomic facts against the contexts it
was given (Truly Ground). Each fails with a table of the claims or facts that failed (label, probabilities,
evidence; for ``assert_grounded`` also the words of the response each claim states, and the response with its
unsupported or contradicted words marked ``[[like this]]``) and otherwise returns what it checked. Components named by spec are built once per process.

Installing factscope registers this module as a pytest plugin (entry point ``pytest11``): it adds the session
fixture ``factscope_checker`` and the options ``--factscope-checker SPEC`` (default ``embedded``) and
``--factscope-min-confidence P`` (the checker's own ``min_confidence``: a label of lower probability becomes
Neutral).
"""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from factscope.checkers.base import Checker
    from factscope.claims.base import Extractor
    from factscope.core.schema import Verdict
    from factscope.grounding.presence import PresenceModel
    from factscope.grounding.task import FactJudgement, GroundResult
    from factscope.refchecker.task import CheckResult

__all__ = ["assert_claims_supported", "assert_facts_grounded", "assert_grounded", "factscope_checker"]


@functools.cache
def _checker(spec: str, min_confidence: float = 0.0) -> Checker:
    from factscope.checkers.registry import make_checker

    return make_checker(spec, min_confidence=min_confidence)


@functools.cache
def _extractor(spec: str) -> Extractor:
    from factscope.claims.registry import make_extractor

    return make_extractor(spec)


@functools.cache
def _presence(spec: str) -> PresenceModel:
    from factscope.grounding.presence import make_presence

    return make_presence(spec)


def assert_grounded(
    response: str,
    references: str | Sequence[str],
    *,
    checker: str | Checker = "embedded",
    extractor: str | Extractor = "rules",
    question: str | None = None,
    min_supported: float = 1.0,
    allow_contradiction: bool = False,
    min_confidence: float = 0.0,
) -> CheckResult:
    """Fail unless the claims extracted from ``response`` are supported by ``references`` (RefChecker's check).

    A claim counts as supported when its label is Entailment with a probability of at least ``min_confidence``
    (a verdict without probabilities, from an LLM checker, meets only ``min_confidence=0``). The test fails when
    the share of supported claims is under ``min_supported``, when a claim is contradicted (unless
    ``allow_contradiction``), or when the response has no claim to check. Returns the record's check result.
    """
    __tracebackhide__ = True
    import factscope

    run = factscope.check(
        [{"id": "response", "response": response, "references": _listed(references), "question": question}],
        extractor=_extractor(extractor) if isinstance(extractor, str) else extractor,
        checker=_checker(checker) if isinstance(checker, str) else checker,
    )
    result = run.results[0]
    if result.extraction_failed:
        pytest.fail(f"claim extraction failed: {result.extraction_error}", pytrace=False)
    _judge(
        [(claim.claim.text, claim.verdict, " | ".join(s.text for s in claim.claim.spans)) for claim in result.claims],
        min_supported=min_supported,
        allow_contradiction=allow_contradiction,
        min_confidence=min_confidence,
        marked=_marked(result),
    )
    return result


def assert_claims_supported(
    claims: Sequence[str],
    references: str | Sequence[str],
    *,
    checker: str | Checker = "embedded",
    question: str | None = None,
    min_supported: float = 1.0,
    allow_contradiction: bool = False,
    min_confidence: float = 0.0,
) -> list[Verdict]:
    """``assert_grounded`` for claims given as a list (no extraction); returns one verdict per claim."""
    __tracebackhide__ = True
    from factscope.checkers.base import CheckTask

    passages = tuple(_listed(references))
    model = _checker(checker) if isinstance(checker, str) else checker
    verdicts = model.check([CheckTask(claim=claim, references=passages, question=question) for claim in claims])
    _judge(
        [(claim, verdict, "") for claim, verdict in zip(claims, verdicts, strict=True)],
        min_supported=min_supported,
        allow_contradiction=allow_contradiction,
        min_confidence=min_confidence,
    )
    return verdicts


def assert_facts_grounded(
    response: str,
    contexts: str | Sequence[str],
    *,
    gold_facts: Sequence[str] = (),
    extractor: str | Extractor = "facts",
    presence: str | PresenceModel | None = None,
    min_precision: float = 1.0,
    min_recall: float = 0.0,
) -> GroundResult:
    """Fail unless the atomic facts of ``response`` are found in ``contexts`` (Truly Ground's precision at least
    ``min_precision``) and, with ``gold_facts``, the facts the answer needs are found in the response (recall at
    least ``min_recall``). ``presence`` is a presence spec or model (default: ``ground``'s). Returns the result.
    """
    __tracebackhide__ = True
    import factscope
    from factscope.grounding.data import GroundExample
    from factscope.grounding.spec import DEFAULT_PRESENCE

    example = GroundExample(
        id="response", question="", contexts=_listed(contexts), gold_facts=list(gold_facts), response=response
    )
    spec = presence if presence is not None else DEFAULT_PRESENCE
    run = factscope.ground(
        [example],
        extractor=_extractor(extractor) if isinstance(extractor, str) else extractor,
        presence=_presence(spec) if isinstance(spec, str) else spec,
    )
    result = run.results[0]
    if result.failed:
        pytest.fail(f"grounding failed: {result.error}", pytrace=False)
    problems = []
    if not result.response_facts:
        problems.append("the response has no fact to check")
    elif result.precision is not None and result.precision < min_precision:
        problems.append(f"precision {result.precision:.2f} is under {min_precision:.2f}")
    if gold_facts and (result.recall or 0.0) < min_recall:
        problems.append(f"recall {result.recall or 0.0:.2f} is under {min_recall:.2f}")
    if problems:
        missing = [("response", j) for j in result.response_facts if not j.present] + [
            ("gold", j) for j in result.gold_facts if not j.present
        ]
        pytest.fail("; ".join(problems) + "\n" + _facts_table(missing), pytrace=False)
    return result


@pytest.fixture(scope="session")
def factscope_checker(pytestconfig: pytest.Config) -> Checker:
    """The checker named by ``--factscope-checker`` (default ``embedded``), loaded once for the test session."""
    return _checker(
        pytestconfig.getoption("factscope_checker"), float(pytestconfig.getoption("factscope_min_confidence"))
    )


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's command-line options."""
    group = parser.getgroup("factscope", "factscope grounding assertions")
    group.addoption("--factscope-checker", default="embedded", help="checker spec of factscope_checker")
    group.addoption(
        "--factscope-min-confidence",
        default=0.0,
        type=float,
        help="labels of lower probability become Neutral in factscope_checker",
    )


def _listed(texts: str | Sequence[str]) -> list[str]:
    return [texts] if isinstance(texts, str) else list(texts)


def _supported(verdict: Verdict, min_confidence: float) -> bool:
    from factscope.core.schema import Label

    if verdict.label is not Label.ENTAILMENT:
        return False
    probability = verdict.prob(Label.ENTAILMENT)
    return min_confidence <= 0.0 or (probability is not None and probability >= min_confidence)


def _marked(result: CheckResult) -> str:
    """The response with the words its span view labels Neutral or Contradiction between [[ and ]]."""
    pieces = []
    for span in result.span_view():
        hallucinated = span.label is not None and span.label.value != "Entailment" and span.text.strip()
        pieces.append(f"[[{span.text}]]" if hallucinated else span.text)
    return "".join(pieces)


def _judge(
    checked: list[tuple[str, Verdict, str]],
    *,
    min_supported: float,
    allow_contradiction: bool,
    min_confidence: float,
    marked: str | None = None,
) -> None:
    """Fail the test, with a table of the failed claims (and the response with its unsupported words marked, when
    given), when the verdicts miss the thresholds."""
    __tracebackhide__ = True
    from factscope.core.schema import Label

    if not checked:
        pytest.fail("the response has no claim to check", pytrace=False)
    failed = [(claim, verdict, words) for claim, verdict, words in checked if not _supported(verdict, min_confidence)]
    share = 1 - len(failed) / len(checked)
    contradicted = sum(verdict.label is Label.CONTRADICTION for _, verdict, _ in failed)
    problems = []
    if share < min_supported:
        problems.append(f"{share:.0%} of {len(checked)} claims supported, {min_supported:.0%} needed")
    if contradicted and not allow_contradiction:
        problems.append(f"{contradicted} claim{'s' if contradicted > 1 else ''} contradicted")
    if problems:
        shown = f"\nresponse: {marked}" if marked is not None else ""
        pytest.fail("; ".join(problems) + "\n" + _claims_table(failed) + shown, pytrace=False)


def _claims_table(failed: list[tuple[str, Verdict, str]]) -> str:
    from factscope.core.schema import LABELS

    rows = []
    spans = any(words and words.rstrip(".") != claim.rstrip(".") for claim, _, words in failed)
    for claim, verdict, words in failed:
        label = f"failed: {verdict.error}" if verdict.failed else (verdict.label.value if verdict.label else "-")
        probs = [f"{verdict.prob(option):.2f}" if verdict.probs is not None else "-" for option in LABELS]
        rows.append([claim, *([words] if spans else []), label, *probs, verdict.evidence or ""])
    columns = ["claim", *(["in the response"] if spans else []), "label", "P(entail)", "P(neutral)", "P(contra)"]
    return _text_table([*columns, "evidence"], rows)


def _facts_table(missing: list[tuple[str, FactJudgement]]) -> str:
    rows = [
        [judgement.fact, kind, "-" if judgement.score is None else f"{judgement.score:.2f}",
         "unjudged" if judgement.present is None else "not found"]
        for kind, judgement in missing
    ]
    return _text_table(["fact", "from", "score", "verdict"], rows)


def _text_table(columns: list[str], rows: list[list[str]]) -> str:
    """Plain text (no colour), wide enough for a CI log."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(*columns, box=box.SIMPLE_HEAD, show_edge=False)
    for row in rows:
        table.add_row(*row)
    out = io.StringIO()
    Console(file=out, width=140, color_system=None, force_terminal=False).print(table)
    return out.getvalue().rstrip()
