"""The server's endpoints and pages on the real offline models: the same results as the Python API, the four
systems' pages, jobs over HTTP, the offline API docs, and every user string escaped in HTML."""

import json
import time
from html.parser import HTMLParser
from importlib.resources import files

import pytest

pytest.importorskip("fastapi")

pytestmark = pytest.mark.timeout(600)

from fastapi.testclient import TestClient

import factscope
from factscope.serve.app import create_app
from factscope.serve.config import Components, ServeConfig

EXAMPLES = files("factscope.examples")
CHECK = {
    "id": "curie",
    "question": "Where was Marie Curie born?",
    "response": "Marie Curie was born in Paris. She won the Nobel Prize in Physics.",
    "references": ["Marie Curie was born in Warsaw in 1867. She shared the 1903 Nobel Prize in Physics."],
}
GROUND = {
    "id": "tram",
    "question": "When did the Harbour Line tramway close?",
    "contexts": ["The Harbour Line tramway was a horse-drawn tramway in Port Elsby. It closed in 1958."],
    "gold_facts": ["The Harbour Line tramway closed in 1958."],
    "response": "The Harbour Line tramway closed in 1958. It was painted blue.",
}


def _first(name):
    return json.loads(EXAMPLES.joinpath(name).read_text(encoding="utf-8").splitlines()[0])


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    corpus = EXAMPLES.joinpath("knowledge/corpus.jsonl")
    config = ServeConfig(data_dir=tmp_path_factory.mktemp("serve"), components=Components(knowledge_corpus=corpus),
                         job_batch_size=1)
    with TestClient(create_app(config, warm=True)) as test_client:
        yield test_client


@pytest.mark.slow
def test_check_returns_what_the_python_api_returns(client):
    reply = client.post("/v1/check", json={"records": [CHECK]})
    assert reply.status_code == 200
    served = reply.json()
    components = client.app.state.server.systems["check"].ready()
    extractor, checker = components.extractor, components.checker
    expected = factscope.check([CHECK], extractor=extractor, checker=checker)
    assert [c["claim"]["text"] for c in served["results"][0]["claims"]] == [
        c.claim.text for c in expected.results[0].claims
    ]
    assert [c["verdict"]["label"] for c in served["results"][0]["claims"]] == [
        c.verdict.label.value for c in expected.results[0].claims
    ]
    assert served["rates"]["responses"] == 1


def test_check_page_marks_each_claim_by_its_label_and_its_evidence(client):
    claims = client.post("/v1/check", json={"records": [CHECK]}).json()["results"][0]["claims"]
    page = client.post("/run/check", data={"question": CHECK["question"], "response": CHECK["response"],
                                           "references": CHECK["references"][0]})
    assert page.status_code == 200
    for number, claim in enumerate(claims, start=1):
        label = claim["verdict"]["label"]
        assert f'<span class="badge {label.lower()}">{label}</span>' in page.text
        assert f'title="claim {number}: {label}' in page.text or f"; claim {number}: {label}" in page.text
    assert {f'<mark class="{c["verdict"]["label"].lower()}"' for c in claims} <= {
        part.split(" data-claims")[0] for part in page.text.split("<mark ")[1:] for part in [f"<mark {part}"]
    }
    assert "P(E)" in page.text
    reference = page.text.split('class="reference"', 1)[1]
    assert "<mark " in reference


def test_ground_endpoint_and_page_show_present_and_absent_facts(client):
    reply = client.post("/v1/ground", json={"records": [GROUND]})
    assert reply.status_code == 200
    result = reply.json()["results"][0]
    assert result["recall"] is not None and result["response_facts"]
    page = client.post("/run/ground", data={**GROUND, "contexts": GROUND["contexts"][0],
                                            "gold_facts": GROUND["gold_facts"][0]})
    assert page.status_code == 200
    for fact in result["response_facts"]:
        word = "present" if fact["present"] else "absent"
        assert f'<li class="fact {word}"' in page.text
    assert "horse-drawn tramway in Port Elsby" in page.text.split("Gold facts", 1)[1]


