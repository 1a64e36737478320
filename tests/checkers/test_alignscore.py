"""AlignScore from its released checkpoint layout: chunking, claim sentences and aggregation against hand-built
examples, exact loading, the pair text the model gets, and `factscope check` with it."""

import json

import numpy as np
import pytest
import torch

from cli_entry import run_factscope
from factscope.checkers.registry import make_checker
from factscope.core.errors import ConfigError
from factscope.hf.alignscore import AlignScoreScorer, aggregate, claim_sentences, context_chunks
from tiny_judges import build_alignscore


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    return build_alignscore(tmp_path_factory.mktemp("alignscore"))


def sentence(words: int, first: str) -> str:
    return " ".join([first, *["word"] * (words - 2), "end."])


def test_context_chunks_follow_the_authors_count():
    short = "The cat sat. The dog ran. It was late."
    assert context_chunks(short) == [short]  # 9 words: one chunk of every sentence
    five = [sentence(80, f"S{i}") for i in range(5)]  # 400 words: 2 chunks wanted, 5 // 2 = 2 sentences each
    assert context_chunks(" ".join(five)) == [" ".join(five[0:2]), " ".join(five[2:4]), five[4]]
    four = [sentence(200, f"S{i}") for i in range(4)]  # 800 words: 3 wanted, 4 // 3 = 1 sentence each
    assert context_chunks(" ".join(four)) == four
    assert context_chunks("") == [""]


def test_claim_sentences_and_aggregation():
    assert claim_sentences("Curie won. She was born in 1867.") == ["Curie won.", "She was born in 1867."]
    # chunks x sentences x (aligned, neutral, contradiction)
    tri = np.array([
        [[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]],
        [[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]],
    ])
    # sentence 0: best chunk 1 (0.7); sentence 1: best chunk 0 (0.6); mean of those two rows
    assert aggregate(tri) == pytest.approx([0.65, 0.15, 0.2])


def test_loads_exactly_and_gives_the_model_chunk_then_sentence(checkpoint):
    scorer = AlignScoreScorer(str(checkpoint))
    assert scorer.model_inputs("The cat sat. The dog ran.", "A cat sat. A dog ran.") == [
        ("The cat sat. The dog ran.", "A cat sat."),
        ("The cat sat. The dog ran.", "A dog ran."),
    ]
    encoded = scorer.tokenizer("The cat sat.", "A cat sat.")
    assert scorer.tokenizer.decode(encoded["input_ids"]) == "<s>The cat sat.</s></s>A cat sat.</s>"
    with torch.inference_mode():
        tensors = scorer.tokenizer(["The cat sat."], ["A cat sat."], return_tensors="pt")
        logits = scorer.model(tensors["input_ids"], tensors["attention_mask"]).double().numpy()
    expected = np.exp(logits[0]) / np.exp(logits[0]).sum()
    assert scorer.score(["The cat sat."], ["A cat sat."])[0] == pytest.approx(expected, abs=1e-6)


def test_checkpoints_that_do_not_fit_are_refused(tmp_path):
    broken = build_alignscore(tmp_path / "broken")
    saved = torch.load(broken, weights_only=True)
    del saved["state_dict"]["tri_layer.bias"]
    saved["state_dict"]["extra_head.weight"] = torch.zeros(2)
    torch.save(saved, broken)
    with pytest.raises(ConfigError, match="missing tri_layer.bias; unexpected extra_head.weight"):
        AlignScoreScorer(str(broken))
    with pytest.raises(ConfigError, match="does not exist"):
        AlignScoreScorer(str(tmp_path / "none.ckpt"))


def test_checker_takes_each_reference_whole(checkpoint):
    checker = make_checker(f"alignscore:{checkpoint}", threshold=0.3)
    assert checker.max_tokens == 0 and checker.decision.threshold == 0.3


def test_factscope_check_runs_with_alignscore(checkpoint, tmp_path, monkeypatch, capsys):
    records = tmp_path / "answers.jsonl"
    records.write_text(json.dumps({"id": "r1", "response": "The cat sat on the mat.",
                                   "references": ["The cat sat on the mat. The dog ran."]}) + "\n")
    output = tmp_path / "checked.jsonl"
    ran = run_factscope(monkeypatch, capsys, "check", str(records), "-o", str(output), "--checker",
                        f"alignscore:{checkpoint}", "--device", "cpu")
    assert ran.code == 0, ran.text
    assert "claims" in output.read_text()
