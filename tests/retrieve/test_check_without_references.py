"""`check` of records without references, with evidence from fake search services on 127.0.0.1: the shipped
example's zero-context records end to end, sources in results and reports, cost in the summary, resume."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

import factscope
from cli_entry import run_factscope
from factscope.core.files.manifest import ResultsMismatch
from factscope.core.schema import Label, Verdict
from factscope.refchecker.data import load_check_records
from factscope.retrieve.web_settings import WebSettings
from fake_web import FakeWebServer
from optional_extras import needs_extra
from repo_paths import EXAMPLES

pytestmark = needs_extra(importlib.util.find_spec("trafilatura") is not None, "web")

KEY = "sk-serper-test-0123456789"
WORD = re.compile(r"\w+")


class OverlapChecker:
    """A transparent checker: the reference sharing most of the claim's words decides; all of them present is
    Entailment, else Neutral. It names the deciding reference, as model checkers do; ``stop_after`` calls it
    raises KeyboardInterrupt, as a killed run stops."""

    name = "overlap"

    def __init__(self, stop_after: int | None = None) -> None:
        self.stop_after = stop_after
        self.tasks: list = []

    def check(self, tasks):
        if self.stop_after is not None and len(self.tasks) >= self.stop_after:
            raise KeyboardInterrupt
        self.tasks.extend(tasks)
        verdicts = []
        for task in tasks:
            words = set(WORD.findall(task.claim.lower()))
            shares = [len(words & set(WORD.findall(ref.lower()))) for ref in task.references]
            if not shares:
                verdicts.append(Verdict(label=Label.NEUTRAL))
                continue
            best = max(range(len(shares)), key=shares.__getitem__)
            label = Label.ENTAILMENT if shares[best] == len(words) else Label.NEUTRAL
            verdicts.append(Verdict(label=label, evidence_reference=best, evidence=task.references[best][:80]))
        return verdicts


@pytest.fixture
def web(monkeypatch):
    monkeypatch.setenv("SERPER_API_KEY", KEY)
    with FakeWebServer() as server:
        yield server


def zero_context_records(path: Path) -> Path:
    """The shipped example's zero-context records, their references left out (free answers to check)."""
    records, _ = load_check_records(EXAMPLES / "check.jsonl")
    rows = [{"id": r.id, "question": r.question, "response": r.response, "setting": r.setting}
            for r in records if r.setting == "zero"]
    assert len(rows) == 2
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def run_check(web, tmp_path, checker=None, settings_changes=None, **changes):
    settings = {"search_url": web.base_url, "cache_path": tmp_path / "web.sqlite", "max_retries": 0,
                "results_per_query": 5}
    return factscope.check(
        zero_context_records(tmp_path / "zero.jsonl"),
        extractor="sentences",
        checker=checker or OverlapChecker(),
        retriever="web:serper",
        retrieve_k=2,
        web=WebSettings(**(settings | (settings_changes or {}))),
        output=tmp_path / "out.jsonl",
        **changes,
    )


def test_zero_context_records_are_checked_against_the_web(web, tmp_path):
    checker = OverlapChecker()
    run = run_check(web, tmp_path, checker)
    rows = {row.id: row for row in run.results}
    curie = rows["zc-curie"]
    assert curie.retrieved and len(curie.claims) == 3
    assert len(curie.sources) == len(curie.references) and all(s is not None for s in curie.sources)
    for result in curie.claims:
        assert result.passages is not None and len(result.passages) == 2
        verdict = result.verdict
        # the checker saw the claim's two passages; its index was mapped back to the record's references
        assert verdict.evidence_reference in result.passages
        assert verdict.evidence == curie.references[verdict.evidence_reference][:80]
    born = curie.claims[2]
    assert born.claim.text == "She was born in Paris." and born.verdict.label == Label.NEUTRAL
    table = {row["claim"]: row for row in curie.item_rows()}
    assert table[1]["evidence_url"].startswith(web.base_url + "/pages/")
    assert table[1]["evidence_title"]
    assert curie.retrieval.searches == 1 and curie.retrieval.page_fetches == 3 and curie.retrieval.failures == 2
    refusal = rows["zc-refusal"]  # declines to answer: no claims, so nothing is searched
    assert refusal.abstained and refusal.retrieval.searches == 0 and not refusal.references
    assert run.retrieval.searches == 1 and run.claims == 3
    written = (tmp_path / "out.jsonl").read_text(encoding="utf-8")
    assert '"fetched_at"' in written and KEY not in written
    assert KEY not in (tmp_path / "web.sqlite").read_bytes().decode("utf-8", errors="replace")
    assert all(KEY not in p.read_text(encoding="utf-8") for p in tmp_path.glob("out.jsonl*"))


