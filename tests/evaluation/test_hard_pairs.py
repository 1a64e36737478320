"""The hand-written hard pairs: their shape, labels, phenomena and class balance."""

import json
from collections import Counter
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict

import repo_paths
from factscope.core.files.error_location import parse_located
from factscope.evaluation.pairs import read_pairs

HARD_PAIRS = repo_paths.ROOT / "benchmarks" / "data" / "hard_pairs.jsonl"

PHENOMENA = (
    "number",
    "date",
    "entity-swap",
    "predicate",
    "negation",
    "role-swap",
    "near-verbatim",
    "partial-support",
    "unrelated",
    "list",
    "comparison",
    "long-premise",
)
ONE_LABEL = {"near-verbatim": "entailment", "partial-support": "neutral", "unrelated": "neutral"}


class HardPair(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    premise: str
    hypothesis: str
    label: Literal["entailment", "neutral", "contradiction"]
    dataset: Literal["hard-pairs"]
    group: str
    phenomenon: Literal[PHENOMENA]  # type: ignore[valid-type]


@pytest.fixture(scope="module")
def pairs() -> list[HardPair]:
    lines = HARD_PAIRS.read_text(encoding="utf-8").splitlines()
    return [
        parse_located(HardPair, json.loads(line), path=HARD_PAIRS, line=n) for n, line in enumerate(lines, 1)
    ]


def test_every_line_has_the_shape_and_the_reader_takes_it(pairs):
    assert len(pairs) >= 100
    read, errors = read_pairs(HARD_PAIRS)
    assert errors == [] and len(read) == len(pairs)


def test_ids_are_unique_and_each_pair_is_its_own_group(pairs):
    assert len({pair.id for pair in pairs}) == len(pairs)
    assert all(pair.group == pair.id for pair in pairs)
    assert len({(pair.premise, pair.hypothesis) for pair in pairs}) == len(pairs)


def test_every_phenomenon_has_enough_pairs(pairs):
    counts = Counter(pair.phenomenon for pair in pairs)
    assert set(counts) == set(PHENOMENA)
    assert min(counts.values()) >= 8


def test_the_classes_are_balanced(pairs):
    shares = {label: count / len(pairs) for label, count in Counter(pair.label for pair in pairs).items()}
    assert set(shares) == {"entailment", "neutral", "contradiction"}
    assert all(0.28 <= share <= 0.40 for share in shares.values()), shares


def test_phenomena_with_one_possible_label_have_it(pairs):
    for pair in pairs:
        if pair.phenomenon in ONE_LABEL:
            assert pair.label == ONE_LABEL[pair.phenomenon], pair.id


def test_mixed_phenomena_hold_more_than_one_label(pairs):
    for phenomenon in set(PHENOMENA) - set(ONE_LABEL):
        labels = {pair.label for pair in pairs if pair.phenomenon == phenomenon}
        assert len(labels) >= 2, phenomenon


def test_long_premises_are_long_and_several_paragraphs(pairs):
    for pair in pairs:
        if pair.phenomenon == "long-premise":
            assert len(pair.premise.split()) >= 120 and pair.premise.count("\n\n") >= 2, pair.id


def test_no_hypothesis_is_a_copy_of_its_premise(pairs):
    assert all(pair.hypothesis.strip() != pair.premise.strip() for pair in pairs)
