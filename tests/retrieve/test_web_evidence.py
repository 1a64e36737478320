"""Web and Wikipedia evidence against fake services on 127.0.0.1: searches, pages, politeness, cache, keys."""

from __future__ import annotations

import importlib.util
import sqlite3

import httpx
import pytest

from factscope.core.errors import ConfigError
from factscope.retrieve.web_cache import WebCache, web_cache_key
from factscope.retrieve.web_client import WebClient
from factscope.retrieve.web_evidence import EvidenceRequest, WebEvidence
from factscope.retrieve.web_retrievers import make_web_evidence
from factscope.retrieve.web_settings import WebSettings
from factscope.retrieve.wikipedia import WikipediaSearch
from fake_web import FakeWebServer
from loopback import closed_port
from optional_extras import needs_extra

pytestmark = needs_extra(importlib.util.find_spec("trafilatura") is not None, "web")

KEY = "sk-serper-test-0123456789"
CURIE = EvidenceRequest(
    "Marie Curie was born in Paris. She won the Nobel Prize in Physics in 1903.",
    ["Marie Curie was born in Paris.", "Marie Curie won the Nobel Prize in Physics in 1903."],
    "Who was Marie Curie?",
)


@pytest.fixture
def web():
    with FakeWebServer() as server:
        yield server


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("SERPER_API_KEY", KEY)
    monkeypatch.setenv("BRAVE_API_KEY", "brave-test-key")


def settings(web: FakeWebServer, tmp_path, **changes) -> WebSettings:
    values = {"search_url": web.base_url, "cache_path": tmp_path / "web.sqlite", "results_per_query": 5,
              "max_retries": 2, "backoff_max": 0.0}
    return WebSettings(**(values | changes))


def test_serper_pages_become_ranked_passages_with_their_sources(web, tmp_path):
    evidence = make_web_evidence("web:serper", settings(web, tmp_path), k=2)
    [found] = evidence.gather([CURIE])
    # one search; curie, latin1, the redirect (to curie) read; the PDF and the robots-disallowed page passed over
    assert found.cost.searches == 1 and found.cost.page_fetches == 3 and found.cost.failures == 2
    assert found.cost.pages_found == 5
    assert sorted(p.split(": ")[1] for p in found.problems) == ["not a web page (application/pdf)",
                                                                 "robots.txt disallows it"]
    assert web.paths("/pages/private") == [] and web.paths("/pages/curie") == ["/pages/curie", "/pages/curie"]
    assert len(found.per_claim) == 2 and all(len(chosen) == 2 for chosen in found.per_claim)
    [born] = [i for i in found.per_claim[0] if "born in Warsaw" in found.passages[i]]
    assert "Berlin" not in " ".join(found.passages)  # the script's text never becomes a passage
    assert "Cookie settings" not in " ".join(found.passages)  # nor the footer's boilerplate
    source = found.sources[born]
    assert source.url == f"{web.base_url}/pages/curie" and source.title == "Marie Curie"
    assert source.search_title == "Result curie"
    assert source.retriever == "web:serper" and source.query == "Who was Marie Curie?"
    assert source.fetched_at.endswith("+00:00")
    [serper] = [r for r in web.requests if r["path"] == "/search"]
    assert serper["headers"]["X-API-KEY"] == KEY and '"q":"Who was Marie Curie?"' in serper["body"]


def test_a_page_in_another_encoding_is_decoded(web, tmp_path):
    evidence = make_web_evidence("web:serper", settings(web, tmp_path), k=5)
    [found] = evidence.gather([EvidenceRequest("Curie lived in Paris.", ["Marie Curie a vécu à Paris"], "Curie")])
    french = [p for p in found.passages if "Sorbonne" in p]
    assert french and "a vécu à Paris, où elle a étudié" in french[0]
    assert any(s.title == "Curie à Paris" for s in found.sources)


def test_a_huge_page_is_read_up_to_the_cap_and_a_page_without_text_is_a_problem(web, tmp_path):
    evidence = make_web_evidence("web:serper", settings(web, tmp_path, max_page_bytes=50_000), k=50)
    [found] = evidence.gather([EvidenceRequest("Acme sells anvils.", ["Acme sells anvils."], "Acme stock")])
    huge = [p for p, s in zip(found.passages, found.sources) if s.url.endswith("/huge")]
    assert huge and sum(len(p) for p in huge) < 50_000 < web.huge_bytes
    assert any(p.endswith("/pages/scripts-only: no readable text") for p in found.problems)


def test_429_and_500_are_retried_honouring_retry_after(web, tmp_path):
    waits: list[float] = []
    chosen = settings(web, tmp_path, backoff_max=7.0)
    client = WebClient(chosen, sleep=waits.append)
    evidence = make_web_evidence("web:serper", chosen, k=2)
    evidence.client = client
    web.script("/search", [429, 503])
    web.script("/pages/curie", [500])
    [found] = evidence.gather([CURIE])
    assert web.paths("/search") == ["/search"] * 3
    # the search: Retry-After 0 replaces the backoff, then 2 s jittered into [1, 2] after its second attempt;
    # the page's 500: 1 s jittered into [0.5, 1] after its first
    assert waits[0] == 0.0 and 1.0 <= waits[1] <= 2.0 and 0.5 <= waits[2] <= 1.0 and len(waits) == 3
    assert found.cost.searches == 1 and "born in Warsaw" in " ".join(found.passages)