def test_a_killed_run_resumes_without_asking_again(web, tmp_path):
    with pytest.raises(KeyboardInterrupt):
        run_check(web, tmp_path, OverlapChecker(stop_after=0))
    asked = len(web.requests)
    assert web.paths("/search") and not (tmp_path / "out.jsonl").exists()  # stopped before its first row
    run = run_check(web, tmp_path)
    assert len(web.requests) == asked  # every search and page came from the cache
    assert run.new_records == 2 and run.retrieval.searches == 0 and run.retrieval.cached_searches == 1
    assert run.retrieval.page_fetches == 0 and run.retrieval.cached_pages == 3
    again = run_check(web, tmp_path)
    assert again.resumed_records == 2 and again.new_records == 0 and len(web.requests) == asked


def test_the_fingerprint_holds_the_retrievers_settings(web, tmp_path):
    run_check(web, tmp_path)
    manifest = json.loads(next(tmp_path.glob("out.jsonl.*")).read_text(encoding="utf-8"))
    described = json.dumps(manifest)
    assert '"service": "web:serper"' in described and '"results_per_query": 5' in described
    with pytest.raises(ResultsMismatch, match="results_per_query"):
        run_check(web, tmp_path, settings_changes={"results_per_query": 2})


def test_retrieved_evidence_is_added_to_records_with_references(web, tmp_path):
    records = [{"id": "given", "question": "Who was Marie Curie?", "response": "Marie Curie was a chemist.",
                "references": ["Marie Curie was a chemist and physicist."]}]
    run = factscope.check(records, extractor="sentences", checker=OverlapChecker(), retriever="web:serper",
                          retrieve_k=2, retrieve_for="all",
                          web=WebSettings(search_url=web.base_url, cache_path=tmp_path / "web.sqlite"))
    [row] = run.results
    assert row.references[0] == "Marie Curie was a chemist and physicist." and len(row.references) == 3
    assert row.sources[0] is None and row.sources[1] is not None
    assert row.claims[0].passages == [0, 1, 2] and row.claims[0].verdict.evidence_reference == 0
    from factscope.refchecker.html_report import render_record

    page = str(render_record(row, "r0"))
    assert "<h4>reference 1</h4>" in page and "<h4>reference 2 (retrieved)</h4>" in page


def test_corpus_passages_are_added_to_records_with_references(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "text": text}) + "\n" for i, text in enumerate(
        ["Marie Curie was a chemist.", "Paris is in France.", "Warsaw is in Poland."])), encoding="utf-8")
    records = [{"id": "given", "question": "Who was Marie Curie?", "response": "Marie Curie was a chemist.",
                "references": ["Curie studied in Paris."]}]
    run = factscope.check(records, extractor="sentences", checker=OverlapChecker(), retriever="bm25",
                          corpus=corpus, retrieve_k=1, retrieve_for="all")
    [row] = run.results
    assert row.references == ["Curie studied in Paris.", "Marie Curie was a chemist."] and row.retrieved
    assert row.claims[0].verdict.label == Label.ENTAILMENT and row.claims[0].verdict.evidence_reference == 1


def test_the_html_report_links_the_evidence_to_its_page(web, tmp_path):
    from factscope.refchecker.html_report import render_record

    run = run_check(web, tmp_path)
    curie = next(row for row in run.results if row.id == "zc-curie")
    page = str(render_record(curie, "r0"))
    assert f'href="{web.base_url}/pages/curie" rel="noopener noreferrer">Marie Curie</a>' in page
    assert "Marie Curie</a> (in the search results: Result curie)" in page
    assert "fetched 20" in page and "could not be read" in page and "robots.txt disallows it" in page
    hostile = curie.model_copy(update={"sources": [s.model_copy(update={"url": "javascript:alert(1)"})
                                                   for s in curie.sources]})
    assert "javascript:" not in str(render_record(hostile, "r0")).split("could not be read")[0]


def test_factscope_check_on_the_command_line(web, tmp_path, monkeypatch, capsys):
    source = zero_context_records(tmp_path / "zero.jsonl")
    output = tmp_path / "checked.jsonl"
    common = [str(source), "-o", str(output), "--extractor", "sentences", "--checker", "similarity"]
    refused = run_factscope(monkeypatch, capsys, "check", *common)
    assert refused.code == 2 and "--retriever web:serper" in " ".join(refused.err.split())
    ran = run_factscope(monkeypatch, capsys, "check", *common, "--retriever", "web:serper", "--search-url", web.base_url,
                        "--web-cache", str(tmp_path / "web.sqlite"), "--top-k", "2", "--search-results", "5",
                        "--summary", str(tmp_path / "summary.json"))
    assert ran.code == 0, ran.out + ran.err
    assert "web searches 1 sent (0.33 per claim), 0 from the cache" in ran.text
    assert "web pages 5 found, 3 read (1.00 per claim), 0 from the cache" in ran.text
    assert "failed searches and page reads 2" in ran.text
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert summary["retrieval"] == {"searches": 1, "cached_searches": 0, "pages_found": 5, "page_fetches": 3,
                                    "cached_pages": 0, "failures": 2}
    assert KEY not in ran.out + ran.err
    rows = {row["id"]: row for row in map(json.loads, output.read_text(encoding="utf-8").splitlines())}
    assert rows["zc-curie"]["retrieved"] and rows["zc-curie"]["sources"][0]["url"].startswith(web.base_url)
    assert rows["zc-refusal"]["abstained"] and not rows["zc-refusal"]["sources"]


