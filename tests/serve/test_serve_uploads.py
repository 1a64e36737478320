"""A job's input file as people send it: a multipart form upload in the field `file` (curl -F, requests' files=,
an HTML form) reads as the file it holds, as a raw body does (curl --data-binary, which calls it urlencoded);
any other body is refused with 415 naming both forms; and what the server says of a job names its input as the
client named it, never by a path of the server's."""

import json
import time

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from factscope.serve.app import create_app
from factscope.serve.config import ServeConfig
from serve_fakes import FakeSystem

RECORDS = [{"id": f"r{n}", "text": "x" * n} for n in range(6)]
BODY = "".join(json.dumps(record) + "\n" for record in RECORDS)


@pytest.fixture
def client(tmp_path):
    config = ServeConfig(data_dir=tmp_path / "data", job_batch_size=2)
    with TestClient(create_app(config, systems={"fake": FakeSystem()})) as test_client:
        yield test_client


def _finished(client, reply) -> dict:
    assert reply.status_code == 202, reply.text
    job_id = reply.json()["id"]
    deadline = time.time() + 30
    while (job := client.get(f"/v1/jobs/{job_id}").json())["status"] in ("queued", "running"):
        assert time.time() < deadline
        time.sleep(0.05)
    return job


def test_a_multipart_upload_runs_the_file_it_holds_under_its_file_name(client):
    job = _finished(client, client.post("/v1/jobs", params={"system": "fake"},
                                        files={"file": ("answers.jsonl", BODY, "application/x-ndjson")}))
    assert (job["status"], job["input_name"], job["records"], job["skipped"]) == ("done", "answers.jsonl", 6, 0)
    rows = client.get(f"/v1/jobs/{job['id']}/results").text.splitlines()
    assert sorted(json.loads(row)["id"] for row in rows) == [record["id"] for record in RECORDS]
    named = _finished(client, client.post("/v1/jobs", params={"system": "fake", "name": "mine.jsonl"},
                                          files={"file": ("answers.jsonl", BODY)}))
    assert named["input_name"] == "mine.jsonl"


@pytest.mark.parametrize("kind", [None, "application/x-www-form-urlencoded", "application/x-ndjson", "text/plain"])
def test_a_raw_body_is_the_file_whatever_plain_type_it_is_sent_as(client, kind):
    headers = {"content-type": kind} if kind else {}
    job = _finished(client, client.post("/v1/jobs", params={"system": "fake", "name": "raw.jsonl"},
                                        content=BODY.encode(), headers=headers))
    assert (job["status"], job["input_name"], job["records"], job["skipped"]) == ("done", "raw.jsonl", 6, 0)


def test_a_body_of_another_kind_is_refused_with_415_naming_both_forms(client):
    before = len(client.get("/v1/jobs").json())
    refused = client.post("/v1/jobs", params={"system": "fake"}, content=b"\x89PNG", headers={"content-type": "image/png"})
    assert refused.status_code == 415
    message = refused.json()["error"]["message"]
    assert "image/png" in message and "raw request body" in message
    assert "multipart/form-data" in message and "'file'" in message
    assert len(client.get("/v1/jobs").json()) == before


def test_a_form_without_the_file_field_is_refused_naming_the_field(client):
    refused = client.post("/v1/jobs", params={"system": "fake"}, files={"upload": ("answers.jsonl", BODY)})
    assert refused.status_code == 422
    assert refused.json()["error"]["field"] == "file" and "'file'" in refused.json()["error"]["message"]
    assert [path.name for path in client.app.state.server.store.inputs.iterdir()] == []


def test_the_openapi_schema_documents_both_forms_and_the_field(client):
    body = client.get("/openapi.json").json()["paths"]["/v1/jobs"]["post"]["requestBody"]["content"]
    assert body["multipart/form-data"]["schema"]["required"] == ["file"]
    assert "application/x-ndjson" in body


def test_a_jobs_problems_and_error_name_its_input_as_the_client_did_and_no_server_path(client):
    broken = BODY + '{"id": "cut", "text": "x\n' + json.dumps({"id": "bad"}) + "\n"
    job = _finished(client, client.post("/v1/jobs", params={"system": "fake"},
                                        files={"file": ("answers.jsonl", broken)}))
    assert job["skipped"] == 2
    assert job["problems"][0].startswith("answers.jsonl:7: ") and job["problems"][1].startswith("answers.jsonl:8: ")
    empty = _finished(client, client.post("/v1/jobs", params={"system": "fake", "name": "none.jsonl"},
                                          content=json.dumps({"id": "bad"}) + "\n"))
    assert empty["status"] == "failed" and empty["error"].startswith("none.jsonl: ")
    data = str(client.app.state.server.store.data_dir)
    for shown in (client.get(f"/v1/jobs/{job['id']}").text, client.get(f"/v1/jobs/{empty['id']}").text,
                  client.get("/v1/jobs").text, client.get(f"/jobs/{job['id']}").text):
        assert data not in shown and "inputs/" not in shown
