"""Long-context augmentation of NLI training pairs."""

import random

import pytest

from factscope.training.long_context import (
    augment,
    context_copies,
    in_context,
    unrelated_context,
    unrelated_copies,
)
from factscope.training.nli_data import NLIExample

EXAMPLES = [NLIExample(f"Premise number {i} says something.", f"Hypothesis {i}.", i % 3, i + 1) for i in range(20)]


def test_in_context_keeps_the_premise_and_reaches_the_length():
    premises = [e.premise for e in EXAMPLES]
    text = in_context(premises, 4, 30, random.Random(0))
    assert "Premise number 4 says something." in text
    assert len(text.split()) >= 30
    assert text.count("Premise number 4 ") == 1


def test_augment_adds_labelled_copies_of_a_seeded_share():
    out = augment(EXAMPLES, 0.5, 25, seed=3)
    assert out[:20] == EXAMPLES and len(out) == 30
    for copy in out[20:]:
        original = next(e for e in EXAMPLES if e.line == copy.line)
        assert copy.label == original.label and copy.hypothesis == original.hypothesis
        assert original.premise in copy.premise and len(copy.premise.split()) >= 25
    assert augment(EXAMPLES, 0.5, 25, seed=3) == out
    assert augment(EXAMPLES, 0.0, 25, seed=3) == EXAMPLES
    with pytest.raises(ValueError):
        augment(EXAMPLES, 1.5, 25, seed=3)


def test_context_copies_are_the_tail_of_augment():
    assert context_copies(EXAMPLES, 0.5, 25, seed=3) == augment(EXAMPLES, 0.5, 25, seed=3)[20:]
    assert context_copies(EXAMPLES, 0.0, 25, seed=3) == []


def test_unrelated_copies_drop_the_premise_and_are_neutral():
    # pairs 0 and 1 share a premise, as MNLI's sibling hypotheses do: neither may appear in the other's segment
    examples = [NLIExample("The shared premise.", "H0.", 0, 101), NLIExample("The shared premise.", "H1.", 2, 102)]
    examples += EXAMPLES
    premises = [e.premise for e in examples]
    for seed in range(5):
        text = unrelated_context(premises, 0, 40, random.Random(seed))
        assert "shared premise" not in text and len(text.split()) >= 40
    # the draws are those of rng.choice over the other premises (what trained the shipped checker)
    reference_rng = random.Random(7)
    expected = " ".join(reference_rng.choice(premises[2:]) for _ in range(10))  # 10 premises of 5 words
    assert unrelated_context(premises, 1, 48, random.Random(7)) == expected
    copies = unrelated_copies(examples, 0.5, 25, seed=3, neutral=1)
    assert len(copies) == 11 and unrelated_copies(examples, 0.5, 25, seed=3, neutral=1) == copies
    for copy in copies:
        original = next(e for e in examples if e.line == copy.line)
        assert copy.label == 1 and copy.hypothesis == original.hypothesis
        assert original.premise not in copy.premise and len(copy.premise.split()) >= 25
    assert unrelated_copies([examples[0]], 1.0, 25, seed=0, neutral=1) == []
    with pytest.raises(ValueError):
        unrelated_copies(examples, 1.5, 25, seed=0, neutral=1)
