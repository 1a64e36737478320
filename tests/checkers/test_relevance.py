"""Lexical relevance of a segment to a claim, the decision settings of make_checker, and labels that hold when
unrelated references are appended (the shipped embedded checker)."""

from __future__ import annotations

import pytest

from factscope.checkers.base import CheckTask
from factscope.checkers.registry import make_checker
from factscope.checkers.relevance import DEFAULT_MIN_RELEVANCE, content_stems, lexical_relevance
from factscope.core.errors import ConfigError
from factscope.core.files.manifest import describe
from factscope.core.schema import Label
from tiny_models import build_nli_classifier

CLAIM = "Python was created by Guido van Rossum"


def test_content_stems_drop_function_words_and_cut_words_to_prefixes():
    assert content_stems(CLAIM) == {"pytho", "creat", "guido", "van", "rossu"}
    assert content_stems("It was not in 1995, a year of 12345 cases.") == {"1995", "year", "12345", "cases"}
    assert content_stems("the creation of the creator") == {"creat"}


@pytest.mark.parametrize(
    ("segment", "expected"),
    [
        ("Guido van Rossum created the Python language in 1991.", 1.0),
        ("The creator of Python is known as Guido.", 3 / 5),
        ("Van Rossum moved to Microsoft.", 2 / 5),
        ("Java was designed by James Gosling at Sun.", 0.0),
        ("", 0.0),
    ],
)
def test_relevance_is_the_share_of_the_claims_content_words_in_the_segment(segment, expected):
    assert lexical_relevance(CLAIM, segment) == pytest.approx(expected)


def test_a_claim_without_content_words_is_relevant_to_anything():
    assert lexical_relevance("It was.", "Tomatoes grow in summer.") == 1.0


def test_prefix_length_and_numbers():
    assert lexical_relevance("it was created", "a creation", stem_chars=5) == 1.0
    assert lexical_relevance("it was created", "a creation", stem_chars=50) == 0.0
    assert lexical_relevance("in 1995", "in 19951") == 0.0


@pytest.fixture(scope="module")
def embedded():
    return make_checker("embedded")


def test_make_checker_passes_the_decision_settings(tmp_path):
    folder = build_nli_classifier(tmp_path / "nli", {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"})
    default = make_checker(f"path:{folder}")
    assert (default.relevance, default.min_relevance, default.min_confidence) == ("lexical", DEFAULT_MIN_RELEVANCE, 0.0)
    assert default.mismatch_check == (
        "factscope.checkers.mismatch.find_mismatch(kinds=('number', 'date', 'quantity', 'entity'))"
    )
    assert make_checker(f"path:{folder}", mismatch="values").mismatch_check == (
        "factscope.checkers.mismatch.find_mismatch(kinds=('number', 'date', 'quantity'))"
    )
    assert make_checker(f"path:{folder}", mismatch="off").mismatch_check is None
    checker = make_checker(f"nli:{folder}", min_relevance=0.4, min_confidence=0.7, mismatch="all")
    described = describe(checker)
    assert described["relevance"] == "lexical" and described["min_relevance"] == 0.4
    assert describe(make_checker(f"nli:{folder}", relevance="off"))["relevance"] == "off"
    assert described["min_confidence"] == 0.7
    assert described["mismatch_check"] == (
        "factscope.checkers.mismatch.find_mismatch(kinds=('number', 'date', 'quantity', 'entity'))"
    )
    with pytest.raises(ConfigError, match="`mismatch` must be one of 'values', 'all', 'off', not 'numbers'"):
        make_checker(f"path:{folder}", mismatch="numbers")
    with pytest.raises(ConfigError, match="`min_relevance` counts only with `relevance='lexical'`"):
        make_checker(f"nli:{folder}", relevance="off", min_relevance=0.4)


UNRELATED = (
    (
        "The recipe calls for two cups of flour, a pinch of salt and three eggs. Whisk them until smooth. "
        "Bake the batter for forty minutes at a moderate heat, then let the cake cool on a rack before slicing it."
    ),
    (
        "Migratory birds such as the arctic tern travel between the poles every year. They navigate by the sun, the "
        "stars and the magnetic field of the Earth, and some of them cover more than seventy thousand kilometres."
    ),
    (
        "The committee approved the new budget after a long debate. Funding for roads rises by a tenth, while the "
        "parks department loses two of its staff. The vote was seven to four."
    ),
)

PAIRS = [
    ("The Eiffel Tower is in Paris.", "The Eiffel Tower is a wrought-iron tower on the Champ de Mars in Paris, France."),
    ("The Eiffel Tower is in Berlin.", "The Eiffel Tower is a wrought-iron tower on the Champ de Mars in Paris, France."),
    ("Marie Curie won two Nobel Prizes.", "Marie Curie was the first person to win Nobel Prizes in two sciences."),
    ("Water boils at 100 degrees Celsius at sea level.", "At sea level, water boils at 100 degrees Celsius."),
    ("The Amazon is the longest river in Africa.", "The Nile is the longest river in Africa."),
]


def test_appending_unrelated_references_does_not_flip_labels(embedded):
    single = embedded.check([CheckTask(claim, (evidence,)) for claim, evidence in PAIRS])
    long = embedded.check([CheckTask(claim, (UNRELATED[0], evidence, *UNRELATED[1:])) for claim, evidence in PAIRS])
    assert [v.label for v in long] == [v.label for v in single]
    assert single[0].label == Label.ENTAILMENT
    for verdict in long:
        if verdict.label != Label.NEUTRAL:
            assert verdict.evidence_reference == 1