def test_persistent_failures_timeouts_and_malformed_json_are_problems_not_crashes(web, tmp_path):
    chosen = settings(web, tmp_path, max_retries=0, timeout=0.3)
    web.hang_seconds = 1.0
    web.script("/pages/curie", ["hang", "hang"])
    web.script("/pages/latin1", [500])
    evidence = make_web_evidence("web:serper", chosen, k=2)
    [found] = evidence.gather([CURIE])
    assert any(p.endswith("/pages/curie: no answer: timed out") for p in found.problems)
    assert any(p.endswith("/pages/latin1: HTTP 500") for p in found.problems)
    web.script("/search", ["malformed"])
    [broken] = evidence.gather([EvidenceRequest("Acme is big.", ["Acme is big."], "Acme?")])
    assert broken.passages == [] and broken.per_claim == [[]]
    assert broken.problems == [f"search 'Acme?': {web.base_url.removeprefix('http://')} answered with malformed JSON"]
    assert broken.cost.failures == 1 and broken.cost.searches == 0


def test_a_refused_key_stops_the_run(web, tmp_path):
    web.script("/search", [403])
    evidence = make_web_evidence("web:serper", settings(web, tmp_path), k=2)
    with pytest.raises(ConfigError, match=r"Serper refused the API key \(HTTP 403\); check SERPER_API_KEY") as error:
        evidence.gather([CURIE])
    assert KEY not in str(error.value)


def test_brave_search_sends_its_key_in_a_header(web, tmp_path):
    evidence = make_web_evidence("web:brave", settings(web, tmp_path, results_per_query=2), k=3)
    [found] = evidence.gather([CURIE])
    [search] = [r for r in web.requests if r["path"].startswith("/res/v1/web/search")]
    assert search["headers"]["X-Subscription-Token"] == "brave-test-key" and "count=2" in search["path"]
    assert "brave-test-key" not in search["path"]
    assert {s.url.rsplit("/", 1)[1] for s in found.sources} <= {"curie", "latin1"}
    assert found.cost.searches == 1 and found.cost.page_fetches == 2


def test_a_missing_key_or_network_is_said_before_any_request(web, tmp_path, monkeypatch):
    monkeypatch.delenv("BRAVE_API_KEY")
    with pytest.raises(ConfigError, match="needs an API key: set the environment variable BRAVE_API_KEY"):
        make_web_evidence("web:brave", settings(web, tmp_path)).preflight()
    offline = make_web_evidence("wikipedia", settings(web, tmp_path, search_url=f"http://127.0.0.1:{closed_port()}"))
    with pytest.raises(ConfigError, match=r"the wikipedia retriever needs the network, and 127\.0\.0\.1:\d+ cannot"):
        offline.preflight()
    assert web.requests == []


def test_wikipedia_pages_in_a_language_edition(web, tmp_path):
    evidence = make_web_evidence("wikipedia", settings(web, tmp_path, search_url=web.base_url + "/w/api.php"), k=1)
    [found] = evidence.gather([CURIE])
    assert found.cost.searches == 1 and found.cost.page_fetches == 2  # Marie Curie and Pierre Curie
    assert "born in Warsaw" in found.passages[found.per_claim[0][0]]  # one passage each (k=1)
    assert found.sources[0].url == "https://en.wikipedia.org/wiki/Marie_Curie"
    german = WikipediaSearch(None, language="de")
    assert german.base_url == "https://de.wikipedia.org/w/api.php"
    assert german.page_url("Marie Curie") == "https://de.wikipedia.org/wiki/Marie_Curie"
    with pytest.raises(ConfigError, match="give a Wikipedia language code such as 'en'"):
        WebSettings(language="en/../x")


def test_claims_mode_searches_each_claim_and_the_cache_answers_a_second_gather(web, tmp_path):
    evidence = make_web_evidence("web:serper", settings(web, tmp_path, queries="claims"), k=2)
    [first] = evidence.gather([CURIE])
    assert first.cost.searches == 2 and [s.query for s in first.sources][:1] == ["Marie Curie was born in Paris."]
    sent = len(web.requests)
    again = make_web_evidence("web:serper", settings(web, tmp_path, queries="claims"), k=2)
    [second] = again.gather([CURIE])
    assert len(web.requests) == sent  # nothing asked again, robots.txt included
    assert second.cost.searches == 0 and second.cost.cached_searches == 2
    assert second.cost.page_fetches == 0 and second.cost.cached_pages == first.cost.page_fetches
    assert second.passages == first.passages and second.sources == first.sources