def test_attribute_endpoint_and_page_colour_citations(client):
    answer = _first("attribute/answers.jsonl")
    reply = client.post("/v1/attribute/score", json={"records": [answer]})
    assert reply.status_code == 200
    result = reply.json()["results"][0]
    page = client.post("/run/attribute", data={
        "id": answer["id"], "question": answer["question"], "answer": answer["answer"],
        "graph": json.dumps(answer["graph"]), "minimum": json.dumps(answer["minimum"]),
    })
    assert page.status_code == 200
    correct = sum(1 for c in result["citations"] if c["correct"])
    assert correct and page.text.count('class="cite correct"') + page.text.count('class="cite precise"') == correct
    assert page.text.count('class="cite wrong"') == len(result["citations"]) - correct
    assert page.text.count('class="cite na"') == len(result["na_sentences"]) > 0
    bad_json = client.post("/run/attribute", data={"id": "a", "answer": "x", "graph": "[{"})
    assert bad_json.status_code == 422 and "not valid JSON" in bad_json.text


def test_knowledge_endpoint_and_page_show_the_six_dimensions(client):
    record = _first("knowledge/records.jsonl")
    reply = client.post("/v1/knowledge/score", json={"records": [record]})
    assert reply.status_code == 200
    result = reply.json()["results"][0]
    assert result["factuality"] is not None
    page = client.post("/run/knowledge", data={"query": record["query"], "knowledge": record["knowledge"]})
    assert page.status_code == 200
    for name in ("factuality", "relevance", "coherence", "informativeness", "helpfulness", "validity"):
        assert f">{name}</th>" in page.text
    assert "n/a: " in page.text


def test_a_job_runs_a_file_streams_its_rows_and_has_a_report(client):
    records = [{**CHECK, "id": f"job-{n}"} for n in range(3)]
    body = "".join(json.dumps(r) + "\n" for r in records)
    created = client.post("/v1/jobs?system=check&name=three.jsonl", content=body)
    assert created.status_code == 202
    job_id = created.json()["id"]
    deadline = time.time() + 120
    while (job := client.get(f"/v1/jobs/{job_id}").json())["status"] in ("queued", "running"):
        assert time.time() < deadline
        time.sleep(0.2)
    assert (job["status"], job["records"], job["done"]) == ("done", 3, 3)
    rows = [json.loads(line) for line in client.get(f"/v1/jobs/{job_id}/results").text.splitlines()]
    assert sorted(row["id"] for row in rows) == ["job-0", "job-1", "job-2"]
    followed = client.get(f"/v1/jobs/{job_id}/results?follow=true").text.splitlines()
    assert len(followed) == 3
    assert job_id in client.get("/jobs").text
    detail = client.get(f"/jobs/{job_id}").text
    assert "3 / 3" in detail and f"/jobs/{job_id}/report" in detail
    report = client.get(f"/jobs/{job_id}/report")
    assert report.status_code == 200 and all(f"job-{n}" in report.text for n in range(3))
    assert report.text.count('<section class="record') == 3
    assert str(client.app.state.server.store.data_dir) not in report.text
    assert client.post(f"/v1/jobs/{job_id}/cancel").json()["status"] == "done"
    uploaded = client.post("/jobs", data={"system": "check"}, files={"file": ("one.jsonl", json.dumps(CHECK) + "\n")},
                           follow_redirects=False)
    assert uploaded.status_code == 303 and uploaded.headers["location"].startswith("/jobs/")
    assert client.get(uploaded.headers["location"]).status_code == 200


def test_api_docs_are_served_without_a_cdn(client):
    docs = client.get("/docs")
    assert docs.status_code == 200
    assert "cdn" not in docs.text.lower() and "/docs-assets/swagger-ui-bundle.js" in docs.text
    assert client.get("/docs-assets/swagger-ui-bundle.js").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/v1/check", "/v1/ground", "/v1/attribute/score", "/v1/knowledge/score", "/v1/jobs"} <= set(paths)


