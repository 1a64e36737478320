"""A cascade checker on the server: the verdicts, and which checker decided each, are the Python API's."""

import pytest

pytest.importorskip("fastapi")

pytestmark = pytest.mark.timeout(600)

from fastapi.testclient import TestClient

import factscope
from factscope.serve.app import create_app
from factscope.serve.config import Components, ServeConfig

CHECK = {
    "id": "curie",
    "question": "Where was Marie Curie born?",
    "response": "Marie Curie was born in Paris. She won the Nobel Prize in Physics.",
    "references": ["Marie Curie was born in Warsaw in 1867. She shared the 1903 Nobel Prize in Physics."],
}


@pytest.mark.parametrize(
    ("spec", "escalated"),
    [("cascade:embedded,similarity,0,1", True), ("cascade:embedded,similarity,0.999999,1", False)],
    ids=["every-claim-escalated", "none-escalated"],
)
def test_the_server_decides_each_claim_with_the_checker_the_api_does(tmp_path, spec, escalated):
    config = ServeConfig(data_dir=tmp_path, components=Components(check_checker=spec))
    with TestClient(create_app(config)) as client:
        reply = client.post("/v1/check", json={"records": [CHECK]})
    assert reply.status_code == 200, reply.text
    served = [claim["verdict"] for claim in reply.json()["results"][0]["claims"]]
    expected = [claim.verdict for claim in factscope.check([CHECK], checker=spec).results[0].claims]
    assert served and len(served) == len(expected)
    assert [v["label"] for v in served] == [v.label.value for v in expected]
    assert [v["decided_by"] for v in served] == [v.decided_by for v in expected]
    assert all(v["escalated"] is escalated for v in served)
    assert all(v["decided_by"].startswith("similarity" if escalated else "embedded") for v in served)
