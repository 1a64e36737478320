"""Knowledge generation and CONNER-guided selection (CONNER section 5, Appendix F-G) on the fake LLM server."""

from __future__ import annotations

import numpy as np
import pytest

from factscope.conner.data import KnowledgeRecord
from factscope.conner.generation import (
    GenerationSettings,
    KnowledgeGenerator,
    keep_best_candidates,
    sample_demonstrations,
    select_demonstrations,
)
from factscope.conner.scores import KnowledgeScores
from factscope.conner.templates import few_shot_prompt, fill
from factscope.llm.client import LLMClient, LLMConfig
from fake_llm import Fail


def _client(server) -> LLMClient:
    return LLMClient(LLMConfig(base_url=server.base_url, model="fake", max_retries=0, cache_path=None))


TRAIN = [
    KnowledgeRecord(id=f"t{i}", query=f"question {i}", knowledge=f"knowledge {i}.", answer=f"answer {i}", topic=f"topic {i}")
    for i in range(6)
]
TEST = KnowledgeRecord(id="x", query="who wrote the glory of love", topic="The Glory of Love")


def test_fill_drops_lines_whose_fields_are_missing():
    assert fill("Topic: {topic}\nQuery: {query}", topic=None, query="q") == "Query: q"


def test_few_shot_prompt_follows_appendix_f2():
    prompt = few_shot_prompt(TEST, TRAIN[:2])
    assert prompt == (
        "Topic: topic 0\nQuery: question 0\nRelated Wikipedia knowledge: knowledge 0.\n"
        "Topic: topic 1\nQuery: question 1\nRelated Wikipedia knowledge: knowledge 1.\n"
        "Topic: The Glory of Love\nQuery: who wrote the glory of love\nRelated Wikipedia knowledge:"
    )


def test_failed_reply_is_kept_and_marked(fake_llm):
    fake_llm.script([Fail(400, "bad request")])
    (result,) = KnowledgeGenerator(_client(fake_llm)).generate([TEST])
    assert result.failed and result.knowledge is None
    assert result.candidates[0].failed and "400" in result.candidates[0].error and result.candidates[0].raw


def test_few_shot_generation_and_answers(fake_llm):
    fake_llm.script(["Billy Hill wrote it.", "Billy Hill"])
    generator = KnowledgeGenerator(_client(fake_llm), GenerationSettings(mode="few"))
    demos = sample_demonstrations(TRAIN, 2, seed=1)
    generated = generator.generate([TEST], demos)
    generator.answer([TEST], generated, demos)
    assert generated[0].knowledge == "Billy Hill wrote it." and generated[0].answer == "Billy Hill"
    first = fake_llm.requests[0]["json"]
    assert first["temperature"] == 0.0 and "seed" not in first
    answer_prompt = fake_llm.requests[1]["json"]["messages"][0]["content"]
    assert answer_prompt.count("Answer:") == 3 and answer_prompt.endswith("Query: who wrote the glory of love\nAnswer:")


class RankByLength:
    """An evaluator stand-in whose Q_know is the knowledge length (None for texts containing 'unscorable')."""

    def score(self, records, pool=None):
        return [
            KnowledgeScores(id=r.id, q_know=None if "unscorable" in r.knowledge else float(len(r.knowledge)),
                            not_computed={"q_know": "needs factuality"} if "unscorable" in r.knowledge else {})
            for r in records
        ]


def test_keep_best_candidates_keeps_argmax(fake_llm):
    texts = ["short.", "the longest candidate text.", "unscorable and very long text here"]
    fake_llm.responder = lambda request: texts[request["seed"]]
    generator = KnowledgeGenerator(_client(fake_llm), GenerationSettings(candidates=3, seed=0))
    generated = generator.generate([TEST])
    keep_best_candidates([TEST], generated, RankByLength())
    item = generated[0]
    assert [c.q_know for c in item.candidates] == [6.0, 27.0, None]
    assert item.selected == 1 and item.knowledge == texts[1]


def test_select_demonstrations_top_n_of_m():
    chosen, choice = select_demonstrations(TRAIN, RankByLength(), m=4, n=2, seed=0)
    sample = sample_demonstrations(TRAIN, 4, seed=0)
    assert {r.id for r in chosen} <= {r.id for r in sample} and len(chosen) == 2
    assert choice.selected == [r.id for r in chosen]
    scores = np.array([len(r.knowledge) for r in sample], dtype=float)
    assert [choice.scores[r.id] for r in chosen] == sorted(scores, reverse=True)[:2]


def test_sample_demonstrations_is_seeded():
    assert sample_demonstrations(TRAIN, 3, seed=5) == sample_demonstrations(TRAIN, 3, seed=5)
    assert len(sample_demonstrations(TRAIN, 30)) == len(TRAIN)


@pytest.fixture(scope="module")
def minilm():
    from factscope.hf.encoders import BiEncoder

    return BiEncoder()


def test_bi_encoder_relevance_and_coherence_proxy(minilm):
    from factscope.conner.coherence import AdjacentSimilarityCoherence
    from factscope.conner.relevance import BiEncoderRelevance

    relevance = BiEncoderRelevance(minilm).score(
        [("who wrote the glory of love", "The Glory of Love is a song written by Billy Hill."),
         ("who wrote the glory of love", "Mount Everest is the highest mountain on Earth.")]
    )
    assert relevance[0] > relevance[1] and 0 <= relevance[1] <= 1
    coherent = ["Mount Everest is the highest mountain.", "Everest was first climbed in 1953."]
    jumbled = ["Mount Everest is the highest mountain.", "Python is a programming language."]
    scores = AdjacentSimilarityCoherence(minilm).score([coherent, jumbled, ["One sentence."]])
    assert scores[0] > scores[1] and scores[2] == 1.0
    # one transition: the score is the clipped cosine of the pair
    expected = max(0.0, float(minilm.cosine([coherent[0]], [coherent[1]])[0]))
    assert scores[0] == pytest.approx(expected, abs=1e-6)
