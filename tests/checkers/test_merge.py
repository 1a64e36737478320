"""The Noisy Context merge rule of RefChecker A.3 and the prompt loader."""

import pytest

from factscope.checkers.merge import merge_passage_labels
from factscope.core.errors import ConfigError
from factscope.core.prompts import load_prompt
from factscope.core.schema import Label

E, N, C = Label.ENTAILMENT, Label.NEUTRAL, Label.CONTRADICTION


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ([E], E),
        ([N], N),
        ([C], C),
        ([C, E, N], E),  # entailed by any passage wins over a contradiction elsewhere
        ([N, C, N], C),  # no passage entails, one contradicts
        ([N, N, N], N),  # no passage entails or contradicts
        ([], N),  # no passages: nothing to support or contradict the claim
    ],
)
def test_merge_passage_labels(labels, expected):
    assert merge_passage_labels(labels) is expected


def test_merge_accepts_any_iterable():
    assert merge_passage_labels(label for label in (N, C)) is C


def test_load_prompt_unknown_name_names_the_shipped_prompts():
    with pytest.raises(ConfigError, match="no prompt named 'no_such_prompt'"):
        load_prompt("no_such_prompt")
