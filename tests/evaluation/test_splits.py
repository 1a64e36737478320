from collections import Counter

import pytest

from factscope.evaluation.splits import part_of


def test_a_group_always_falls_in_the_same_part():
    assert part_of("claim-17") == part_of("claim-17")
    assert {part_of(f"g{i}") for i in range(200)} == {"train", "validation", "test"}


def test_parts_have_roughly_the_configured_sizes():
    counts = Counter(part_of(f"group-{i}") for i in range(20000))
    assert abs(counts["train"] / 20000 - 0.75) < 0.02
    assert abs(counts["validation"] / 20000 - 0.10) < 0.02
    assert abs(counts["test"] / 20000 - 0.15) < 0.02


def test_bad_fractions_are_refused():
    with pytest.raises(ValueError):
        part_of("g", validation=0.6, test=0.5)
