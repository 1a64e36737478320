"""Writing from a graph with settings declared once: the ``AnswerWriter`` and the ``QuestionWriter`` read their
files, tell what they found and count it for the summary; ``AttributeSystem(minimum=...)`` scores against gold
sets from a file and refuses Ray; the scoring tables of one group and of several; the usable-records rule."""

import inspect
import json

import pytest

import repo_paths
from factscope import attribute
from factscope.core.errors import ConfigError, InputError
from factscope.core.files.input_notes import report_usable
from factscope.kalma.answers import AnswerRecord, AnswerRecords, LoadedAnswers
from factscope.kalma.generation import AnswerWriter
from factscope.kalma.generation_settings import AnswerGenerationSettings, EvolutionSettings
from factscope.kalma.graphs import prepare, question_retrieval
from factscope.kalma.question_evolution import QuestionWriter
from factscope.kalma.score_tables import group_tables, score_title, single_group_rows
from factscope.kalma.system import AttributeSystem
from factscope.kg.graph import KnowledgeGraph, Triple
from factscope.kg.loaders import entity_from_dict
from factscope.llm.client import LLMClient, LLMConfig
from fake_scorers import ValueInSentence
from kept_notes import KeptNotes

EXAMPLES = repo_paths.EXAMPLES / "attribute"
GRAPH = KnowledgeGraph([entity_from_dict({"qid": "Q1", "name": "Ada Lovelace", "father": "Lord Byron",
                                          "place of birth": "London"})])
FATHER = Triple("Q1", "father", "Lord Byron")
BIRTH = Triple("Q1", "place of birth", "London")


def client(server):
    return LLMClient(LLMConfig(base_url=server.base_url, model="fake", max_retries=0, cache_path=None))


def test_report_usable_tells_the_skipped_and_stops_on_none(tmp_path):
    told = KeptNotes()
    problem = InputError("bad", path=tmp_path / "q.jsonl", line=2)
    report_usable(1, [problem], "questions", tmp_path / "q.jsonl", told)
    assert told.lines == [f"skipped {problem}"]
    with pytest.raises(InputError, match="no usable questions; see the messages above"):
        report_usable(0, [problem], "questions", tmp_path / "q.jsonl", None)
    with pytest.raises(InputError, match=r"no usable answers$"):
        report_usable(0, [], "answers", tmp_path / "a.jsonl", None)


@pytest.mark.parametrize(("function", "settings", "names"), [
    (prepare, AnswerGenerationSettings(), ("remove", "retrieval_accuracy", "seed")),
    (question_retrieval, AnswerGenerationSettings(), ("sparql_endpoint", "sparql_interval")),
])
def test_the_functions_default_to_the_declared_settings(function, settings, names):
    parameters = inspect.signature(function).parameters
    assert {name: parameters[name].default for name in names} == {name: getattr(settings, name) for name in names}


def test_generate_answers_from_a_file_with_its_settings(fake_llm, tmp_path):
    fake_llm.responder = lambda request: "An answer [NA]."
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"id": "curie-1", "minimum": [["Q7186", "spouse", "Pierre Curie"]]}) + "\n")
    told, out = KeptNotes(), tmp_path / "answers.jsonl"
    settings = AnswerGenerationSettings(graph=EXAMPLES / "graph.jsonl", remove=1, temperature=0.7, minimum=gold)
    run = AnswerWriter().write(settings, EXAMPLES / "questions.jsonl", llm=client(fake_llm), output=out, notes=told)
    assert told.lines[:3] == [
        f"graph {EXAMPLES / 'graph.jsonl'}: 6 entities, 67 triples",
        f"minimum knowledge {gold}: 1 of 4 records use its sets",
        f"warning 3 records have no set in {gold} and keep their own: curie-2, lovelace-1, babbage-1",
    ]
    assert run.summary_rows() == [("questions", 4), ("skipped input records", 0), ("answers written", 4),
                                  ("already in output (resumed)", 0), ("generation failures (in the file)", 0)]
    rows = {row["id"]: row for row in map(json.loads, out.read_text().splitlines())}
    # the gold set of curie-1 holds one triple: removing 1 removes it
    assert rows["curie-1"]["removed"] == [["Q7186", "spouse", "Pierre Curie"]]
    assert {request["json"]["temperature"] for request in fake_llm.requests} == {0.7}


def test_generate_answers_counts_skipped_records_and_refuses_a_file_with_none(fake_llm, tmp_path):
    fake_llm.responder = lambda request: "An answer [NA]."
    questions = tmp_path / "q.jsonl"
    lines = (EXAMPLES / "questions.jsonl").read_text().splitlines()
    questions.write_text(lines[0] + "\n{broken\n")
    told = KeptNotes()
    run = AnswerWriter().write(AnswerGenerationSettings(), questions, llm=client(fake_llm), output=tmp_path / "a.jsonl",
                               notes=told)
    assert (run.questions, run.skipped, run.new_records) == (1, 1, 1)
    assert told.lines[0].startswith(f"skipped {questions}:2")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": "a", "question": ""}\n{broken\n')
    with pytest.raises(InputError, match="no usable questions"):
        AnswerWriter().write(AnswerGenerationSettings(), broken, llm=client(fake_llm), output=tmp_path / "b.jsonl")