def test_a_refused_key_leaves_no_results_file(web, tmp_path, monkeypatch, capsys):
    web.script("/search", [403])
    output = tmp_path / "checked.jsonl"
    ran = run_factscope(monkeypatch, capsys, "check", str(zero_context_records(tmp_path / "zero.jsonl")), "-o",
                        str(output), "--extractor", "sentences", "--checker", "similarity", "--retriever", "web:serper",
                        "--search-url", web.base_url, "--web-cache", str(tmp_path / "web.sqlite"))
    assert ran.code == 2 and "refused the API key" in ran.err
    assert sorted(path.name for path in tmp_path.iterdir()) == ["web.sqlite", "zero.jsonl"]


def test_a_web_option_without_a_web_retriever_is_refused(tmp_path, monkeypatch, capsys):
    ran = run_factscope(monkeypatch, capsys, "check", str(EXAMPLES / "check.jsonl"), "-o", str(tmp_path / "o.jsonl"),
                        "--search-results", "5")
    assert ran.code == 2 and "--search-results" in ran.err + ran.out


def test_a_run_without_network_says_so_before_any_work(tmp_path, monkeypatch):
    from loopback import closed_port

    monkeypatch.setenv("SERPER_API_KEY", KEY)
    checker = OverlapChecker()
    with pytest.raises(factscope.core.errors.ConfigError, match="needs the network") as error:
        factscope.check(zero_context_records(tmp_path / "zero.jsonl"), extractor="sentences", checker=checker,
                        retriever="web:serper",
                        web=WebSettings(search_url=f"http://127.0.0.1:{closed_port()}",
                                        cache_path=tmp_path / "web.sqlite"))
    assert checker.tasks == [] and KEY not in str(error.value)


def test_knowledge_scoring_takes_its_evidence_from_wikipedia(web, tmp_path):
    records = tmp_path / "knowledge.jsonl"
    records.write_text(json.dumps({"id": "k1", "task": "qa", "query": "Where was Marie Curie born?",
                                   "knowledge": "Marie Curie was born in Warsaw."}) + "\n", encoding="utf-8")
    checker = OverlapChecker()
    run = factscope.knowledge(
        records, retriever="wikipedia", evidence_k=1, checker=checker, relevance="none", coherence="none",
        web=WebSettings(search_url=web.wikipedia_url, cache_path=tmp_path / "web.sqlite"),
        output=tmp_path / "scored.jsonl",
    )
    [row] = run.results
    assert row.factuality is not None and row.value("factuality") == 1.0
    assert any("born in Warsaw" in ref for task in checker.tasks for ref in task.references)
    assert web.paths("/w/api.php")
    manifest = next(tmp_path.glob("scored.jsonl.*")).read_text(encoding="utf-8")
    assert '"service": "wikipedia"' in manifest


def test_the_web_app_checks_without_references_and_links_the_evidence(web, tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from factscope.serve.app import create_app
    from factscope.serve.config import Components, ServeConfig

    components = Components(check_extractor="sentences", check_checker="similarity", check_retriever="web:serper",
                            web=WebSettings(search_url=web.base_url, cache_path=tmp_path / "web.sqlite"))
    config = ServeConfig(data_dir=tmp_path / "serve", components=components)
    with TestClient(create_app(config, warm=False)) as client:
        reply = client.post("/v1/check", json={"records": [{"question": "Who was Marie Curie?",
                                                             "response": "Marie Curie was born in Warsaw."}]})
        assert reply.status_code == 200, reply.text
        [row] = reply.json()["results"]
        assert row["retrieved"] and row["sources"][0]["url"].startswith(web.base_url)
        page = client.post("/run/check", data={"question": "Who was Marie Curie?",
                                               "response": "Marie Curie was born in Warsaw."})
        assert page.status_code == 200
        assert f'href="{web.base_url}/pages/curie" rel="noopener noreferrer"' in page.text
    assert KEY not in reply.text + page.text
