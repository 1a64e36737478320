"""A GGUF causal LM run by llama.cpp (the optional `llamacpp` extra, not installed by CI): exact token
log-probabilities of a continuation, reused prefixes, the window; skipped where llama-cpp-python is absent."""

from __future__ import annotations

import numpy as np
import pytest

from factscope.hf import embedded_lm, llama_cpp_lm

AVAILABLE = llama_cpp_lm.llama_cpp_available() and embedded_lm.embedded_lm_available()
SKIP_REASON = "llama-cpp-python is not installed (the llamacpp extra, left out of all and of CI)"
installed = pytest.mark.skipif(not AVAILABLE, reason=SKIP_REASON)


@pytest.fixture(scope="module")
def lm():
    if not AVAILABLE:
        pytest.skip(SKIP_REASON)
    return llama_cpp_lm.LlamaCppLM()


def _reference(lm, ids: list[int], first: int) -> np.ndarray:
    """ln P of ids[first:] from one fresh forward pass over ``ids``, normalised with scipy."""
    from scipy.special import log_softmax

    lm.model.reset()
    lm.model.n_tokens = 0
    lm.model.eval(ids)
    logits = np.asarray(lm.model.scores[: len(ids)], dtype=np.float64)
    rows = log_softmax(logits, axis=1)
    values = np.array([rows[t - 1, ids[t]] for t in range(first, len(ids))])
    lm.model.n_tokens = 0
    return values


def _tokens(lm, text: str) -> list[int]:
    return list(lm.model.tokenize(text.encode(), add_bos=False, special=False))


@installed
def test_continuation_log_probabilities_are_exact(lm):
    context, continuation = "Paris is the capital of", " France."
    (values,) = lm.logprobs([(context, continuation)])
    ids = _tokens(lm, context) + _tokens(lm, continuation)
    first = len(_tokens(lm, context))
    assert len(values) == len(_tokens(lm, continuation)) == 2
    np.testing.assert_allclose(values, _reference(lm, ids, first), atol=1e-3)
    assert np.all(values < 0)
    france, berlin = lm.logprobs([(context, " France."), (context, " Berlin.")])
    assert france.sum() > berlin.sum()  # a sanity check of the direction, not of the model


@installed
def test_an_empty_context_scores_every_token_after_the_document_start(lm):
    (values,) = lm.logprobs([("", "Paris is the capital of France.")])
    start = lm.model.tokenize(b"<|endoftext|>", add_bos=False, special=True)
    assert len(start) == 1 and lm.start_id == start[0]
    ids = [lm.start_id, *_tokens(lm, "Paris is the capital of France.")]
    assert len(values) == len(ids) - 1
    np.testing.assert_allclose(values, _reference(lm, ids, 1), atol=1e-3)


@installed
def test_shared_prefixes_and_repeats_give_the_scores_of_a_fresh_pass(lm):
    context = "Question: who wrote the song the glory of love\nKnowledge:"
    pairs = [(context, " Billy Hill wrote it."), (context, " Irving Berlin wrote it."), ("Other", " text")]
    together = lm.logprobs(pairs + pairs[:1])
    for (left, right), values in zip(pairs, together):
        ids = _tokens(lm, left) + _tokens(lm, right)
        np.testing.assert_allclose(values, _reference(lm, ids, len(_tokens(lm, left))), atol=1e-3)
    np.testing.assert_array_equal(together[0], together[3])


@installed
def test_a_pair_longer_than_the_window_loses_context_from_the_left(lm):
    small = llama_cpp_lm.LlamaCppLM(embedded_lm.embedded_model_path(), window=32)
    assert small.max_length == 32 and small.name.startswith("llamacpp:")
    context = " ".join(["the cat sat on the mat."] * 20)
    (values,) = small.logprobs([(context, " The dog barked.")])
    ids = (_tokens(lm, context) + _tokens(lm, " The dog barked."))[-32:]
    np.testing.assert_allclose(values, _reference(lm, ids, 32 - len(values)), atol=1e-3)
    assert len(values) == len(_tokens(lm, " The dog barked."))