def test_evolve_questions_from_a_file_with_its_settings(fake_llm, tmp_path):
    fake_llm.responder = lambda request: "Generated Answer: Text [Q7259, father: Lord Byron].\nGenerated Question: Q?"
    told, out = KeptNotes(), tmp_path / "q.jsonl"
    run = QuestionWriter().write(EvolutionSettings(graph=EXAMPLES / "graph.jsonl", rounds=2), EXAMPLES / "seeds.jsonl",
                                 llm=client(fake_llm), output=out, notes=told)
    assert told.lines == [f"graph {EXAMPLES / 'graph.jsonl'}: 6 entities, 67 triples"]
    assert run.summary_rows() == [("seed paragraphs", 2), ("skipped input records", 0), ("questions written", 2),
                                  ("already in output (resumed)", 0), ("failed (kept raw, marked)", 0)]
    # two seeds, two rounds each: one call per seed and round
    assert len(fake_llm.requests) == 4
    assert all(len(json.loads(line)["rounds"]) == 2 for line in out.read_text().splitlines())


def answers_file(tmp_path):
    path = tmp_path / "answers.jsonl"
    row = {"id": "0", "question": "Who was Ada's father?", "graph": GRAPH.to_list(),
           "minimum": [FATHER.to_list(), BIRTH.to_list()], "answer": "Her father was Lord Byron [Q1, father: Lord Byron]."}
    path.write_text(json.dumps(row) + "\n")
    return path


def test_the_system_scores_against_a_file_of_gold_sets(tmp_path):
    from factscope.kalma.spec import AttributeSpec

    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([["Who was Ada's father?", [FATHER.to_list()]]]))
    told = KeptNotes()
    spec = AttributeSpec(checker=ValueInSentence())
    own = AttributeSystem().run(spec, answers_file(tmp_path), output=tmp_path / "own.jsonl")
    with_gold = AttributeSystem(gold, told).run(spec, answers_file(tmp_path), output=tmp_path / "gold.jsonl")
    # own set: 1 of 2 triples recalled; the gold set (father only): 1 of 1
    assert own.summary["removed=0"]["micro_recall"] == 0.5 and with_gold.summary["removed=0"]["micro_recall"] == 1.0
    assert told.lines == [f"minimum knowledge {gold}: 1 of 1 records use its sets"]
    assert isinstance(AttributeSystem().read(answers_file(tmp_path)), AnswerRecords)
    assert isinstance(AttributeSystem(in_memory=True).read(answers_file(tmp_path)), LoadedAnswers)
    with pytest.raises(ConfigError, match="`minimum` is not taken with `engine='ray'`"):
        AttributeSystem(gold).run(spec, answers_file(tmp_path), engine="ray", output=tmp_path / "folder")


def test_one_group_is_in_the_summary_table_and_several_have_tables_of_their_own():
    answer = "Her father was Lord Byron [Q1, father: Lord Byron]."
    kept = AnswerRecord("a", "Who?", answer, GRAPH, [FATHER])
    removed = AnswerRecord("b", "Who?", answer, GRAPH.without([BIRTH]), [FATHER, BIRTH], [BIRTH])
    one = attribute([kept], checker=ValueInSentence())
    assert score_title(one) == "attribute score (removed=0)" and group_tables(one) == []
    assert ("citations", 1) in single_group_rows(one)
    two = attribute([kept, removed], checker=ValueInSentence())
    assert score_title(two) == "attribute score" and single_group_rows(two) == []
    tables = group_tables(two)
    assert [str(table.title) for table in tables] == ["attribute score (removed=0)", "attribute score (removed=1)"]
    assert AttributeSystem().failures(two) == (0, "answers (a checker or G-Eval call, or their worker process)")


def test_the_api_scores_files_and_records_against_a_file_of_gold_sets(tmp_path):
    import factscope

    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([["Who was Ada's father?", [FATHER.to_list()]]]))
    path = answers_file(tmp_path)
    records = [json.loads(path.read_text())]
    own = factscope.attribute(path, checker=ValueInSentence())
    from_file = factscope.attribute(path, checker=ValueInSentence(), minimum=gold)
    from_records = factscope.attribute(records, checker=ValueInSentence(), minimum=str(gold))
    # the answer's own set: 1 of 2 triples recalled; the gold set (father only): 1 of 1
    assert own.summary["removed=0"]["micro_recall"] == 0.5
    assert from_file.summary["removed=0"]["micro_recall"] == 1.0
    assert from_records.summary["removed=0"]["micro_recall"] == 1.0
