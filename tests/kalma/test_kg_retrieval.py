"""Question-side retrieval: NER, look-up by name/alias, type filter, exact-match re-ranking; Wikidata client
against a fake SPARQL endpoint."""


import pytest

import repo_paths
from factscope.core.errors import BackendError
from factscope.kg.loaders import load_graph
from factscope.kg.wikidata import WikidataClient
from factscope.llm.retry import RetryPolicy
from factscope.retrieve.kg_retrieval import GraphSource, KGRetriever, exact_match_count
from fake_sparql import FakeSPARQLServer
from loopback import closed_port

DATA = repo_paths.DATA / "attribute"

ENTITIES = {
    "Q1": {"label": "Ada Lovelace", "aliases": ["Augusta Ada King"],
           "properties": {"instance of": ["human"], "father": ["Lord Byron"], "place of birth": ["London"],
                          "date of birth": ["1815-12-10T00:00:00Z"]}},
    "Q2": {"label": "Lord Byron", "properties": {"instance of": ["human"], "child": ["Ada Lovelace"]}},
    "Q3": {"label": "Lord Byron", "properties": {"instance of": ["ship"]}},
    "Q9": {"label": "Ada Lovelace", "properties": {"instance of": ["human"], "occupation": ["actress"]}},
}


def fixed_ner(mentions):
    return lambda texts: [list(mentions) for _ in texts]


def test_exact_match_counts_whole_word_values():
    graph = load_graph(DATA / "graph.jsonl")
    ada = graph.get("Q1")
    # 'London' and 'Lord Byron' occur; 'writer' does not; 'human' must not match 'humane'
    assert exact_match_count(ada, "Was the humane Lord Byron in london?") == 2


def test_local_retrieval_type_filter_and_reranking():
    graph = load_graph(DATA / "graph.jsonl")
    retriever = KGRetriever(GraphSource(graph), ner=fixed_ner([("Lord Byron", "PERSON"), ("Nobody", "PERSON")]))
    result = retriever.retrieve("Who was the child of Lord Byron?")
    # Q3 (a ship) is filtered out by the PERSON -> human type filter
    assert [c.entity.qid for c in result.chosen] == ["Q2"] and result.chosen[0].candidates == 1
    assert result.unmatched == ["Nobody"]
    assert "Q2" in result.graph and "Q3" not in result.graph


