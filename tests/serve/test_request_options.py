"""A synchronous request may set the options of its system's spec that are safe per request: its body's model is
generated from the spec (type, default, range, check, help), shows in the OpenAPI schema, refuses a bad or an
unknown option with a located 422, and the request runs with the server's spec and its own options; requests with
different options that share a batch each get the results of their own options; a job keeps the options it was
submitted with."""

import json
import time
from dataclasses import dataclass, field

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from factscope.claims.registry import make_extractor
from factscope.core.errors import ConfigError
from factscope.core.options.metadata import about
from factscope.core.schema import Label, Verdict
from factscope.kalma.spec import AttributeSpec
from factscope.kalma.system import ATTRIBUTE
from factscope.refchecker.spec import CheckSpec
from factscope.refchecker.system import CHECK
from factscope.serve.app import create_app
from factscope.serve.batching import run_requests
from factscope.serve.config import Components, ServeConfig
from factscope.serve.request_options import request_model, request_options
from factscope.serve.systems import ServedSystem, make_systems

NO_REFERENCES = {"id": "n", "response": "Paris is in France."}
DECLINES = {"id": "d", "response": "The references do not say. Paris is in France.",
            "references": ["Paris is in France."]}


class Entails:
    """A checker that finds every claim supported."""

    name = "entails"

    def check(self, tasks):
        return [Verdict(label=Label.ENTAILMENT) for _ in tasks]


def _check() -> ServedSystem:
    return ServedSystem(CHECK, CheckSpec(extractor=make_extractor("sentences"), checker=Entails()))


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    systems = {"check": _check(), "attribute": ServedSystem(ATTRIBUTE, AttributeSpec(checker=Entails()))}
    app = create_app(ServeConfig(data_dir=tmp_path_factory.mktemp("options")), systems=systems)
    with TestClient(app) as test_client:
        yield test_client


def test_each_systems_request_offers_its_per_request_settings_and_no_component():
    offered = {name: [item.name for item in request_options(type(system._spec))]
               for name, system in make_systems(Components()).items()}
    assert offered == {
        "check": ["abstention_detection", "allow_missing_references"],
        "ground": ["factors", "no_response_facts", "no_gold_facts"],
        "attribute": ["template", "empty_answers", "matching"],
        "knowledge": [],
    }


