"""The server's guards, none of which needs a model: the API key, loopback binding, size limits, error bodies
without tracebacks, and uploads kept inside the data folder."""

import json
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from cli_entry import run_factscope
from factscope.core.errors import ConfigError
from factscope.serve.app import create_app
from factscope.serve.config import Limits, ServeConfig
from factscope.serve.security import inside, is_loopback, require_key_off_loopback, safe_name

KEY = "k3y-for-tests"
RECORD = {"id": "r1", "response": "Paris is in France.", "references": ["Paris is the capital of France."]}


@pytest.fixture(scope="module")
def keyed(tmp_path_factory):
    with TestClient(create_app(ServeConfig(data_dir=tmp_path_factory.mktemp("keyed"), api_key=KEY))) as client:
        yield client


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    limits = Limits(max_body_bytes=3000, max_upload_bytes=5000, max_records=2, max_field_chars=60)
    app = create_app(ServeConfig(data_dir=tmp_path_factory.mktemp("limited"), limits=limits))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def test_every_request_needs_the_key_by_header_or_sign_in_cookie(keyed):
    assert keyed.get("/v1/health").status_code == 401
    assert keyed.get("/v1/health", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert keyed.get("/openapi.json").status_code == 401
    assert keyed.post("/v1/check", json={"records": [RECORD]}).status_code == 401
    assert keyed.get("/v1/health", headers={"Authorization": f"Bearer {KEY}"}).status_code == 200
    assert keyed.get("/v1/health", headers={"X-API-Key": KEY}).status_code == 200
    page = keyed.get("/jobs", follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"] == "/login"
    assert keyed.get("/static/factscope.css").status_code == 200
    assert keyed.post("/login", data={"key": "wrong"}).status_code == 401
    signed = keyed.post("/login", data={"key": KEY}, follow_redirects=False)
    assert signed.status_code == 303
    assert "httponly" in signed.headers["set-cookie"].lower()
    assert keyed.get("/jobs").status_code == 200
    keyed.cookies.clear()
    assert keyed.get("/v1/jobs").status_code == 401


def test_only_loopback_may_be_bound_without_a_key():
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        assert is_loopback(host)
        require_key_off_loopback(host, None)
    for host in ("0.0.0.0", "::", "192.168.1.4", "example.org"):
        assert not is_loopback(host)
        with pytest.raises(ConfigError, match="`api_key`"):
            require_key_off_loopback(host, None)
    require_key_off_loopback("0.0.0.0", KEY)


def test_serve_refuses_to_start_on_another_address_without_a_key(monkeypatch, capsys):
    monkeypatch.delenv("FACTSCOPE_API_KEY", raising=False)
    ran = run_factscope(monkeypatch, capsys, "serve", "--host", "0.0.0.0", "--port", "1")
    assert ran.code == 2
    assert "--api-key" in ran.text and "FACTSCOPE_API_KEY" in ran.text


def test_too_many_records_is_413_naming_the_field(limited):
    reply = limited.post("/v1/check", json={"records": [RECORD, RECORD, RECORD]})
    assert reply.status_code == 413
    assert reply.json()["error"]["field"] == "records"


def test_a_text_over_the_limit_is_422_naming_record_and_field(limited):
    long = {**RECORD, "references": ["short", "x" * 61]}
    reply = limited.post("/v1/check", json={"records": [RECORD, long]})
    assert reply.status_code == 422
    error = reply.json()["error"]
    assert (error["field"], error["record"]) == ("records.1.references.1", 1)


def test_a_body_over_the_limit_is_413(limited):
    reply = limited.post("/v1/check", content=json.dumps({"records": [RECORD], "pad": "x" * 4000}),
                         headers={"content-type": "application/json"})
    assert reply.status_code == 413
    assert reply.json()["error"]["field"] == "body"
    upload = limited.post("/v1/jobs?system=check", content=b"{}\n" * 2000)
    assert upload.status_code == 413


def test_bad_records_are_422_naming_index_and_field(limited):
    reply = limited.post("/v1/check", json={"records": [RECORD, {"id": "r2", "references": ["x"]}]})
    assert reply.status_code == 422
    assert reply.json()["error"] == {"message": "records.1.response: missing", "field": "records.1.response",
                                     "record": 1}
    repeated = limited.post("/v1/check", json={"records": [RECORD, RECORD]})
    assert repeated.status_code == 422 and repeated.json()["error"]["field"] == "records.1.id"
    malformed = limited.post("/v1/check", content=b"{not json", headers={"content-type": "application/json"})
    assert malformed.status_code == 422
    assert limited.post("/v1/check", json={"records": []}).status_code == 422
    assert limited.post("/v1/check", json={"records": ["text"]}).json()["error"]["record"] == 0


def test_an_unexpected_error_answers_500_without_a_traceback(limited):
    system = limited.app.state.server.systems["check"]

    def broken(*args):
        raise RuntimeError("/very/secret/path exploded")

    original = system.process
    system.process = broken
    try:
        reply = limited.post("/v1/check", json={"records": [RECORD]})
    finally:
        system.process = original
    assert reply.status_code == 500
    assert "Traceback" not in reply.text and "/very/secret/path" not in reply.text
    assert "RuntimeError" in reply.json()["error"]["message"]


def test_uploads_stay_inside_the_data_folder(limited, tmp_path):
    server = limited.app.state.server
    reply = limited.post("/v1/jobs?system=check&name=../../../../evil.jsonl", content=b'{"id": 1}\n')
    assert reply.status_code == 202
    job = reply.json()
    assert job["input_name"] == "evil.jsonl"
    input_path, _ = server.store.paths(job["id"])
    assert input_path.parent == server.store.inputs
    deadline = time.time() + 20
    while limited.get(f"/v1/jobs/{job['id']}").json()["status"] != "failed" and time.time() < deadline:
        time.sleep(0.05)
    failed = limited.get(f"/v1/jobs/{job['id']}").json()
    assert failed["status"] == "failed" and failed["skipped"] == 1
    assert str(server.store.data_dir) not in failed["error"]
    outside = limited.post("/v1/jobs?system=check&path=../jobs.sqlite3")
    assert outside.status_code == 422 and outside.json()["error"]["field"] == "path"
    assert limited.post("/v1/jobs?system=nope", content=b"{}").status_code == 422
    assert limited.get("/v1/jobs/does-not-exist").status_code == 404


def test_safe_names_and_inside():
    assert safe_name("../../a b/c<script>.jsonl") == "c_script_.jsonl"
    assert safe_name("..\\..\\x.json") == "x.json"
    assert safe_name("....") == "input.jsonl"
    assert safe_name(".hidden") == "hidden"
    with pytest.raises(ValueError):
        inside(Path("/tmp/data"), "../etc/passwd")
