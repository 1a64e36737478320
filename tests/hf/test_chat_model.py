"""The in-process chat model's parts that need no model: picking the next token (greedy, temperature, nucleus)
and finding the model a name stands for (the decoding itself runs on SmolLM2 in tests/llm/test_in_process_llm.py)."""

from __future__ import annotations

import math

import torch

from factscope.hf import chat_model
from factscope.hf.chat_model import Decoding, _choose


def test_greedy_takes_the_most_likely_token_of_each_row():
    logits = torch.tensor([[0.0, 2.0, 1.0], [3.0, -1.0, 0.5]])
    assert _choose(logits, Decoding(4), None).tolist() == [1, 0]


def test_the_nucleus_keeps_the_fewest_tokens_whose_probability_reaches_top_p():
    # probabilities 0.5, 0.3, 0.2: with top_p 0.6 the nucleus is the first two (0.5 < 0.6 <= 0.8)
    logits = torch.log(torch.tensor([[0.5, 0.3, 0.2]])).repeat(2000, 1)
    generator = torch.Generator().manual_seed(0)
    drawn = _choose(logits, Decoding(4, temperature=1.0, top_p=0.6), generator)
    counts = torch.bincount(drawn, minlength=3).tolist()
    assert counts[2] == 0
    # renormalised inside the nucleus: 0.5 / 0.8 = 0.625 for the first token
    assert math.isclose(counts[0] / 2000, 0.625, abs_tol=0.04)
    free = _choose(logits, Decoding(4, temperature=1.0), torch.Generator().manual_seed(0))
    assert torch.bincount(free, minlength=3)[2] > 300  # about 0.2 of 2,000 without a nucleus


def test_a_name_stands_for_a_folder_a_converted_gguf_file_or_a_hub_name(tmp_path, monkeypatch):
    folder = tmp_path / "model"
    folder.mkdir()
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"x")
    monkeypatch.setattr("factscope.hf.gguf_folder.dequantised_folder", lambda path: tmp_path / "converted")
    assert chat_model.model_folder(str(folder)) == str(folder)
    assert chat_model.model_folder(str(gguf)) == str(tmp_path / "converted")
    assert chat_model.model_folder("Qwen/Qwen2.5-1.5B-Instruct") == "Qwen/Qwen2.5-1.5B-Instruct"