def test_reranking_prefers_the_candidate_whose_neighbours_the_question_names(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text('{"qid": "Q9", "name": "Ada", "properties": {"instance of": "human", "occupation": "actress"}}\n'
                    '{"qid": "Q1", "name": "Ada", "properties": {"instance of": "human", "father": "Lord Byron"}}\n')
    retriever = KGRetriever(GraphSource(load_graph(path)), ner=fixed_ner([("Ada", "PERSON")]))
    assert retriever.retrieve("What did Ada learn from Lord Byron?").chosen[0].entity.qid == "Q1"
    assert retriever.retrieve("Which films did the actress Ada make?").chosen[0].entity.qid == "Q9"


def test_spacy_ner_finds_the_person():
    graph = load_graph(DATA / "graph.jsonl")
    result = KGRetriever(GraphSource(graph)).retrieve("What did Charles Babbage invent in London?")
    assert "Q4" in result.graph


def test_wikidata_client_finds_by_alias_and_fetches_subgraph(tmp_path):
    with FakeSPARQLServer(ENTITIES) as server:
        client = WikidataClient(server.endpoint, cache_dir=tmp_path, min_interval=0)
        assert client.find("Augusta Ada King") == ["Q1"]
        entity = client.entity("Q1")
        assert entity.name == "Ada Lovelace" and entity.aliases == ["Augusta Ada King"]
        assert entity.properties["father"] == ["Lord Byron"]
        assert entity.properties["date of birth"] == ["1815-12-10"]
        assert "ExternalId" in server.requests[-1]["query"]
        assert all(r["user_agent"].startswith("factscope/") for r in server.requests)
        sent = len(server.requests)
        client.entity("Q1")  # served from the on-disk cache
        assert len(server.requests) == sent


def test_wikidata_retrieval_reranks_same_name_people(tmp_path):
    with FakeSPARQLServer(ENTITIES) as server:
        client = WikidataClient(server.endpoint, cache_dir=tmp_path, min_interval=0)
        retriever = KGRetriever(client, ner=fixed_ner([("Ada Lovelace", "PERSON")]))
        chosen = retriever.retrieve("Was Ada Lovelace born in London?").chosen[0]
        assert chosen.entity.qid == "Q1" and chosen.candidates == 2 and chosen.matches == 1


def test_retries_on_429_with_retry_after_then_gives_up(tmp_path):
    waits = []
    with FakeSPARQLServer(ENTITIES) as server:
        server.script([429, 503])
        client = WikidataClient(server.endpoint, min_interval=0, max_retries=2, sleep=waits.append)
        assert client.find("Lord Byron") == ["Q2", "Q3"]
        assert len(server.requests) == 3 and waits[0] == 0.0
        server.script([429, 429, 429])
        with pytest.raises(BackendError, match="failed after 3 attempts"):
            client.find("Ada Lovelace")


def test_500s_are_retried_through_the_shared_policy_with_capped_jittered_backoff():
    waits = []
    with FakeSPARQLServer(ENTITIES) as server:
        server.script([500, 502, 503])
        client = WikidataClient(server.endpoint, min_interval=0, max_retries=3, backoff_base=2.0,
                                backoff_max=3.0, sleep=waits.append)
        assert isinstance(client.retry, RetryPolicy)
        assert client.find("Lord Byron") == ["Q2", "Q3"]
        assert len(server.requests) == 4
    # ceilings min(3, 2 * 2**(n-1)) for retries n = 1, 2, 3: 2, 3, 3, each times a factor in [0.5, 1]
    for wait, ceiling in zip(waits, (2.0, 3.0, 3.0), strict=True):
        assert ceiling * 0.5 <= wait <= ceiling


@pytest.mark.parametrize(("retry_after", "backoff_max", "wait"), [("7", 60.0, 7.0), ("7", 5.0, 5.0)])
def test_retry_after_of_a_429_is_honoured_up_to_backoff_max(retry_after, backoff_max, wait):
    waits = []
    with FakeSPARQLServer(ENTITIES) as server:
        server.retry_after = retry_after
        server.script([429])
        client = WikidataClient(server.endpoint, min_interval=0, backoff_max=backoff_max, sleep=waits.append)
        assert client.find("Ada Lovelace") == ["Q1", "Q9"]
    assert waits == [wait]


def test_a_client_error_is_not_retried():
    waits = []
    with FakeSPARQLServer(ENTITIES) as server:
        server.script([400])
        client = WikidataClient(server.endpoint, min_interval=0, sleep=waits.append)
        with pytest.raises(BackendError, match="answered HTTP 400"):
            client.find("Ada Lovelace")
        assert len(server.requests) == 1 and waits == []


def test_an_unreachable_endpoint_is_retried_then_reported():
    waits = []
    client = WikidataClient(f"http://127.0.0.1:{closed_port()}/sparql", min_interval=0, max_retries=2,
                            sleep=waits.append)
    with pytest.raises(BackendError, match="failed after 3 attempts.*ConnectError"):
        client.find("Ada Lovelace")
    assert len(waits) == 2


def test_min_interval_spaces_requests(tmp_path):
    waits = []
    with FakeSPARQLServer(ENTITIES) as server:
        client = WikidataClient(server.endpoint, min_interval=5.0, sleep=waits.append)
        client.find("Lord Byron")
        client.find("Ada Lovelace")
        assert waits and 4.0 < waits[-1] <= 5.0
