"""The server's check endpoint with each published judge as its checker (tiny random models of their layouts)."""

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from factscope.serve.app import create_app
from factscope.serve.config import Components, ServeConfig
from tiny_judges import build_alignscore, build_hhem, build_minicheck_t5

BUILDERS = {"minicheck": build_minicheck_t5, "hhem": build_hhem, "alignscore": build_alignscore}
RECORD = {"id": "r1", "response": "The cat sat on the mat.", "references": ["The cat sat on the mat. The dog ran."]}


@pytest.mark.parametrize("judge", sorted(BUILDERS))
def test_check_request_with_a_judge(judge, tmp_path):
    spec = f"{judge}:{BUILDERS[judge](tmp_path / judge)}"
    config = ServeConfig(data_dir=tmp_path / "serve", components=Components(check_checker=spec))
    with TestClient(create_app(config, warm=False)) as client:
        reply = client.post("/v1/check", json={"records": [RECORD]})
    assert reply.status_code == 200, reply.text
    claims = reply.json()["results"][0]["claims"]
    assert claims and all(claim["verdict"]["probs"] is not None for claim in claims)
    assert all(claim["verdict"]["label"] in ("Entailment", "Neutral", "Contradiction") for claim in claims)
