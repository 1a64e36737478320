"""HFCausalLM against log-probabilities computed directly with torch on a tiny GPT-2 built here."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import BertTokenizer, GPT2Config, GPT2LMHeadModel

from factscope.core.errors import ConfigError
from factscope.hf.causal_lm import EndpointCausalLM, HFCausalLM

WORDS = ["the", "cat", "sat", "on", "a", "mat", "paris", "is", "capital", "of", "france", "who", "wrote", "song", "glory", "love", "billy", "hill", ".", "?"]


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("tiny_gpt2")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]
    tokenizer = BertTokenizer(vocab=dict(zip(vocab, range(len(vocab)))), bos_token="[CLS]")
    tokenizer.save_pretrained(folder)
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=len(vocab), n_positions=32, n_embd=32, n_layer=2, n_head=2)
    GPT2LMHeadModel(config).save_pretrained(folder)
    return str(folder)


def direct_logprobs(folder: str, ids: list[int], first: int) -> np.ndarray:
    """ln P(ids[t] | ids[:t]) for t >= first, from one unpadded forward pass."""
    model = GPT2LMHeadModel.from_pretrained(folder).eval()
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0]
    logprobs = torch.log_softmax(logits, dim=-1)
    return np.array([logprobs[t - 1, ids[t]].item() for t in range(first, len(ids))])


def test_batched_padded_logprobs_match_direct_computation(tiny_lm):
    lm = HFCausalLM(tiny_lm, batch_size=4)
    tok = BertTokenizer.from_pretrained(tiny_lm)
    pairs = [("who wrote the song", "billy hill"), ("", "paris is the capital of france ."), ("the cat", "sat")]
    got = lm.logprobs(pairs)
    for (context, continuation), values in zip(pairs, got):
        context_ids = tok(context, add_special_tokens=False)["input_ids"] if context else [tok.cls_token_id]
        continuation_ids = tok(continuation, add_special_tokens=False)["input_ids"]
        expected = direct_logprobs(tiny_lm, context_ids + continuation_ids, len(context_ids))
        assert len(values) == len(continuation_ids)
        np.testing.assert_allclose(values, expected, atol=1e-5)


def test_duplicates_are_scored_once_and_results_keep_order(tiny_lm):
    lm = HFCausalLM(tiny_lm, batch_size=2)
    first = lm.logprobs([("the", "cat sat"), ("the", "mat")])
    again = lm.logprobs([("the", "mat"), ("the", "cat sat"), ("the", "mat")])
    np.testing.assert_allclose(again[1], first[0])
    np.testing.assert_allclose(again[0], again[2])
    assert len(lm._cache) == 2


def test_context_is_cut_from_the_left_past_the_window(tiny_lm):
    lm = HFCausalLM(tiny_lm)
    long_context = " ".join(["the cat"] * 40)
    (values,) = lm.logprobs([(long_context, "sat on a mat")])
    assert len(values) == 4 and np.all(values < 0)


def test_missing_model_names_the_parameter(tmp_path):
    with pytest.raises(ConfigError, match="pass `lm`"):
        HFCausalLM(str(tmp_path / "no-such-model"))


class _Reply:
    def __init__(self, tokens, logprobs):
        self.tokens, self.token_logprobs, self.failed, self.error = tokens, logprobs, False, None


class _Client:
    class config:
        model = "fake"

    def __init__(self):
        self.prompts = []

    def complete(self, prompt, max_tokens=0, echo=True, logprobs=0):
        self.prompts.append(prompt)
        tokens = ["Q", ":", " who", " wrote", " it", "?", " Billy", " Hill"]
        assert "".join(tokens) == prompt
        return _Reply(tokens, [None, -1.0, -2.0, -0.5, -0.25, -0.1, -3.0, -0.2])


def test_endpoint_keeps_tokens_after_the_context_boundary():
    client = _Client()
    lm = EndpointCausalLM(client)
    (values,) = lm.logprobs([("Q: who wrote it?", " Billy Hill")])
    np.testing.assert_allclose(values, [-3.0, -0.2])
    lm.logprobs([("Q: who wrote it?", " Billy Hill")])
    assert len(client.prompts) == 1
