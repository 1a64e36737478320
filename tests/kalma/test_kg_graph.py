"""Knowledge graphs: triples, look-up by name and alias, loaders for BioKaLMA, JSONL and RDF."""


import pytest

import repo_paths
from factscope.core.errors import InputError
from factscope.kalma.data import read_questions
from factscope.kg.graph import Entity, KnowledgeGraph, Triple, normalize_text
from factscope.kg.loaders import load_graph

DATA = repo_paths.DATA / "attribute"


def test_normalize_text_handles_quotes_case_space_and_final_period():
    assert normalize_text(' "Rome". ') == "rome"
    assert normalize_text("Place  of\tBirth") == "place of birth"
    assert normalize_text("1596-07-08") != normalize_text("July 8, 1596")


def test_entity_triples_and_flatten():
    entity = Entity("Q1", "Ada Lovelace", properties={"occupation": ["mathematician", "writer"]})
    assert entity.triples() == [Triple("Q1", "name", "Ada Lovelace"), Triple("Q1", "occupation", "mathematician"),
                                Triple("Q1", "occupation", "writer")]
    assert entity.flatten() == "{name: Ada Lovelace, occupation: mathematician, occupation: writer, qid: Q1}"


def test_jsonl_graph_lookup_by_name_and_alias():
    graph = load_graph(DATA / "graph.jsonl")
    assert len(graph) == 4
    assert [e.qid for e in graph.find_by_label("lord byron")] == ["Q2", "Q3"]
    assert [e.qid for e in graph.find_by_label("Augusta  Ada King")] == ["Q1"]
    assert Triple("Q1", "occupation", "writer") in graph.triples()


def test_without_removes_only_the_given_triples():
    graph = load_graph(DATA / "graph.jsonl")
    smaller = graph.without([Triple("q1", "Place of birth", "london")])
    assert Triple("Q1", "place of birth", "London") not in smaller.triples()
    assert Triple("Q2", "place of birth", "London") in smaller.triples()
    assert len(smaller.triples()) == len(graph.triples()) - 1


def test_merge_of_same_qid_unions_properties():
    graph = KnowledgeGraph([Entity("Q1", "A", properties={"x": ["1"]}), Entity("q1", "", ["B"], {"x": ["2"]})])
    assert graph.get("Q1").properties == {"x": ["1", "2"]} and graph.get("Q1").aliases == ["B"]


def test_biokalma_questions_give_minimum_set_without_names():
    items = list(read_questions(DATA / "biokalma.json"))
    assert len(items) == 2
    first = items[0][1]
    assert first.id == "0"
    assert first.minimum == [Triple("Q1", "place of birth", "London"), Triple("Q1", "father", "Lord Byron"),
                             Triple("Q2", "occupation", "poet")]
    assert first.graph.get("Q2").name == "Lord Byron"


def test_biokalma_graph_file_merges_entities_by_qid():
    graph = load_graph(DATA / "biokalma.json")
    assert sorted(graph.get("Q2").properties) == ["child", "occupation", "place of death"]


def test_turtle_graph_uses_labels_for_entities_and_predicates():
    graph = load_graph(DATA / "graph.ttl")
    ada = graph.get("Q1")
    assert ada.name == "Ada Lovelace" and ada.aliases == ["Augusta Ada King"]
    assert ada.properties == {"date of birth": ["1815-12-10"], "place of birth": ["London"], "father": ["Lord Byron"]}
    assert "P19" not in graph  # a predicate is not an entity


def test_ntriples_graph_reads_local_names():
    graph = load_graph(DATA / "graph.nt")
    assert graph.get("Q10").properties == {"place of birth": ["New York City"], "instance of": ["human"]}


def test_bad_entity_names_file_and_line(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text('{"qid": "Q1", "name": "A"}\n{"name": "no qid"}\n')
    with pytest.raises(InputError) as info:
        load_graph(path)
    assert "g.jsonl:2" in str(info.value) and "qid" in str(info.value)


def test_bad_question_record_is_reported_and_others_kept(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "a", "question": "Q?", "minimum": [["Q1", "father", "B"]]}\n'
                    '{"id": "b", "question": "Q?", "minimum": [["Q1", "father"]]}\n{broken\n')
    items = list(read_questions(path))
    assert items[0][1].minimum == [Triple("Q1", "father", "B")]
    assert isinstance(items[1][1], InputError) and items[1][1].field == "minimum.0"
    assert isinstance(items[2][1], InputError) and items[2][1].line == 3


def test_unknown_graph_suffix_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="unknown graph file type"):
        load_graph(tmp_path / "g.csv")


def test_bad_biokalma_item_is_reported_and_the_rest_kept(tmp_path):
    path = tmp_path / "b.json"
    path.write_text('[["Q one?", [{"qid": "Q1", "name": "A", "r": "v"}]], ["Q two?", [{"name": "no qid"}]], "junk"]')
    items = [item for _, item in read_questions(path)]
    assert items[0].minimum == [Triple("Q1", "r", "v")]
    assert isinstance(items[1], InputError) and items[1].field == "[1][1][0]"
    assert isinstance(items[2], InputError) and items[2].field == "[2]"
    with pytest.raises(InputError, match=r"\[1\]\[1\]\[0\]"):
        load_graph(path)
