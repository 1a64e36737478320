"""Where each KaLMA question's graph comes from: the gold graph (no retrieval), the local graph or Wikidata; a
local retrieval without a graph is refused in the API's words and in the command line's."""

from __future__ import annotations

import pytest

import repo_paths
from cli_entry import run_factscope
from factscope.core.errors import ConfigError
from factscope.kalma.graphs import question_retrieval
from factscope.kg.loaders import load_graph
from factscope.kg.wikidata import WikidataClient

EXAMPLES = repo_paths.EXAMPLES / "attribute"


def test_the_gold_graph_needs_no_retrieval():
    assert question_retrieval("none") is None


def test_a_local_retrieval_looks_up_the_given_graph():
    graph = load_graph(EXAMPLES / "graph.jsonl")
    retrieval = question_retrieval("local", graph)
    assert retrieval is not None and retrieval.__self__.source.graph is graph


def test_a_wikidata_retrieval_asks_the_given_endpoint(tmp_path):
    retrieval = question_retrieval("wikidata", sparql_endpoint="http://127.0.0.1:9/sparql", sparql_cache=tmp_path,
                                   sparql_interval=0.0)
    source = retrieval.__self__.source
    assert isinstance(source, WikidataClient) and source.endpoint == "http://127.0.0.1:9/sparql"


def test_a_local_retrieval_without_a_graph_or_an_unknown_source_is_refused():
    with pytest.raises(ConfigError, match="`retrieve='local'` needs `graph`"):
        question_retrieval("local")
    with pytest.raises(ConfigError, match="'none', 'local' or 'wikidata', got 'web'"):
        question_retrieval("web")


def test_the_command_line_names_its_flags(tmp_path, monkeypatch, capsys):
    ran = run_factscope(monkeypatch, capsys, "attribute", "generate", str(EXAMPLES / "questions.jsonl"),
                        "--retrieve", "local", "-o", str(tmp_path / "answers.jsonl"),
                        "--llm-base-url", "http://127.0.0.1:9/v1", "--llm-model", "fake")
    assert ran.code == 2 and "--retrieve local needs --graph" in ran.text
