"""The embedded causal LM (SmolLM2-135M-Instruct through llama.cpp, the `lm` extra): exact token log-probabilities
of a continuation, CONNER's six dimensions offline on the shipped examples, the default `--lm`, and the message
that names the extra where it is not installed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import repo_paths
from cli_entry import run_factscope
from factscope.conner.evaluator_setup import default_lm, make_evaluator, missing_parts
from factscope.core.errors import ConfigError
from factscope.hf import embedded_lm
from factscope.hf.causal_lm import EndpointCausalLM
from optional_extras import needs_extra, require_extra

EXAMPLES = repo_paths.EXAMPLES / "knowledge"
LM_METRICS = ("coherence_sentence", "informativeness", "helpfulness")

installed = needs_extra(embedded_lm.embedded_lm_available(), "lm")


@pytest.fixture(scope="module")
def lm():
    require_extra(embedded_lm.embedded_lm_available(), "lm")
    return embedded_lm.shared_embedded_lm()


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
    small = embedded_lm.EmbeddedLM(embedded_lm.embedded_model_path(), window=32)
    assert small.max_length == 32 and small.name.startswith("gguf:")
    context = " ".join(["the cat sat on the mat."] * 20)
    (values,) = small.logprobs([(context, " The dog barked.")])
    ids = (_tokens(lm, context) + _tokens(lm, " The dog barked."))[-32:]
    np.testing.assert_allclose(values, _reference(lm, ids, 32 - len(values)), atol=1e-3)
    assert len(values) == len(_tokens(lm, " The dog barked."))


@installed
def test_all_six_dimensions_run_offline_on_the_shipped_examples(monkeypatch, capsys, tmp_path):
    out = tmp_path / "scored.jsonl"
    ran = run_factscope(monkeypatch, capsys, "knowledge", "score", str(EXAMPLES / "records.jsonl"), "--corpus",
                        str(EXAMPLES / "corpus.jsonl"), "-o", str(out))
    assert ran.code == 0, ran.text
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 6
    for row in rows:
        for metric in ("relevance", "coherence_paragraph", "coherence_sentence", "informativeness", "helpfulness",
                       "validity", "q_know"):
            assert row[metric] is not None, (row["id"], metric, row["not_computed"])
        assert row["factuality"]["consistent"] is not None
        assert 0 < row["coherence_sentence"] <= 1 and 0 <= row["informativeness"] <= 1
    assert "not computed" not in ran.text
    manifest = json.loads(Path(f"{out}.manifest.json").read_text())
    assert "embedded" in json.dumps(manifest)


@installed
def test_lm_none_turns_the_default_off_and_the_python_api_names_it(tmp_path):
    import factscope

    off = factscope.knowledge(EXAMPLES / "records.jsonl", checker="none", relevance="none", coherence="none",
                              lm="none", output=tmp_path / "off.jsonl")
    assert set(LM_METRICS) <= set(off.summary.not_computed)
    on = factscope.knowledge(EXAMPLES / "records.jsonl", checker="none", relevance="none", coherence="none",
                             lm="embedded", output=tmp_path / "on.jsonl")
    assert not set(LM_METRICS) & set(on.summary.not_computed)


def test_without_the_extra_the_default_is_none_and_the_messages_name_it(monkeypatch, tmp_path):
    monkeypatch.setattr(embedded_lm, "embedded_lm_available", lambda: False)
    monkeypatch.setattr(embedded_lm, "_package_folder", lambda name: None)
    assert default_lm(None) is None and default_lm("gpt2") == "gpt2"
    evaluator = make_evaluator(checker="none", relevance="none", coherence="none", lm=default_lm(None))
    assert any("pip install 'factscope[lm]'" in note for note in missing_parts(evaluator))
    with pytest.raises(ConfigError, match=r"pip install 'factscope\[lm\]'"):
        embedded_lm.EmbeddedLM()
    with pytest.raises(ConfigError, match="GGUF"):
        embedded_lm.EmbeddedLM(tmp_path / "missing.gguf")


def test_the_endpoint_asks_for_one_token_and_drops_what_follows_the_prompt():
    class Reply:
        failed, error = False, None

        def __init__(self, tokens, values):
            self.tokens, self.token_logprobs = tokens, values

    class Client:
        class config:
            model = "local"

        def __init__(self):
            self.asked = []

        def complete(self, prompt, max_tokens=0, echo=True, logprobs=0):
            self.asked.append(max_tokens)
            assert prompt == "Q: who? Billy Hill"
            # the prompt's tokens, then the one generated token (llama.cpp's server echoes both)
            return Reply(["Q", ":", " who", "?", " Billy", " Hill", "\n"], [None, -1, -2, -3, -0.5, -0.25, -9.0])

    client = Client()
    (values,) = EndpointCausalLM(client).logprobs([("Q: who?", " Billy Hill")])
    np.testing.assert_allclose(values, [-0.5, -0.25])
    assert client.asked == [1]
