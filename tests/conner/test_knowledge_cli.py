"""`factscope knowledge` end to end, offline: tiny models built here, the packaged MiniLM, the fake LLM server."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import BertTokenizer, GPT2Config, GPT2LMHeadModel
from typer.testing import CliRunner

import repo_paths
from command_line import command_line
from factscope.cli import knowledge
from factscope.core.errors import ConfigError, InputError
from tiny_models import WORDS, build_nli_classifier

DATA = repo_paths.DATA / "knowledge"
EXAMPLES = repo_paths.EXAMPLES / "knowledge"
LLM = ["--llm-model", "fake", "--llm-cache", "off"]


@pytest.fixture(scope="module")
def app():
    return command_line(knowledge)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("knowledge_models")
    # constant NLI output: softmax(ln 0.6, ln 0.3, ln 0.1) = (0.6, 0.3, 0.1)
    nli = build_nli_classifier(root / "nli", {0: "entailment", 1: "neutral", 2: "contradiction"},
                               bias=[math.log(0.6), math.log(0.3), math.log(0.1)])
    # constant relevance logit 0 -> sigmoid 0.5
    ranker = build_nli_classifier(root / "ranker", {0: "LABEL_0"}, bias=[0.0])
    lm = root / "lm"
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, ".", ",", ":", "?"]
    BertTokenizer(vocab=dict(zip(vocab, range(len(vocab)))), bos_token="[CLS]").save_pretrained(lm)
    torch.manual_seed(0)
    GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=256, n_embd=32, n_layer=2, n_head=2)).save_pretrained(lm)
    return {"nli": nli, "ranker": ranker, "lm": lm}


def _run(app, *args):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def _rows(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def test_score_all_metrics_with_tiny_models_and_resume(app, models, tmp_path):
    out = tmp_path / "scored.jsonl"
    args = ["knowledge", "score", EXAMPLES / "records.jsonl", "--corpus", EXAMPLES / "corpus.jsonl", "-o", out,
            "--checker", f"nli:{models['nli']}", "--relevance-model", models["ranker"], "--lm", models["lm"],
            "--evidence-k", 3, "--batch-size", 4]
    result = _run(app, *args)
    assert result.exit_code == 0, result.output
    rows = _rows(out)
    assert [r["id"] for r in rows] == ["nq-1", "nq-2", "nq-3", "nq-4", "wow-1", "wow-2"]
    for row in rows:
        # every evidence gives (0.6, 0.3, 0.1), so every aggregate of eq. 1 is that vector
        assert (row["factuality"]["consistent"], row["factuality"]["non_verified"]) == pytest.approx((0.6, 0.3), abs=1e-5)
        assert row["relevance"] == pytest.approx(0.5)
        assert row["validity"] == pytest.approx(0.6, abs=1e-5)
        assert 0 <= row["coherence_paragraph"] <= 1 and 0 < row["coherence_sentence"] < 1
        assert 0 < row["informativeness"] < 1 and row["helpfulness"] >= 0
        expected = 0.25 * (0.6 + 0.5 + row["coherence_paragraph"] + row["informativeness"])
        assert row["q_know"] == pytest.approx(expected, abs=1e-5)
        assert row["not_computed"] == {}
        assert len(row["sentences"][0]["evidence"]) > 0
    again = _run(app, *args)
    assert again.exit_code == 0 and len(_rows(out)) == 6


def test_score_reports_bad_records_and_missing_parts(app, tmp_path):
    out, summary = tmp_path / "scored.jsonl", tmp_path / "summary.json"
    result = _run(app, "knowledge", "score", DATA / "records.jsonl", "-o", out, "--checker", "none",
                  "--relevance-model", "none", "--coherence-model", "none", "--lm", "none", "--summary", summary)
    assert result.exit_code == 0, result.output
    assert "records.jsonl:4" in result.output and "query" in result.output
    rows = _rows(out)
    assert len(rows) == 3
    figures = json.loads(summary.read_text(encoding="utf-8"))
    assert figures["new_records"] == 3 and "results" not in figures
    assert "`corpus`" in rows[0]["not_computed"]["factuality"] and rows[0]["factuality"] is None
    assert "`lm" in rows[0]["not_computed"]["informativeness"]


def test_missing_corpus_and_model_give_clear_errors(app, tmp_path):
    with pytest.raises(InputError, match="`corpus`"):
        _run(app, "knowledge", "score", DATA / "records.jsonl", "--corpus", tmp_path / "nowhere.jsonl", "--checker", "none")
    with pytest.raises(ConfigError, match="`lm`"):
        _run(app, "knowledge", "score", DATA / "records.jsonl", "--lm", tmp_path / "no-model", "--checker", "none",
             "--relevance-model", "none", "--coherence-model", "none")
    refused = _run(app, "knowledge", "score", DATA / "records.jsonl", "--weights", "1,2", "--checker", "none")
    assert refused.exit_code == 2 and "Invalid value for '--weights'" in refused.output


def test_lm_endpoint_scores_through_completions(app, fake_llm, monkeypatch, tmp_path):
    from fake_llm import Logprobs

    monkeypatch.setenv("FACTSCOPE_LLM_BASE_URL", fake_llm.base_url)

    def responder(request):
        prompt = request["json"]["prompt"] if "json" in request else request["prompt"]
        words = prompt.replace("\n", " \n").split(" ")
        tokens = [words[0]] + [" " + w for w in words[1:]]
        return Logprobs(tokens, [None] + [-0.5] * (len(tokens) - 1))

    fake_llm.responder = responder
    records = tmp_path / "one.jsonl"
    records.write_text(json.dumps({"id": "a", "query": "who wrote it", "knowledge": "Billy Hill wrote it."}) + "\n")
    out = tmp_path / "scored.jsonl"
    result = _run(app, "knowledge", "score", records, "-o", out, "--lm", "endpoint", "--checker", "none",
                  "--relevance-model", "none", "--coherence-model", "none", *LLM)
    assert result.exit_code == 0, result.output
    (row,) = _rows(out)
    # every scored token has ln P = -0.5: informativeness = 1 - exp(-0.5); 1 / PPL = exp(-0.5)
    assert row["informativeness"] == pytest.approx(1 - math.exp(-0.5))
    assert row["coherence_sentence"] == pytest.approx(math.exp(-0.5))
    assert all(r["json"]["echo"] is True for r in fake_llm.requests)


def test_agree_matches_somers_d(app, tmp_path):
    from scipy import stats

    scores = tmp_path / "scores.jsonl"
    fact = [0.9, 0.1, 0.8, 0.95, 0.7, 0.3]
    ids = ["nq-1", "nq-2", "nq-3", "nq-4", "wow-1", "wow-2"]
    scores.write_text("".join(json.dumps({"id": i, "factuality": {"consistent": f, "non_verified": 0, "inconsistent": 0},
                                          "validity": f}) + "\n" for i, f in zip(ids, fact)))
    out = tmp_path / "agree.json"
    result = _run(app, "knowledge", "agree", scores, EXAMPLES / "human.jsonl", "-o", out)
    assert result.exit_code == 0, result.output
    figures = {(r["dimension"], r["metric"]): r for r in json.loads(out.read_text())}
    human = [2, 0, 2, 2, 2, 1]
    # ratings 2,0,2,2,2,1 vs scores: pairs untied on X: (2,0) x4, (2,1) x4, (1,0) x1 = 9; every one concordant
    # except (rating 2 score 0.7? no: 0.7 > 0.3 and > 0.1) -> D = 9/9 = 1.0
    assert figures[("factuality", "factuality")]["somers_d"] == pytest.approx(1.0)
    assert figures[("factuality", "factuality")]["somers_d"] == pytest.approx(stats.somersd(human, fact).statistic)
    assert figures[("factuality", "factuality")]["n"] == 6
    assert "Somers" in result.stdout
    assert "† p < 0.05, as in the paper's Table 9" in result.stdout  # the table's caption


def test_agree_with_no_overlap_is_an_error(app, tmp_path):
    scores = tmp_path / "scores.jsonl"
    scores.write_text(json.dumps({"id": "other", "relevance": 0.5}) + "\n")
    with pytest.raises(InputError, match="ids"):
        _run(app, "knowledge", "agree", scores, EXAMPLES / "human.jsonl")


def test_generate_zero_shot_with_answers_on_fake_llm(app, fake_llm, monkeypatch, tmp_path):
    monkeypatch.setenv("FACTSCOPE_LLM_BASE_URL", fake_llm.base_url)
    queries = tmp_path / "queries.jsonl"
    queries.write_text(json.dumps({"id": "q", "query": "who wrote the glory of love", "topic": "The Glory of Love"}) + "\n")
    fake_llm.script(["The Glory of Love was written by Billy Hill.", "Billy Hill\nQuery: more"])
    out = tmp_path / "gen.jsonl"
    result = _run(app, "knowledge", "generate", queries, "-o", out, "--answer", *LLM)
    assert result.exit_code == 0, result.output
    (row,) = _rows(out)
    assert row["knowledge"] == "The Glory of Love was written by Billy Hill." and row["answer"] == "Billy Hill"
    prompt = fake_llm.requests[0]["json"]["messages"][0]["content"]
    assert prompt == ("Topic: The Glory of Love\nGenerate a Wikipedia to answer the given question.\n"
                      "Question: who wrote the glory of love\nWikipedia:")
    answer_prompt = fake_llm.requests[1]["json"]["messages"][0]["content"]
    assert answer_prompt.endswith("Passage: The Glory of Love was written by Billy Hill.\nQuery: who wrote the glory of love\nAnswer:")


def test_select_keeps_argmax_q_know(app, fake_llm, models, monkeypatch, tmp_path):
    monkeypatch.setenv("FACTSCOPE_LLM_BASE_URL", fake_llm.base_url)
    queries = tmp_path / "queries.jsonl"
    queries.write_text(json.dumps({"id": "q", "query": "who first climbed mount everest"}) + "\n")
    candidates = ["Everest is tall.", "Mount Everest was first climbed in 1953.", "Paris is the capital of France."]
    by_seed = {i: text for i, text in enumerate(candidates)}
    fake_llm.responder = lambda request: by_seed[request["seed"]]
    out = tmp_path / "sel.jsonl"
    result = _run(app, "knowledge", "select", queries, "-o", out, "--candidates", 3, "--corpus", EXAMPLES / "corpus.jsonl",
                  "--checker", f"nli:{models['nli']}", "--relevance-model", "bi-encoder", "--lm", models["lm"], *LLM)
    assert result.exit_code == 0, result.output
    (row,) = _rows(out)
    q = [c["q_know"] for c in row["candidates"]]
    assert all(v is not None for v in q), json.dumps(row)
    assert row["selected"] == int(np.argmax(q)) and row["knowledge"] == candidates[row["selected"]]
    sent = [r["json"] for r in fake_llm.requests]
    assert sorted(r["seed"] for r in sent) == [0, 1, 2] and all(r["top_p"] == 0.9 for r in sent)


def test_generate_few_shot_needs_train_and_uses_its_examples(app, fake_llm, monkeypatch, tmp_path):
    monkeypatch.setenv("FACTSCOPE_LLM_BASE_URL", fake_llm.base_url)
    with pytest.raises(ConfigError, match="needs `train`"):
        _run(app, "knowledge", "generate", EXAMPLES / "records.jsonl", "--mode", "few", "-o", tmp_path / "x.jsonl", *LLM)
    fake_llm.responder = lambda request: "Some knowledge."
    out = tmp_path / "few.jsonl"
    result = _run(app, "knowledge", "generate", DATA / "records.jsonl", "--mode", "few", "--train", EXAMPLES / "records.jsonl",
                  "--shots", 2, "-o", out, *LLM)
    assert result.exit_code == 0, result.output
    assert [r["knowledge"] for r in _rows(out)] == ["Some knowledge."] * 4
    prompt = fake_llm.requests[0]["json"]["messages"][0]["content"]
    assert prompt.count("Related Wikipedia knowledge:") == 3 and prompt.endswith("Related Wikipedia knowledge:")


def test_generate_with_demonstrations_chosen_by_q_know(app, fake_llm, models, monkeypatch, tmp_path):
    monkeypatch.setenv("FACTSCOPE_LLM_BASE_URL", fake_llm.base_url)
    fake_llm.responder = lambda request: "Some knowledge."
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"id": "q", "query": "who wrote the glory of love"}) + "\n")
    out = tmp_path / "few.jsonl"
    result = _run(app, "knowledge", "generate", queries, "--mode", "few", "--train", EXAMPLES / "records.jsonl",
                  "--select-from", 4, "--shots", 2, "--corpus", EXAMPLES / "corpus.jsonl", "--checker", f"nli:{models['nli']}",
                  "--lm", models["lm"], "-o", out, *LLM)
    assert result.exit_code == 0, result.output
    assert "chosen by Q_know" in result.output
    prompt = fake_llm.requests[0]["json"]["messages"][0]["content"]
    assert prompt.count("Related Wikipedia knowledge:") == 3