def test_the_options_show_in_the_openapi_schema_with_default_choices_and_help(client):
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    check = schemas["CheckRequest"]
    assert check["properties"]["abstention_detection"]["default"] is True
    assert check["properties"]["allow_missing_references"]["description"].startswith("go on when some records")
    assert check["additionalProperties"] is False and check["required"] == ["records"]
    attribute = schemas["AttributeRequest"]["properties"]
    assert attribute["matching"]["enum"] == ["normalized", "paper"] and attribute["matching"]["default"] == "normalized"
    body = client.get("/openapi.json").json()["paths"]["/v1/check"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"]["$ref"].endswith("/CheckRequest")


@pytest.mark.filterwarnings("ignore:1 record")
def test_a_request_option_sets_the_run_policy_of_that_request_only(client):
    refused = client.post("/v1/check", json={"records": [NO_REFERENCES]})
    assert refused.status_code == 422 and "have no references" in refused.json()["error"]["message"]
    allowed = client.post("/v1/check", json={"records": [NO_REFERENCES], "allow_missing_references": True})
    assert allowed.status_code == 200, allowed.text
    assert [claim["claim"]["text"] for claim in allowed.json()["results"][0]["claims"]] == ["Paris is in France."]
    assert client.post("/v1/check", json={"records": [NO_REFERENCES]}).status_code == 422


def test_a_bad_or_unknown_option_is_a_located_422(client):
    wrong = client.post("/v1/attribute/score", json={"records": [{}], "matching": "fuzzy"})
    assert wrong.status_code == 422 and wrong.json()["error"]["field"] == "matching"
    template = client.post("/v1/attribute/score", json={"records": [{}], "template": "{colour}"})
    assert template.status_code == 422 and template.json()["error"]["field"] == "template"
    assert "use the fields {qid}, {name}, {relation} and {value}" in template.json()["error"]["message"]
    unknown = client.post("/v1/check", json={"records": [DECLINES], "abstension_detection": False})
    assert unknown.status_code == 422 and unknown.json()["error"]["field"] == "abstension_detection"
    component = client.post("/v1/check", json={"records": [DECLINES], "checker": "llm"})
    assert component.status_code == 422 and component.json()["error"]["field"] == "checker"


def test_requests_with_other_options_in_one_batch_each_get_their_own_results():
    system = _check()
    items = [system.parse(DECLINES, 0)]
    on, off, default = run_requests(system, [items, items, items], [{}, {"abstention_detection": False}, {}])
    kept = [[claim.claim.text for claim in run.results[0].claims] for run in (on, off, default)]
    assert kept == [["Paris is in France."], ["The references do not say.", "Paris is in France."],
                    ["Paris is in France."]]


def _finished(client, job_id):
    deadline = time.time() + 30
    while time.time() < deadline:
        job = client.get(f"/v1/jobs/{job_id}").json()
        if job["status"] in ("done", "failed", "cancelled"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} never finished")


@pytest.mark.filterwarnings("ignore:1 record")
def test_a_job_runs_with_the_options_it_was_submitted_with(client):
    body = (json.dumps(NO_REFERENCES) + "\n").encode()
    plain = client.post("/v1/jobs", params={"system": "check"}, content=body).json()
    assert plain["options"] == {}
    failed = _finished(client, plain["id"])
    assert failed["status"] == "failed" and "allow_missing_references" in failed["error"]
    options = json.dumps({"allow_missing_references": True, "abstention_detection": False})
    allowed = client.post("/v1/jobs", params={"system": "check", "options": options}, content=body).json()
    assert allowed["options"] == {"allow_missing_references": True, "abstention_detection": False}
    assert _finished(client, allowed["id"])["status"] == "done"
    rows = client.get(f"/v1/jobs/{allowed['id']}/results").text.splitlines()
    assert [json.loads(row)["id"] for row in rows] == ["n"]


def test_a_jobs_options_show_in_the_schema_as_json_of_one_systems_options(client):
    schema = client.get("/openapi.json").json()
    parameters = schema["paths"]["/v1/jobs"]["post"]["parameters"]
    options = next(parameter for parameter in parameters if parameter["name"] == "options")
    assert "schema" not in options and options["required"] is False
    choices = options["content"]["application/json"]["schema"]["anyOf"]
    assert choices == [{"$ref": "#/components/schemas/CheckOptions"}, {"$ref": "#/components/schemas/AttributeOptions"}]
    schemas = schema["components"]["schemas"]
    attribute = schemas["AttributeOptions"]
    assert attribute["additionalProperties"] is False and "records" not in attribute["properties"]
    assert attribute["properties"]["matching"]["enum"] == ["normalized", "paper"]
    assert attribute["properties"]["matching"]["default"] == "normalized"
    assert schemas["CheckOptions"]["properties"]["allow_missing_references"]["type"] == "boolean"


@pytest.mark.parametrize(("options", "field"), [
    ('{"allow_missing_references": "perhaps"}', "options.allow_missing_references"),
    ('{"checker": "llm"}', "options.checker"),
    ("[1]", "options"),
    ("{not json", "options"),
])
def test_a_jobs_bad_options_are_a_located_422_and_queue_nothing(client, options, field):
    before = len(client.get("/v1/jobs").json())
    reply = client.post("/v1/jobs", params={"system": "check", "options": options}, content=b"{}\n")
    assert reply.status_code == 422 and reply.json()["error"]["field"] == field
    assert len(client.get("/v1/jobs").json()) == before


def test_an_option_named_records_is_refused_when_the_model_is_made():
    @dataclass(frozen=True)
    class Shadowing(CheckSpec):
        records: int = field(default=1, metadata=about("records per call", per_request=True))

    with pytest.raises(ConfigError, match="an option named 'records' would hide a request's records"):
        request_model("check", Shadowing, CHECK.request_record)
