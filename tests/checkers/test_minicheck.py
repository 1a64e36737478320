"""MiniCheck's classifiers and its Flan-T5 model: their layout loads exactly, the model gets the authors' text, the
scores are what the model computes on it, and `factscope check` runs with them."""

import json

import numpy as np
import pytest

from cli_entry import run_factscope
from factscope.checkers.base import CheckTask
from factscope.checkers.registry import make_checker
from factscope.core.errors import ConfigError
from factscope.core.schema import Label
from factscope.hf.minicheck import MiniCheckScorer
from tiny_judges import build_minicheck_roberta, build_minicheck_t5, build_roberta_tokenizer, roberta_config

DOC = "Marie Curie won the Nobel prize in physics in 1903."
CLAIM = "Curie won a prize."


@pytest.fixture(scope="module")
def roberta(tmp_path_factory):
    return build_minicheck_roberta(tmp_path_factory.mktemp("minicheck-roberta"))


@pytest.fixture(scope="module")
def flan_t5(tmp_path_factory):
    return build_minicheck_t5(tmp_path_factory.mktemp("minicheck-t5"))


def test_classifier_gets_chunk_eos_claim_and_its_column_one(roberta):
    import torch
    from scipy.special import softmax

    scorer = MiniCheckScorer(str(roberta))
    assert scorer.model_input(DOC, CLAIM) == "Marie Curie won the Nobel prize in physics in 1903.</s>Curie won a prize."
    assert scorer.chunk_tokens == 400 and scorer.max_length == 512
    encoded = scorer.tokenizer(scorer.model_input(DOC, CLAIM), return_tensors="pt")
    assert scorer.tokenizer.convert_ids_to_tokens(encoded["input_ids"][0].tolist()).count("</s>") == 2
    with torch.inference_mode():
        expected = softmax(scorer.model(**encoded).logits.double().numpy(), axis=1)[0, 1]
    probs = scorer.score([DOC, DOC], [CLAIM, CLAIM])
    assert probs[0] == pytest.approx([expected, 1 - expected, 0.0], abs=1e-6)
    assert np.allclose(probs.sum(axis=1), 1.0)


def test_flan_t5_gets_predict_prefix_and_label_tokens_3_and_209(flan_t5):
    import torch
    from scipy.special import softmax

    scorer = MiniCheckScorer(str(flan_t5))
    assert scorer.model_input(DOC, CLAIM) == "predict: Marie Curie won the Nobel prize in physics in 1903.</s>Curie won a prize."
    assert scorer.chunk_tokens == 500 and scorer.max_length == 2048
    assert scorer.count_tokens("the cat sat on the mat") == 6  # whitespace words, as the authors count
    encoded = scorer.tokenizer(scorer.model_input(DOC, CLAIM), return_tensors="pt")
    with torch.inference_mode():
        logits = scorer.model(**encoded, decoder_input_ids=torch.zeros((1, 1), dtype=torch.long)).logits[0, 0]
    expected = softmax(logits[[3, 209]].double().numpy())[1]
    assert scorer.support([DOC], [CLAIM])[0] == pytest.approx(expected, abs=1e-6)


def test_a_model_without_the_trained_head_is_refused(tmp_path):
    from transformers import RobertaModel

    tokenizer = build_roberta_tokenizer(tmp_path)
    RobertaModel(roberta_config(len(tokenizer))).save_pretrained(tmp_path)
    with pytest.raises(ConfigError, match="missing classifier"):
        MiniCheckScorer(str(tmp_path))


def test_threshold_decides_entailment_and_no_contradiction_is_said(roberta):
    task = CheckTask(CLAIM, (DOC,))
    support = MiniCheckScorer(str(roberta)).support([DOC], [CLAIM])[0]
    below = make_checker(f"minicheck:{roberta}", threshold=min(1.0, support + 0.01)).check([task])[0]
    above = make_checker(f"minicheck:{roberta}", threshold=max(0.0, support - 0.01)).check([task])[0]
    assert (below.label, above.label) == (Label.NEUTRAL, Label.ENTAILMENT) or above.rule == "mismatch"
    default = make_checker(f"minicheck:{roberta}", mismatch="off")
    assert default.decision.threshold == 0.5 and default.max_tokens == 400
    assert default.check([task])[0].label is (Label.ENTAILMENT if support >= 0.5 else Label.NEUTRAL)


@pytest.mark.parametrize("which", ["roberta", "flan_t5"])
def test_factscope_check_runs_with_minicheck(which, request, tmp_path, monkeypatch, capsys):
    folder = request.getfixturevalue(which)
    records = tmp_path / "answers.jsonl"
    records.write_text(json.dumps({"id": "r1", "response": "Marie Curie won the Nobel prize.", "references": [DOC]}) + "\n")
    output = tmp_path / "checked.jsonl"
    ran = run_factscope(monkeypatch, capsys, "check", str(records), "-o", str(output), "--checker",
                        f"minicheck:{folder}", "--device", "cpu")
    assert ran.code == 0, ran.text
    rows = [json.loads(line) for line in output.read_text().splitlines()]
    claims = [claim for row in rows if "claims" in row for claim in row["claims"]]
    assert claims and all(claim["verdict"]["probs"][2] == 0.0 for claim in claims)
    assert all(claim["verdict"]["reason"] for claim in claims)
