"""The knowledge task (CONNER): records, evidence retrieval, and each metric composed from its parts."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from transformers import BertTokenizer, GPT2Config, GPT2LMHeadModel

import repo_paths
from factscope.conner.data import KnowledgeRecord, read_knowledge_records
from factscope.conner.evaluator import KnowledgeEvaluator, KnowledgeSettings
from factscope.conner.templates import answer_pair, informativeness_pair
from factscope.core.errors import InputError
from factscope.core.schema import Label, Verdict
from factscope.hf.causal_lm import HFCausalLM
from factscope.metrics import conner
from factscope.retrieve.corpus import BM25Retriever, Corpus
from fake_scorers import WORD, WordChecker

DATA = repo_paths.DATA / "knowledge"


@pytest.fixture(scope="module")
def records() -> list[KnowledgeRecord]:
    return [item for _, item in read_knowledge_records(DATA / "records.jsonl") if isinstance(item, KnowledgeRecord)]


@pytest.fixture(scope="module")
def retriever() -> BM25Retriever:
    return BM25Retriever(Corpus.from_path(DATA / "corpus.jsonl"))


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("tiny_gpt2_knowledge")
    words = sorted({w for line in (DATA / "records.jsonl").read_text().lower().splitlines() for w in WORD.findall(line)})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ":", ".", "?", ",", *words]
    BertTokenizer(vocab=dict(zip(vocab, range(len(vocab)))), bos_token="[CLS]").save_pretrained(folder)
    torch.manual_seed(1)
    GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=128, n_embd=32, n_layer=2, n_head=2)).save_pretrained(folder)
    return str(folder)


def test_reader_reports_bad_records_with_line_and_field():
    items = list(read_knowledge_records(DATA / "records.jsonl"))
    errors = {line: item for line, item in items if isinstance(item, InputError)}
    assert set(errors) == {4, 5, 6}
    assert errors[4].field == "query" and "records.jsonl:4" in str(errors[4])
    assert "broken JSON" in str(errors[5])
    assert errors[6].field == "knowledge"
    kept = [item for _, item in items if isinstance(item, KnowledgeRecord)]
    assert [r.id for r in kept] == ["q1", "q2", "d1"] and kept[2].task == "dialogue"


def test_factuality_per_sentence_best_evidence_and_min(records, retriever):
    checker = WordChecker()
    evaluator = KnowledgeEvaluator(checker=checker, retriever=retriever, settings=KnowledgeSettings(evidence_k=2))
    (q1,) = evaluator.score(records[:1])
    # sentence 1 is entailed by doc "glory" -> (0.9, 0.1, 0.0)
    # sentence 2 ("recorded by Elvis Presley") has no supporting passage: its best evidence has E = 0.2 -> (0.2, 0.7, 0.1)
    # min along entailment -> sentence 2's vector
    assert q1.sentences[0].doc_id == "glory"
    assert q1.sentences[0].probs == pytest.approx((0.9, 0.1, 0.0))
    assert (q1.factuality.consistent, q1.factuality.non_verified, q1.factuality.inconsistent) == pytest.approx((0.2, 0.7, 0.1))
    # l = 2 evidence passages per sentence, every (evidence, sentence) pair checked once; + 1 validity task
    assert len([t for t in checker.tasks if t.claim.startswith("The")]) == 4 and len(checker.tasks) == 5
    mean = KnowledgeEvaluator(checker=WordChecker(), retriever=retriever, settings=KnowledgeSettings(evidence_k=2, aggregate="mean"))
    # mean: ((0.9 + 0.2) / 2, (0.1 + 0.7) / 2, (0.0 + 0.1) / 2) = (0.55, 0.4, 0.05)
    (q1_mean,) = mean.score(records[:1])
    assert q1_mean.factuality.consistent == pytest.approx(0.55)
    assert q1_mean.factuality.non_verified == pytest.approx(0.4)


def test_contradicted_sentence_is_inconsistent(retriever):
    record = KnowledgeRecord(id="x", query="when was the eiffel tower finished", knowledge="The Eiffel Tower in Paris was finished in 1925.")
    one = KnowledgeEvaluator(checker=WordChecker(), retriever=retriever, settings=KnowledgeSettings(evidence_k=1))
    (result,) = one.score([record])
    assert result.sentences[0].doc_id == "eiffel"
    assert result.factuality.inconsistent == pytest.approx(0.7)
    # with l = 5 the best-entailing evidence (max_j along entailment, eq. 1) is a neutral passage (E 0.2 > 0.1)
    (wider,) = KnowledgeEvaluator(checker=WordChecker(), retriever=retriever).score([record])
    assert (wider.factuality.consistent, wider.factuality.non_verified) == pytest.approx((0.2, 0.7))


def test_failed_verdicts_are_skipped_and_reported(records, retriever):
    class Failing:
        name = "failing"

        def check(self, tasks):
            return [Verdict(label=None, failed=True, raw="???", error="unparseable") for _ in tasks]

    (q2,) = KnowledgeEvaluator(checker=Failing(), retriever=retriever).score(records[1:2])
    assert q2.factuality is None and "failed" in q2.not_computed["factuality"]
    assert q2.sentences[0].failed_checks == 5
    assert q2.validity is None and "failed" in q2.not_computed["validity"]


def test_label_only_verdicts_count_as_one_hot(records, retriever):
    class LabelOnly:
        name = "labels"

        def check(self, tasks):
            return [Verdict(label=Label.ENTAILMENT if "Paris" in t.references[0] else Label.NEUTRAL) for t in tasks]

    (q2,) = KnowledgeEvaluator(checker=LabelOnly(), retriever=retriever).score(records[1:2])
    assert q2.factuality.consistent == 1.0


def test_validity_span_and_open_ended(records, retriever):
    checker = WordChecker()
    results = KnowledgeEvaluator(checker=checker, retriever=retriever).score(records)
    # q1 (qa): premise "q Billy Hill" entails hypothesis "q Billy Hill" -> 0.9 (eq. 7)
    span_task = next(t for t in checker.tasks if t.references[0].endswith("Billy Hill") and t.claim.startswith("who"))
    assert span_task.references == ("who wrote the song the glory of love Billy Hill",)
    assert results[0].validity == pytest.approx(0.9)
    # d1 (dialogue): the answer is retrieved against the corpus, best entailment 0.9 (eq. 8)
    assert results[2].validity == pytest.approx(0.9)


def test_missing_parts_are_reported_not_zeroed(records):
    (result,) = KnowledgeEvaluator().score(records[:1])
    for metric in ("factuality", "relevance", "coherence_paragraph", "coherence_sentence", "informativeness", "helpfulness", "validity", "q_know"):
        assert result.value(metric) is None, metric
        assert metric in result.not_computed
    assert "`corpus`" in result.not_computed["factuality"]
    assert "`lm`" in result.not_computed["informativeness"]


def _direct(lm_folder: str, context: str, continuation: str) -> np.ndarray:
    """Token log-probs with plain torch on one unpadded sequence."""
    tok = BertTokenizer.from_pretrained(lm_folder)
    model = GPT2LMHeadModel.from_pretrained(lm_folder).eval()
    context_ids = tok(context, add_special_tokens=False)["input_ids"] if context else [tok.cls_token_id]
    ids = context_ids + tok(continuation, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logprobs = torch.log_softmax(model(torch.tensor([ids])).logits[0], dim=-1)
    return np.array([logprobs[t - 1, ids[t]].item() for t in range(len(context_ids), len(ids))])


def test_lm_metrics_match_the_equations(records, tiny_lm):
    evaluator = KnowledgeEvaluator(lm=HFCausalLM(tiny_lm), settings=KnowledgeSettings(baselines=2, seed=3))
    results = evaluator.score(records)
    q1, q1_result = records[0], results[0]
    # eq. 5: 1 - exp(mean ln P(k_t | k_<t, q))
    info = _direct(tiny_lm, *informativeness_pair(q1))
    assert q1_result.informativeness == pytest.approx(1 - math.exp(info.mean()), abs=1e-6)
    # eq. 3: mean over sentences of 1 / PPL(s_i), PPL = exp(-mean ln P)
    sentences = ["The Glory of Love is a song written by Billy Hill in 1936.", "The song was recorded by Elvis Presley."]
    inverse_ppl = [math.exp(_direct(tiny_lm, "", s).mean()) for s in sentences]
    assert q1_result.coherence_sentence == pytest.approx(sum(inverse_ppl) / 2, abs=1e-6)
    # eq. 6: the two baselines are the other records' knowledge (u = 2, pool of 3)
    negatives = evaluator._baseline_knowledge(q1, [r.knowledge for r in records])
    assert sorted(negatives) == sorted([records[1].knowledge, records[2].knowledge])
    loss = -_direct(tiny_lm, *answer_pair(q1, q1.knowledge, q1.answer)).mean()
    baseline = np.mean([-_direct(tiny_lm, *answer_pair(q1, k, q1.answer)).mean() for k in negatives])
    assert q1_result.helpfulness == pytest.approx(max(0.0, 1 - loss / baseline), abs=1e-6)


def test_helpfulness_baseline_is_seeded_and_excludes_own_knowledge(records):
    pool = [f"knowledge {i}" for i in range(10)] + [records[0].knowledge]
    first = KnowledgeEvaluator(settings=KnowledgeSettings(baselines=3, seed=7))._baseline_knowledge(records[0], pool)
    again = KnowledgeEvaluator(settings=KnowledgeSettings(baselines=3, seed=7))._baseline_knowledge(records[0], pool)
    other = KnowledgeEvaluator(settings=KnowledgeSettings(baselines=3, seed=8))._baseline_knowledge(records[0], pool)
    assert first == again and len(first) == 3 and records[0].knowledge not in first
    assert first != other or len(set(pool)) <= 4


def test_helpfulness_needs_an_answer_and_other_knowledge(records, tiny_lm):
    lone = records[0].model_copy(update={"answer": None})
    (result,) = KnowledgeEvaluator(lm=HFCausalLM(tiny_lm)).score([lone], pool=[lone.knowledge])
    assert "answer" in result.not_computed["helpfulness"]
    (result,) = KnowledgeEvaluator(lm=HFCausalLM(tiny_lm)).score(records[:1], pool=[records[0].knowledge])
    assert "baseline" in result.not_computed["helpfulness"]
    assert result.informativeness is not None


def test_q_know_from_all_four_intrinsic_scores(records, retriever, tiny_lm):
    class Fixed:
        name = "fixed"

        def __init__(self, value):
            self.value = value

        def score(self, items):
            return np.full(len(items), self.value) if isinstance(items[0], tuple) else [self.value] * len(items)

    settings = KnowledgeSettings(weights=(0.4, 0.3, 0.2, 0.1))
    evaluator = KnowledgeEvaluator(
        checker=WordChecker(), retriever=retriever, relevance=Fixed(0.5), coherence=Fixed(0.8), lm=HFCausalLM(tiny_lm), settings=settings
    )
    (q2,) = evaluator.score(records[1:2], pool=[r.knowledge for r in records])
    expected = 0.4 * q2.factuality.consistent + 0.3 * 0.5 + 0.2 * 0.8 + 0.1 * q2.informativeness
    assert q2.q_know == pytest.approx(expected)
    assert conner.q_know([q2.factuality.consistent, 0.5, 0.8, q2.informativeness], settings.weights) == pytest.approx(q2.q_know)


def test_cross_encoder_relevance_and_classifier_coherence_normalise(tmp_path):
    from factscope.conner.coherence import ClassifierCoherence
    from factscope.conner.relevance import CrossEncoderRelevance
    from tiny_models import build_nli_classifier

    # one logit 2.0 -> sigmoid(2) = 1 / (1 + e^-2) = 0.8808
    one = build_nli_classifier(tmp_path / "one", {0: "LABEL_0"}, bias=[2.0])
    assert CrossEncoderRelevance(str(one)).score([("q", "k"), ("q", "k")]) == pytest.approx([0.8808, 0.8808], abs=1e-4)
    # two logits (0, ln 3) -> softmax = (0.25, 0.75); the relevant / coherent class is the second
    two = build_nli_classifier(tmp_path / "two", {0: "incoherent", 1: "coherent"}, bias=[0.0, math.log(3)])
    assert CrossEncoderRelevance(str(two)).score([("q", "k")]) == pytest.approx([0.75])
    assert ClassifierCoherence(str(two)).score([["a sentence.", "another."]]) == pytest.approx([0.75])
