"""The writers through the Python API (``factscope.generate_responses``, ``generate_answers``, ``make_questions``,
``generate_knowledge``, ``select_knowledge``, ``agree``) on the fake LLM server: the manifest records the writer,
the LLM and the options set away from their defaults; a rerun resumes without writing a record twice or calling
the LLM again; a rerun with other settings is refused."""

from __future__ import annotations

import json

import pytest

import factscope
import repo_paths
from factscope.conner.spec import KnowledgeSpec
from factscope.core.files.manifest import ResultsMismatch, manifest_path
from factscope.core.schema import Label, Verdict
from factscope.llm.client import LLMClient, LLMConfig

EXAMPLES = repo_paths.EXAMPLES


def _client(server):
    return LLMClient(LLMConfig(base_url=server.base_url, model="fake", max_retries=0, cache_path=None))


def _manifest(output):
    return json.loads(manifest_path(output).read_text())


def _ids(output):
    return [json.loads(line)["id"] for line in output.read_text().splitlines()]


def test_generate_responses_records_its_settings_resumes_and_refuses_other_settings(fake_llm, tmp_path):
    fake_llm.responder = lambda request: "It closed in 1972."
    out = tmp_path / "responses.jsonl"
    dataset, metadata = EXAMPLES / "ground" / "original.json", EXAMPLES / "ground" / "metadata.json"
    run = factscope.generate_responses(dataset, llm=_client(fake_llm), metadata=metadata, output=out, max_tokens=64)
    manifest = _manifest(out)
    assert manifest["system"] == "ground generate" and manifest["settings"]["max_tokens"] == 64
    assert manifest["settings"]["llm"]["model"] == "fake" and "batch_size" not in manifest["settings"]
    assert run.new_records == len(_ids(out)) > 0 and run.failed == 0
    sent = len(fake_llm.requests)
    again = factscope.generate_responses(dataset, llm=_client(fake_llm), metadata=metadata, output=out, max_tokens=64)
    assert (again.new_records, again.resumed_records) == (0, run.new_records) and len(fake_llm.requests) == sent
    assert len(_ids(out)) == len(set(_ids(out))) == run.new_records
    with pytest.raises(ResultsMismatch, match="max_tokens"):
        factscope.generate_responses(dataset, llm=_client(fake_llm), metadata=metadata, output=out, max_tokens=32)


def test_generate_answers_and_make_questions_resume_and_refuse_other_settings(fake_llm, tmp_path):
    fake_llm.responder = lambda request: (
        "Generated Answer: Text [Q7259, father: Lord Byron].\nGenerated Question: Q?"
        if "Question Generator" in request["messages"][0]["content"] else "An answer [NA]."
    )
    graph, answers, questions = EXAMPLES / "attribute" / "graph.jsonl", tmp_path / "a.jsonl", tmp_path / "q.jsonl"
    made = factscope.make_questions(EXAMPLES / "attribute" / "seeds.jsonl", llm=_client(fake_llm), graph=graph,
                                    rounds=2, output=questions)
    assert made.new_records == 2 and _manifest(questions)["settings"]["rounds"] == 2
    assert "graph" not in _manifest(questions)["settings"]
    run = factscope.generate_answers(EXAMPLES / "attribute" / "questions.jsonl", llm=_client(fake_llm), graph=graph,
                                     temperature=0.5, output=answers)
    assert _manifest(answers)["system"] == "attribute generate" and _manifest(answers)["settings"]["temperature"] == 0.5
    sent = len(fake_llm.requests)
    again = factscope.generate_answers(EXAMPLES / "attribute" / "questions.jsonl", llm=_client(fake_llm), graph=graph,
                                       temperature=0.5, output=answers)
    assert again.resumed_records == run.new_records == len(set(_ids(answers))) and len(fake_llm.requests) == sent
    with pytest.raises(ResultsMismatch, match="setting 'remove'"):
        factscope.generate_answers(EXAMPLES / "attribute" / "questions.jsonl", llm=_client(fake_llm), graph=graph,
                                   temperature=0.5, remove=1, output=answers)
    with pytest.raises(ResultsMismatch, match="setting 'rounds'"):
        factscope.make_questions(EXAMPLES / "attribute" / "seeds.jsonl", llm=_client(fake_llm), graph=graph, rounds=3,
                                 output=questions)