def test_the_cache_forgets_entries_older_than_the_allowed_age(tmp_path):
    cache = WebCache(tmp_path / "c.sqlite", max_age_days=1.0)
    key = web_cache_key("search", "web:serper", "q", {"count": 3})
    cache.put(key, "search", [["u", "t", None]], fetched=1_000_000.0)
    assert cache.get(key, now=1_000_000.0 + 86_399).body == [["u", "t", None]]
    assert cache.get(key, now=1_000_000.0 + 86_400) is None
    assert web_cache_key("search", "web:serper", "q", {"count": 4}) != key
    never = WebCache(tmp_path / "c.sqlite", max_age_days=0.0)
    assert never.get(key, now=1_000_000.0) is None


def test_no_key_reaches_the_cache_or_the_fingerprint(web, tmp_path):
    evidence = make_web_evidence("web:serper", settings(web, tmp_path), k=2)
    evidence.gather([CURIE])
    rows = sqlite3.connect(tmp_path / "web.sqlite").execute("SELECT key, kind, body FROM entries").fetchall()
    assert {kind for _, kind, _ in rows} == {"search", "page", "robots"}
    assert not any(KEY in str(row) for row in rows)
    assert KEY not in str(evidence.result_settings())
    assert evidence.result_settings()["service"] == "web:serper" and evidence.result_settings()["k"] == 2


def test_query_writer_uses_refcheckers_prompt_with_an_llm(web, tmp_path, fake_llm):
    from factscope.llm.client import LLMClient, LLMConfig

    fake_llm.script(["Where was Marie Curie born?"])
    llm = LLMClient(LLMConfig(base_url=fake_llm.base_url, model="fake", cache_path=None))
    evidence = make_web_evidence("web:serper", settings(web, tmp_path), k=2, llm=llm)
    [found] = evidence.gather([CURIE])
    prompt = fake_llm.requests[0]["json"]["messages"][0]["content"]
    assert prompt.startswith("Please generate a question on the given text so that when searching on Google")
    assert prompt.endswith(f"Input text: {CURIE.response}\nOutput: ")
    assert found.sources[0].query == "Where was Marie Curie born?"
    assert evidence.result_settings()["query_writer"] == {"llm": "fake"}


def test_redirect_loops_and_other_schemes_end_with_a_reason(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/robots.txt":
            return httpx.Response(404)
        if request.url.path == "/ftp":
            return httpx.Response(301, headers={"Location": "ftp://example.org/file"})
        return httpx.Response(302, headers={"Location": "/loop"})

    client = WebClient(WebSettings(cache_path=tmp_path / "c.sqlite"), transport=httpx.MockTransport(handler))
    assert client.fetch_page("http://example.org/loop").error == "more than 5 redirects"
    assert client.fetch_page("http://example.org/ftp").error == "not an http(s) address"


def test_robots_txt_that_cannot_be_read_allows_nothing_and_a_missing_one_everything(tmp_path):
    status = {"down.example": 503, "none.example": 404}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/robots.txt":
            return httpx.Response(status[request.url.host])
        return httpx.Response(200, html="<html><body><p>A page with enough words to be the main text of it.</p>"
                                        "</body></html>")

    client = WebClient(WebSettings(cache_path=tmp_path / "c.sqlite", max_retries=0),
                       transport=httpx.MockTransport(handler))
    assert not client.allowed("http://down.example/page") and client.allowed("http://none.example/page")
    assert client.fetch_page("http://down.example/page").error == "robots.txt disallows it"


def test_web_evidence_is_a_retriever_of_the_check(web, tmp_path):
    evidence = make_web_evidence("web:serper", settings(web, tmp_path), k=2)
    assert isinstance(evidence, WebEvidence) and evidence.name == "web:serper"
    with pytest.raises(ConfigError, match="unknown web search API 'bing'; known: serper, brave"):
        make_web_evidence("web:bing", settings(web, tmp_path))


def test_a_query_the_llm_fails_to_write_is_searched_by_rule_and_said(web, tmp_path, fake_llm):
    from factscope.llm.client import LLMClient, LLMConfig
    from fake_llm import Fail

    fake_llm.script([Fail(400, message="bad request")])
    llm = LLMClient(LLMConfig(base_url=fake_llm.base_url, model="fake", cache_path=None, max_retries=0))
    [found] = make_web_evidence("web:serper", settings(web, tmp_path), k=2, llm=llm).gather([CURIE])
    assert found.sources[0].query == "Who was Marie Curie?"
    assert found.problems[0].startswith("query for 'Who was Marie Curie?' written by rule: ")


def test_web_evidence_serves_where_a_corpus_retriever_does(web, tmp_path):
    evidence = make_web_evidence("wikipedia", settings(web, tmp_path, search_url=web.base_url + "/w/api.php"), k=5)
    [hits] = evidence.search_many(["Marie Curie was born in Warsaw."], k=1)
    assert len(hits) == 1 and hits[0].doc_id == "https://en.wikipedia.org/wiki/Marie_Curie"
    assert "born in Warsaw" in hits[0].text and hits[0].title == "Marie Curie" and evidence.k == 5
    [both] = evidence.search_many(["Marie Curie was born in Warsaw."], k=2)  # from the cache
    assert both[0].doc_id == hits[0].doc_id and both[0].score == hits[0].score > both[1].score
    assert evidence.search("Marie Curie was born in Warsaw.", k=1) == hits
