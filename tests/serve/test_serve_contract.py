"""The server keeps its OpenAPI contract: schemathesis runs all of its checks against the real app served by uvicorn
on 127.0.0.1 (deterministic generation, a few examples per operation) and finds no failure; every status the server
answers is declared, a request the schema refuses is refused, a request it allows is accepted (but for the rules of a
whole request that ``contract_hooks`` tells apart), and a 405 names the methods its path takes. The
server's defaults are the library's: each system's spec on a server started with no options is the spec's own
default, and each request option defaults to the spec's value."""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("schemathesis")

import uvicorn

import factscope
from factscope.serve.app import create_app
from factscope.serve.config import Components, ServeConfig
from factscope.serve.request_options import request_options
from factscope.serve.systems import make_systems
from factscope.systems import SYSTEMS

SUPPORT = Path(__file__).parents[1] / "support"
"""Where the schemathesis hooks of the test are (``contract_hooks``)."""
SYNCHRONOUS = ("/v1/check", "/v1/ground", "/v1/attribute/score", "/v1/knowledge/score")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[str]:
    """The app with the offline models (built before serving, as `factscope serve` does), on loopback."""
    config = ServeConfig(data_dir=tmp_path_factory.mktemp("contract"), components=Components(knowledge_lm="none"))
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(config, warm=True), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 240
    while not server.started:
        assert thread.is_alive() and time.time() < deadline, "the server did not come up"
        time.sleep(0.2)
    yield url
    server.should_exit = True
    thread.join(30)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_schemathesis_finds_no_failure_with_all_of_its_checks(served, tmp_path):
    source = str(Path(factscope.__file__).parents[1])
    env = {**os.environ, "SCHEMATHESIS_HOOKS": "contract_hooks",
           "PYTHONPATH": os.pathsep.join([str(SUPPORT), source, os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run(
        [sys.executable, "-m", "schemathesis.cli", "run", f"{served}/openapi.json", "--checks", "all",
         "--max-examples", "5", "--generation-deterministic", "--request-timeout", "60", "--no-color"],
        check=False, capture_output=True, text=True, timeout=240, cwd=tmp_path, env=env,
    )
    summary = run.stdout[run.stdout.find("SUMMARY"):]
    assert run.returncode == 0, run.stdout[-6000:]
    assert "10 selected / 10 total" in run.stdout and " passed" in summary and "Failures:" not in summary
    warnings = run.stdout[run.stdout.find("WARNINGS"):run.stdout.find("SUMMARY")]
    mostly_refused = [path for path in SYNCHRONOUS if f"POST {path}\n" in warnings]
    assert not mostly_refused, warnings


def test_the_schema_refuses_no_records_and_names_the_systems_of_a_job(served):
    schema = httpx.get(f"{served}/openapi.json").json()
    check = schema["components"]["schemas"]["CheckRequest"]["properties"]["records"]
    assert check["minItems"] == 1
    jobs = schema["paths"]["/v1/jobs"]["post"]
    system = next(parameter for parameter in jobs["parameters"] if parameter["name"] == "system")
    assert system["schema"]["enum"] == [system.name for system in SYSTEMS]
    assert set(jobs["responses"]) == {"202", "400", "413", "415", "422", "503", "507"}
    assert set(schema["paths"]["/v1/jobs/{job_id}"]["get"]["responses"]) == {"200", "404", "422"}
    records = {name: schema["components"]["schemas"][f"{name}RequestRecord"]["required"]
               for name in ("Check", "Ground", "Answer", "Knowledge")}
    assert records == {"Check": ["response"], "Ground": ["question", "contexts", "gold_facts", "response"],
                       "Answer": ["id", "answer", "graph"], "Knowledge": ["query", "knowledge"]}
    assert check["items"] == {"$ref": "#/components/schemas/CheckRequestRecord"}
    reply = httpx.post(f"{served}/v1/check", json={"records": []})
    assert reply.status_code == 422 and reply.json()["error"]["field"] == "records"
    missing = httpx.get(f"{served}/v1/jobs/nope")
    assert missing.status_code == 404 and missing.json()["error"]["message"] == "no job 'nope'"


def test_options_that_do_not_fit_the_records_are_a_422(served):
    record = {"question": "q", "contexts": ["c"], "gold_facts": ["f"], "response": "r"}
    reply = httpx.post(f"{served}/v1/ground", json={"records": [record], "factors": ["pop"]})
    assert reply.status_code == 422 and reply.json()["error"]["field"] == "records"
    assert "cannot break results down by 'pop'" in reply.json()["error"]["message"]


def test_a_405_names_the_methods_its_path_takes(served):
    assert httpx.put(f"{served}/v1/jobs").headers["allow"] == "GET, POST"
    assert httpx.delete(f"{served}/v1/check").headers["allow"] == "POST"
    assert httpx.request("TRACE", f"{served}/v1/jobs/x/results").headers["allow"] == "GET"


def test_every_server_default_is_the_specs():
    for name, system in make_systems(Components()).items():
        spec_type = type(system._spec)
        assert system._spec == spec_type(), name
        fields = system.request_type.model_fields
        for item in request_options(spec_type):
            assert fields[item.name].default == getattr(spec_type(), item.name), (name, item.name)
    components = {item.name: item.default for item in dataclasses.fields(Components)}
    for system in SYSTEMS:
        for served_field in system.served:
            expected = next(item for item in dataclasses.fields(system.spec_type) if item.name == served_field.name)
            assert components[f"{system.name}_{served_field.name}"] == expected.default


def test_every_system_of_the_registry_is_served_at_the_path_its_command_names():
    systems = make_systems(Components())
    assert list(systems) == [system.name for system in SYSTEMS]
    assert tuple(served.path for served in systems.values()) == SYNCHRONOUS