def test_generate_and_select_knowledge_resume_and_refuse_other_settings(fake_llm, tmp_path):
    fake_llm.responder = lambda request: f"Knowledge number {request.get('seed', 0)}, a longer one." * (
        1 + request.get("seed", 0))
    queries, out = tmp_path / "queries.jsonl", tmp_path / "k.jsonl"
    queries.write_text("".join(json.dumps({"id": f"q{i}", "query": f"who wrote song {i}"}) + "\n" for i in range(3)))
    run = factscope.generate_knowledge(queries, llm=_client(fake_llm), answer=True, output=out)
    assert (run.records, run.new_records, run.failed) == (3, 3, 0)
    assert _manifest(out)["system"] == "knowledge generate"
    assert _manifest(out)["settings"]["demonstrations"]["answer"] is True
    sent = len(fake_llm.requests)
    assert factscope.generate_knowledge(queries, llm=_client(fake_llm), answer=True, output=out).resumed_records == 3
    assert len(fake_llm.requests) == sent and len(set(_ids(out))) == 3
    with pytest.raises(ResultsMismatch, match="demonstrations"):
        factscope.generate_knowledge(queries, llm=_client(fake_llm), output=out)

    class RankByLength:
        def score(self, records, pool=None):
            from factscope.conner.scores import KnowledgeScores

            return [KnowledgeScores(id=r.id, q_know=float(len(r.knowledge or ""))) for r in records]

    selected = tmp_path / "selected.jsonl"
    chosen = factscope.select_knowledge(queries, llm=_client(fake_llm), scoring=KnowledgeSpec(evaluator=RankByLength()),
                                        candidates=3, output=selected)
    assert all(row.selected == 2 for row in chosen.results)
    assert _manifest(selected)["settings"]["generation"]["candidates"] == 3


def test_the_few_shot_rule_is_refused_by_the_settings_of_the_api():
    from factscope.core.errors import ConfigError

    with pytest.raises(ConfigError, match="`shots` counts only with `mode='few'`"):
        factscope.generate_knowledge("queries.jsonl", llm=None, shots=3)


class FixedChecker:
    """Labels every claim the same (a transparent stand-in for a model)."""

    name = "fixed"

    def __init__(self, label):
        self.label = label

    def check(self, tasks):
        return [Verdict(label=self.label) for _ in tasks]


def test_agree_writes_resumes_and_refuses_another_mode(tmp_path):
    human = tmp_path / "gpt4_zero.json"
    human.write_text(json.dumps([
        {"id": str(i), "response": "r", "gpt4_response_kg": [{"triplet": ["x", "is", str(i)],
                                                              "human_label": "Entailment"}]}
        for i in range(3)
    ]))
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps({"id": str(i), "question": "q", "reference": "x is 1"}) + "\n"
                               for i in range(3)))
    out, report = tmp_path / "agree.jsonl", tmp_path / "report.json"
    first = factscope.agree([human], input=[records], checker=FixedChecker(Label.ENTAILMENT), output=out,
                            report=report)
    assert (first.new_responses, first.accuracy) == (3, 1.0) and json.loads(report.read_text())["claims"] == 3
    assert _manifest(out)["system"] == "agree" and _manifest(out)["settings"]["checker"]["type"] == "FixedChecker"
    second = factscope.agree([human], input=[records], checker=FixedChecker(Label.ENTAILMENT), output=out)
    assert (second.new_responses, second.resumed_responses) == (0, 3) and len(_ids(out)) == 3
    with pytest.raises(ResultsMismatch, match="setting 'mode'"):
        factscope.agree([human], input=[records], checker=FixedChecker(Label.ENTAILMENT), extractor="sentences",
                        mode="pipeline", output=out)


def test_every_writer_is_in_the_api():
    for name in ("generate_responses", "generate_answers", "make_questions", "generate_knowledge",
                 "select_knowledge", "agree"):
        assert name in factscope.__all__ and callable(getattr(factscope, name))
