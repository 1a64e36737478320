"""The pytest plugin, run for real: pytester writes a small test file into a temporary folder and runs pytest on it,
the plugin arriving through its ``pytest11`` entry point, the embedded checker judging the claims."""

from __future__ import annotations

import importlib.metadata

import pytest

from doc_examples import python_blocks

pytest_plugins = ["pytester"]

INNER = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-W", "ignore::DeprecationWarning")
"""Options of the inner pytest runs (without hypothesis's plugin, which would import hypothesis anew each run)."""

USER_TESTS = '''
from factscope.testing import assert_claims_supported, assert_facts_grounded, assert_grounded

REFERENCES = ["Paris is the capital and largest city of France, with 2.1 million residents."]


def test_supported_answer(factscope_checker):
    result = assert_grounded("Paris is the capital of France.", REFERENCES, checker=factscope_checker,
                             extractor="sentences")
    assert [claim.verdict.label.value for claim in result.claims] == ["Entailment"]


def test_contradicted_answer(factscope_checker):
    assert_grounded("Paris is the capital of France. It has 90 million people.", REFERENCES,
                    checker=factscope_checker, extractor="sentences", min_supported=0.5)


def test_triplet_with_the_wrong_number(factscope_checker):
    assert_grounded("Paris is the capital of France and has 90 million residents.", REFERENCES,
                    checker=factscope_checker, extractor="rules")


def test_claim_list_below_the_share(factscope_checker):
    assert_claims_supported(["Paris is the capital of France.", "Paris hosts the Louvre."], REFERENCES,
                            checker=factscope_checker, min_supported=0.75)


def test_facts_found_in_the_context():
    assert_facts_grounded("Paris is the capital of France.", REFERENCES, extractor="sentences", presence="nli:embedded")


def test_facts_missing_from_the_context():
    assert_facts_grounded("Paris is the capital of France. Berlin hosts the Bundestag.", REFERENCES,
                          extractor="sentences", presence="nli:embedded")
'''


@pytest.fixture(scope="module")
def loaded():
    """The assertions used once in this process, before pytester snapshots its modules: the inner runs then find
    the models loaded (and numpy, torch and spaCy are imported once per process, as they must be)."""
    from factscope.testing import assert_facts_grounded, assert_grounded

    references = ["Paris is the capital and largest city of France, with 2.1 million residents."]
    for extractor in ("sentences", "rules"):
        result = assert_grounded("Paris is the capital of France.", references, extractor=extractor)
        assert [claim.verdict.label.value for claim in result.claims] == ["Entailment"]
    for extractor in ("sentences", "facts"):
        assert assert_facts_grounded("Paris is the capital of France.", references, extractor=extractor,
                                     presence="nli:embedded").precision == 1.0


def test_the_plugin_is_registered_through_its_entry_point():
    entry = [e for e in importlib.metadata.entry_points(group="pytest11") if e.name == "factscope"]
    assert [e.value for e in entry] == ["factscope.testing"]


def test_passing_and_failing_assertions_print_the_failed_claims(loaded, pytester: pytest.Pytester):
    pytester.makepyfile(test_answers=USER_TESTS)
    result = pytester.runpytest(*INNER)
    result.assert_outcomes(passed=2, failed=4)
    output = result.stdout.str()
    contradicted = _section(output, "test_contradicted_answer")
    assert "1 claim contradicted" in contradicted
    for column in ("claim", "label", "P(entail)", "P(neutral)", "P(contra)", "evidence"):
        assert column in contradicted
    row = next(line for line in contradicted.splitlines() if "It has 90 million people." in line)
    assert "Contradiction" in row and "Paris is the capital and largest city" in row
    assert "in the response" not in contradicted, "a sentence claim's words are the claim's"
    table, _, marked = contradicted.partition("\nresponse: ")
    assert "Paris is the capital of France." not in table.replace(row, ""), "supported claims are not listed"
    assert marked.strip() == "Paris is the capital of France. [[It has 90 million people.]]"
    triplet = _section(output, "test_triplet_with_the_wrong_number")
    table, _, marked = triplet.partition("\nresponse: ")
    assert "in the response" in table and "Contradiction" in table
    assert "[[has 90 million residents]]." in marked, "the contradicted words, not the whole sentence"
    listed = _section(output, "test_claim_list_below_the_share")
    assert "50% of 2 claims supported, 75% needed" in listed and "Paris hosts the Louvre." in listed
    facts = _section(output, "test_facts_missing_from_the_context")
    assert "precision 0.50 is under 1.00" in facts and "Berlin hosts the Bundestag." in facts
    assert "not found" in facts


def test_the_min_confidence_option_reaches_the_session_checker(loaded, pytester: pytest.Pytester):
    pytester.makepyfile(test_answers=USER_TESTS)
    result = pytester.runpytest(*INNER, "--factscope-min-confidence", "0.999", "-k", "supported_answer")
    result.assert_outcomes(failed=1)
    assert "0% of 1 claims supported" in result.stdout.str()


def _section(output: str, test: str) -> str:
    """The failure report of one test in pytest's output."""
    start = output.index("\n", output.index(f"_ {test} _"))
    following = output.find("\n___", start)
    return output[start: following if following > 0 else None]


def test_the_example_of_the_guide_passes(loaded, pytester: pytest.Pytester):
    (example,) = python_blocks("guides/pytest-plugin.md")
    pytester.makepyfile(test_rag_answers=example)
    result = pytester.runpytest(*INNER)
    result.assert_outcomes(passed=3)
