"""Knowledge records that carry their own evidence passages, and the web app's knowledge and grounding pages:
the evidence field of the knowledge form, the embedded LM on the knowledge page, the grounding page's example."""

from __future__ import annotations

import json
from importlib.resources import files

import pytest

from factscope.conner.data import KnowledgeRecord, parse_knowledge_record, read_knowledge_records
from factscope.conner.evaluator import KnowledgeEvaluator, KnowledgeSettings, given_evidence
from factscope.retrieve.corpus import BM25Retriever, Corpus, Document
from fake_scorers import WordChecker
from optional_extras import require_extra

EXAMPLES = files("factscope.examples")
BILLY = ["\"The Glory of Love\" is a song written by Billy Hill.", "Billy Hill was born in Boston in 1899."]


def _record(evidence: list[str] | None, knowledge: str = "The Glory of Love is a song written by Billy Hill.",
            record_id: str = "a") -> KnowledgeRecord:
    return KnowledgeRecord(id=record_id, query="who wrote the glory of love", knowledge=knowledge, evidence=evidence)


def test_a_record_is_checked_against_its_own_evidence_without_a_corpus():
    checker = WordChecker()
    evaluator = KnowledgeEvaluator(checker=checker)
    with_evidence, without = evaluator.score([_record(BILLY), _record(None, record_id="b")])
    # every word of the sentence is in the first passage -> (0.9, 0.1, 0) by the word rule
    assert with_evidence.factuality is not None and with_evidence.factuality.consistent == pytest.approx(0.9)
    assert with_evidence.sentences[0].doc_id == "evidence-1" and with_evidence.sentences[0].evidence == BILLY[0]
    assert without.factuality is None and "evidence" in without.not_computed["factuality"]
    assert {task.references[0] for task in checker.tasks} == set(BILLY)


def test_own_evidence_wins_over_the_corpus_and_the_rest_are_retrieved():
    corpus = Corpus([Document("berlin", "The Glory of Love is a song written by Irving Berlin.")])
    evaluator = KnowledgeEvaluator(checker=WordChecker(), retriever=BM25Retriever(corpus))
    own, retrieved = evaluator.score([_record(BILLY), _record(None, record_id="b")])
    assert own.sentences[0].doc_id == "evidence-1"
    assert retrieved.sentences[0].doc_id == "berlin"


def test_more_passages_than_evidence_k_keep_the_best_by_bm25():
    passages = ["Paris is in France.", "Billy Hill wrote The Glory of Love.", "Everest is high.", "Rome is old."]
    assert [[hit.doc_id for hit in hits] for hits in given_evidence(passages, ["Who wrote the Glory of Love?"], 1)] \
        == [["evidence-2"]]
    assert [hit.doc_id for hit in given_evidence(passages[:2], ["x"], 5)[0]] == ["evidence-1", "evidence-2"]
    evaluator = KnowledgeEvaluator(checker=WordChecker(), settings=KnowledgeSettings(evidence_k=1))
    (scores,) = evaluator.score([_record(passages, knowledge="Billy Hill wrote The Glory of Love.")])
    assert scores.sentences[0].doc_id == "evidence-2"


def test_evidence_is_read_from_records_and_blank_passages_are_dropped():
    record = parse_knowledge_record({"query": "q", "knowledge": "k", "evidence": ["  ", "a passage"]}, line=1)
    assert record.evidence == ["a passage"] and "evidence" not in record.metadata
    assert parse_knowledge_record({"query": "q", "knowledge": "k", "evidence": [" "]}, line=1).evidence is None
    shipped = [item for _, item in read_knowledge_records(EXAMPLES.joinpath("knowledge/with_evidence.jsonl"))]
    assert shipped and all(isinstance(item, KnowledgeRecord) and item.evidence for item in shipped)


def test_the_ground_example_matches_the_truly_ground_layout():
    from factscope.grounding.data import load_dataset

    generic = load_dataset(EXAMPLES.joinpath("ground/records.jsonl"))
    seed = load_dataset(EXAMPLES.joinpath("ground/original.json"), EXAMPLES.joinpath("ground/metadata.json"))
    assert [(e.id, e.question, e.contexts, e.gold_facts) for e in generic.examples] == [
        (e.id, e.question, e.contexts, e.gold_facts) for e in seed.examples
    ]
    responses = [json.loads(line)["response"] for line in
                 EXAMPLES.joinpath("ground/responses.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [e.response for e in generic.examples] == responses


fastapi = pytest.importorskip("fastapi")


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    from fastapi.testclient import TestClient

    from factscope.conner.evaluator_setup import default_lm
    from factscope.serve.app import create_app
    from factscope.serve.config import Components, ServeConfig

    components = Components(knowledge_lm=default_lm(None))
    config = ServeConfig(data_dir=tmp_path_factory.mktemp("serve"), components=components)
    with TestClient(create_app(config, warm=False)) as test_client:
        yield test_client


def test_every_page_fills_in_an_example(client):
    from factscope.systems import SYSTEMS

    for system in SYSTEMS:
        assert system.form.example is not None, system.name
        page = client.get(f"/?system={system.name}&example=1")
        assert page.status_code == 200
        assert f'href="/?system={system.name}&amp;example=1">fill in an example' in page.text
    ground = client.get("/?system=ground&example=1").text
    assert "When did the Harbour Line tramway of Port Elsby close?" in ground
    assert "The Harbour Line tramway closed in 1958." in ground
    knowledge = client.get("/?system=knowledge&example=1").text
    assert 'name="evidence"' in knowledge and "Billy Hill was an American songwriter" in knowledge


def test_the_knowledge_page_checks_the_knowledge_against_the_evidence_field(client):
    first = json.loads(EXAMPLES.joinpath("knowledge/with_evidence.jsonl").read_text(encoding="utf-8").splitlines()[0])
    data = {"query": first["query"], "knowledge": first["knowledge"], "evidence": "\n\n".join(first["evidence"]),
            "answer": first["answer"], "gold_answer": first["gold_answer"]}
    page = client.post("/run/knowledge", data=data)
    assert page.status_code == 200
    factuality = page.text.split(">factuality</th>", 1)[1].split("</tr>", 1)[0]
    assert "n/a" not in factuality
    without = client.post("/run/knowledge", data={**data, "evidence": ""}).text
    assert "n/a" in without.split(">factuality</th>", 1)[1].split("</tr>", 1)[0]


def test_the_knowledge_page_uses_the_embedded_lm_when_installed(client):
    from factscope.hf.embedded_lm import embedded_lm_available

    require_extra(embedded_lm_available(), "lm")
    reply = client.post("/v1/knowledge/score", json={"records": [
        {"id": "a", "query": "who wrote the glory of love", "knowledge": "Billy Hill wrote it. It was a hit."}]})
    assert reply.status_code == 200
    (row,) = reply.json()["results"]
    assert row["informativeness"] is not None and row["coherence_sentence"] is not None
    page = client.post("/run/knowledge", data={"query": "who wrote it", "knowledge": "Billy Hill wrote it."})
    informativeness = page.text.split(">informativeness</th>", 1)[1].split("</tr>", 1)[0]
    assert "n/a" not in informativeness
