"""A folder's tokenizer.json read by the tokenizers library gives the transformers tokenizer's ids, masks and
padding, for single texts and truncated pairs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from factscope.checkers.embedded import shipped_checker_dir
from factscope.hf.tokenizer_file import tokenizer_file
from tiny_models import build_tokenizer

transformers = pytest.importorskip("transformers")

FIRST = [
    "The Eiffel Tower is located in Paris, the capital of France.",
    "Marie Curie won the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911, the first "
    "person to win twice; she was born in Warsaw. " * 3,
    "ÉCOLE   normale\tsupérieure — 北京 café",
    "",
]
SECOND = [
    "The tower is in Paris.",
    "Curie won a Nobel Prize in 1903, and again " * 4,
    "a school",
    "empty premise",
]


@pytest.mark.parametrize("source", ["shipped", "tiny"])
def test_ids_and_padding_match_transformers(tmp_path, source):
    folder = shipped_checker_dir() / "encoder" if source == "shipped" else tmp_path
    if source == "tiny":
        build_tokenizer(tmp_path)
    expected_tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    ours = tokenizer_file(folder)
    assert ours is not None
    for max_length in (24, 320):
        expected = expected_tokenizer(FIRST, SECOND, truncation=True, max_length=max_length)
        got = ours(FIRST, SECOND, truncation=True, max_length=max_length)
        for name in ("input_ids", "token_type_ids", "attention_mask"):
            assert got[name] == expected[name]
        assert max(len(ids) for ids in got["input_ids"]) <= max_length
        padded, expected_padded = ours.pad(got), expected_tokenizer.pad(expected, return_tensors="np")
        for name in padded:
            assert np.array_equal(padded[name], expected_padded[name])
    for text in FIRST:
        assert (
            ours(text, add_special_tokens=False)["input_ids"]
            == expected_tokenizer(text, add_special_tokens=False)["input_ids"]
        )


def test_a_left_padding_tokenizer_is_left_to_transformers(tmp_path):
    build_tokenizer(tmp_path)
    config = json.loads((tmp_path / "tokenizer_config.json").read_text())
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({**config, "padding_side": "left"}))
    assert tokenizer_file(tmp_path) is None
    assert tokenizer_file(tmp_path / "missing") is None