PAYLOADS = (
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "' onmouseover='alert(3)",
    "javascript:alert(4)",
    '<a href="javascript:alert(5)">link</a>',
)


class _Tags(HTMLParser):
    """Every tag of a page with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def assert_inert(page: str) -> None:
    """No script but the page's own, no event-handler attribute, no javascript: URL, no injected element."""
    parser = _Tags()
    parser.feed(page)
    for tag, attrs in parser.tags:
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
        for name in ("href", "src", "action"):
            assert not (attrs.get(name) or "").strip().lower().startswith("javascript:"), (tag, attrs)
        assert tag != "img", attrs
        if tag == "script":
            assert attrs.get("src") == "/static/factscope.js"


@pytest.mark.parametrize("payload", PAYLOADS)
def test_every_user_string_is_escaped_on_every_page(client, payload):
    check = client.post("/run/check", data={"question": payload, "response": f"Paris is in France. {payload}",
                                            "references": f"Paris is the capital of France. {payload}"})
    assert check.status_code == 200 and "claim" in check.text
    assert_inert(check.text)
    ground = client.post("/run/ground", data={"question": payload, "contexts": f"Paris is in France. {payload}",
                                              "gold_facts": payload, "response": f"Paris is in France. {payload}",
                                              "answer": payload})
    assert ground.status_code == 200
    assert_inert(ground.text)
    graph = [{"qid": "Q90", "name": payload, "properties": {"country": ["France", payload]}}]
    attribute = client.post("/run/attribute", data={
        "id": payload, "question": payload, "answer": f"Paris is in France [Q90, country: {payload}]. {payload} [NA]",
        "graph": json.dumps(graph), "minimum": json.dumps([["Q90", "country", payload]]),
    })
    assert attribute.status_code == 200
    assert_inert(attribute.text)
    knowledge = client.post("/run/knowledge", data={"query": payload, "knowledge": f"Paris is in France. {payload}",
                                                    "answer": payload, "gold_answer": payload})
    assert knowledge.status_code == 200
    assert_inert(knowledge.text)
    refused = client.post("/run/check", data={"question": payload})
    assert refused.status_code == 422
    assert_inert(refused.text)


def test_a_job_page_of_an_unknown_job_is_no_such_job_and_cancel_goes_back_to_the_job(client):
    for method, path in (("GET", "/jobs/nope"), ("GET", "/jobs/nope/report"), ("POST", "/jobs/nope/cancel")):
        page = client.request(method, path)
        assert page.status_code == 404 and "No such job" in page.text and "no job &#39;nope&#39;" in page.text, path
    created = client.post("/v1/jobs?system=check&name=one.jsonl", content=json.dumps(CHECK) + "\n")
    job_id = created.json()["id"]
    cancelled = client.post(f"/jobs/{job_id}/cancel", follow_redirects=False)
    assert cancelled.status_code == 303 and cancelled.headers["location"] == f"/jobs/{job_id}"


def test_job_pages_escape_file_names_and_skipped_record_messages(client):
    payload = PAYLOADS[1]
    body = json.dumps({"id": payload, "response": 7}) + "\n" + json.dumps({**CHECK, "id": payload}) + "\n"
    created = client.post("/v1/jobs", params={"system": "check", "name": f"{payload}.jsonl"}, content=body)
    job_id = created.json()["id"]
    deadline = time.time() + 120
    while client.get(f"/v1/jobs/{job_id}").json()["status"] in ("queued", "running"):
        assert time.time() < deadline
        time.sleep(0.2)
    for path in ("/jobs", f"/jobs/{job_id}", f"/jobs/{job_id}/report"):
        page = client.get(path)
        assert page.status_code == 200
        assert_inert(page.text)
