"""An option's rule is declared with the option, in its field's metadata: the first rule that does not hold is the
one a front-end reports, and a rule that reads a parameter the front-end does not offer is passed over. The rules
of the specs and settings say what the command line has always refused."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import pytest

from factscope.checkers.checker_rules import FAST_MODE, MODEL_CHECKER, SIMILARITY_CHECKER, checker_name
from factscope.checkers.options import (
    LEXICAL_RELEVANCE,
    NARROWER_WINDOWS,
    WINDOWS_IN_SEGMENTS,
    CheckerOptions,
)
from factscope.conner.spec import KnowledgeSpec
from factscope.core.options.metadata import about
from factscope.core.options.rules import CountsWhen, broken_rule, field_rules
from factscope.grounding.spec import UP_TO_WINDOW, WINDOWED, GroundSpec
from factscope.refchecker.spec import CheckSpec, retrieves
from factscope.retrieve.retriever_names import names_search_service
from factscope.retrieve.web_settings import SEARCHING, WebSettings

POSITIVE = CountsWhen(lambda values: values["depth"] > 0, "with `depth` above 0")
SMALL = CountsWhen(lambda values: values["depth"] < 3, "with `depth` under 3")


@dataclass(frozen=True)
class Crawl:
    depth: int = 1
    plain: int = field(default=0, metadata=about("no rule"))
    one: int = field(default=0, metadata=about("one rule", counts_when=POSITIVE))
    two: int = field(default=0, metadata=about("two rules", counts_when=(POSITIVE, SMALL)))


def _rules(group: type, name: str) -> tuple[CountsWhen, ...]:
    return field_rules(next(item for item in fields(group) if item.name == name))


def test_a_field_declares_no_rule_one_or_several():
    assert _rules(Crawl, "plain") == ()
    assert _rules(Crawl, "one") == (POSITIVE,)
    assert _rules(Crawl, "two") == (POSITIVE, SMALL)


@pytest.mark.parametrize(("depth", "broken"), [(1, None), (2, None), (0, POSITIVE), (-4, POSITIVE), (3, SMALL)])
def test_the_first_rule_that_does_not_hold_is_the_broken_one(depth, broken):
    """depth 0 breaks `depth` above 0 (and not the second rule); depth 3 holds for the first, breaks the second."""
    assert broken_rule((POSITIVE, SMALL), {"depth": depth}) is broken


def test_a_rule_reading_a_parameter_not_offered_is_passed_over():
    assert broken_rule((POSITIVE, SMALL), {"width": 0}) is None
    assert broken_rule((CountsWhen(lambda values: values["width"] > 0, "with `width`"), SMALL), {"depth": 5}) is SMALL


def test_a_predicate_error_other_than_a_missing_parameter_is_not_hidden():
    with pytest.raises(TypeError):
        broken_rule((POSITIVE,), {"depth": None})


@pytest.mark.parametrize(("retriever", "searches"), [
    ("web:serper", True), ("web:brave", True), ("wikipedia", True), ("bm25", False), ("dense", False),
    ("hybrid", False), (None, False), (object(), True),
])
def test_a_search_service_is_a_retriever_name_that_no_corpus_retriever_has(retriever, searches):
    assert names_search_service(retriever) is searches


@pytest.mark.parametrize(("values", "counts"), [
    ({"corpus": "wiki.jsonl", "retriever": "dense"}, True),
    ({"corpus": None, "retriever": "wikipedia"}, True),
    ({"corpus": None, "retriever": "bm25"}, False),
    ({"corpus": None, "retriever": None}, False),
])
def test_check_retrieval_settings_count_with_a_corpus_or_a_search_service(values, counts):
    assert retrieves(values) is counts
    for name in ("retriever", "retrieve_k", "retrieve_for"):
        assert (broken_rule(_rules(CheckSpec, name), values) is None) is counts, name


def test_every_offered_web_setting_counts_only_with_a_search_service():
    offered = [item for item in fields(WebSettings) if "help" in item.metadata]
    assert offered and all(field_rules(item) == (SEARCHING,) for item in offered)
    assert broken_rule((SEARCHING,), {"retriever": "web:serper"}) is None
    assert broken_rule((SEARCHING,), {"retriever": "bm25"}) is SEARCHING


@pytest.mark.parametrize(("checker", "name", "model"), [
    ("nli:roberta-large-mnli", "nli", True), ("embedded", "embedded", True), ("llm", "llm", False),
    ("llm:minicheck", "llm", False), ("similarity", "similarity", False), (object(), "", False),
    ("cascade:embedded,llm", "cascade", True), ("cascade:similarity,llm", "cascade", False),
])
def test_a_model_checker_is_any_but_similarity_llm_and_a_ready_one(checker, name, model):
    """A ready checker is built already and takes no setting; a cascade counts when one of its checkers does."""
    assert checker_name({"checker": checker}) == name
    assert (broken_rule((MODEL_CHECKER,), {"checker": checker}) is None) is model


def test_the_checker_settings_rules():
    assert _rules(CheckerOptions, "min_confidence") == _rules(CheckerOptions, "threshold") == (MODEL_CHECKER,)
    assert _rules(CheckerOptions, "mode") == _rules(KnowledgeSpec, "mode") == (FAST_MODE,)
    assert broken_rule((FAST_MODE,), {"mode": "fast", "checker": "similarity"}) is FAST_MODE
    assert broken_rule((FAST_MODE,), {"mode": "exact", "checker": "similarity"}) is None
    assert broken_rule((SIMILARITY_CHECKER,), {"checker": "similarity"}) is None
    assert broken_rule((SIMILARITY_CHECKER,), {"checker": "embedded"}) is SIMILARITY_CHECKER
    assert broken_rule((LEXICAL_RELEVANCE,), {"relevance": "off"}) is LEXICAL_RELEVANCE


@pytest.mark.parametrize(("max_tokens", "window", "narrowest", "broken_window", "broken_narrowest"), [
    (200, 2, 1, None, None),
    (0, 2, None, WINDOWS_IN_SEGMENTS, NARROWER_WINDOWS[0]),
    (0, 0, 1, None, NARROWER_WINDOWS[0]),
    (200, 0, 1, None, NARROWER_WINDOWS[0]),
    (200, 2, 3, None, NARROWER_WINDOWS[1]),
    (200, None, 3, None, None),
])
def test_sentence_windows_count_within_segments(max_tokens, window, narrowest, broken_window, broken_narrowest):
    values = {"max_tokens": max_tokens, "window_sentences": window, "min_window_sentences": narrowest}
    assert broken_rule(_rules(CheckerOptions, "window_sentences"), values) is broken_window
    assert broken_rule(_rules(CheckerOptions, "min_window_sentences"), values) is broken_narrowest


@pytest.mark.parametrize(("window", "narrowest", "broken_stride", "broken_narrowest"), [
    (3, 2, None, None), (None, 2, None, None), (0, 1, WINDOWED, WINDOWED), (2, 3, None, UP_TO_WINDOW),
])
def test_presence_windows_count_with_windows(window, narrowest, broken_stride, broken_narrowest):
    values = {"window": window, "min_window": narrowest}
    assert broken_rule(_rules(GroundSpec, "stride"), values) is broken_stride
    assert broken_rule(_rules(GroundSpec, "min_window"), values) is broken_narrowest
