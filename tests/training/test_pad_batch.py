"""`pad_batch` builds the same tensors as the tokenizer's own padding, on either padding side."""

from __future__ import annotations

import pytest
import torch
from transformers import AutoTokenizer

from factscope.training.finetune import pad_batch, tokenize_pairs
from factscope.training.nli_data import NLIExample
from tiny_models import build_tokenizer

PAIRS = [
    NLIExample(premise=" ".join(["the dog ran in the park ."] * (i % 5 + 1)), hypothesis="the dog ran .", label=0, line=i)
    for i in range(12)
]


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pad_tokenizer")
    build_tokenizer(folder)
    return AutoTokenizer.from_pretrained(folder)


@pytest.mark.parametrize("side", ["right", "left"])
def test_padded_batches_match_the_tokenizers_padding(tokenizer, side):
    tokenizer.padding_side = side
    encodings = tokenize_pairs(tokenizer, PAIRS, max_length=24)
    assert len({len(ids) for ids in encodings["input_ids"]}) > 2
    for batch in ([0, 1, 2, 3], [4, 9, 5], [7]):
        expected = tokenizer.pad({k: [v[i] for i in batch] for k, v in encodings.items()}, return_tensors="pt")
        padded = pad_batch(tokenizer, encodings, batch)
        assert set(padded) == set(expected) == {"input_ids", "token_type_ids", "attention_mask"}
        for key in padded:
            assert padded[key].dtype == torch.int64
            assert torch.equal(padded[key], expected[key]), key


def test_an_output_it_cannot_pad_is_refused(tokenizer):
    encodings = {**tokenize_pairs(tokenizer, PAIRS[:2], max_length=24), "offsets": [[0], [0]]}
    with pytest.raises(ValueError, match="offsets"):
        pad_batch(tokenizer, encodings, [0, 1])
