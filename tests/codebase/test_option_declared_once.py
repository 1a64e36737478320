"""An option is declared once, in its system's spec, and every front-end follows: one field added to ``CheckSpec``
is an option of `factscope check --help`, a keyword that the Python API must offer with the spec's default (the
test that holds the API to the spec names it until it does), a field of the server's request body in its OpenAPI
schema (range-checked, and reaching the spec of that request), and a setting of the results file's manifest when
it is not at its default (and absent at its default, so that files written before it still resume)."""

from __future__ import annotations

import dataclasses
import inspect
import json
from dataclasses import dataclass, field

import pytest
from typer.testing import CliRunner

import factscope
from command_line import command_line, swap_option_groups
from factscope.claims.registry import make_extractor
from factscope.cli import check as check_command
from factscope.core.files.manifest import manifest_path
from factscope.core.options.metadata import about
from factscope.core.schema import Label, Verdict
from factscope.refchecker.spec import CheckSpec
from factscope.refchecker.system import CheckSystem

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from factscope.serve.app import create_app
from factscope.serve.config import ServeConfig
from factscope.serve.systems import ServedSystem

RECORD = {"id": "r", "response": "Paris is in France.", "references": ["Paris is in France."]}


@dataclass(frozen=True)
class SpecWithKnob(CheckSpec):
    claim_budget: int = field(default=7, metadata=about("at most N claims per response", min=1, per_request=True))


class Entails:
    """A checker that finds every claim supported."""

    name = "entails"

    def check(self, tasks):
        return [Verdict(label=Label.ENTAILMENT) for _ in tasks]


class KnobCheck(CheckSystem):
    """The check system, noting the claim budget of each spec it builds a pipeline of."""

    def __init__(self) -> None:
        super().__init__()
        self.budgets: list[int] = []

    def build(self, spec, llm):
        self.budgets.append(spec.claim_budget)
        return super().build(spec, llm)


def _spec(**options) -> SpecWithKnob:
    return SpecWithKnob(extractor=make_extractor("sentences"), checker=Entails(), **options)


def api_lacks(function, spec: type) -> list[str]:
    """The fields of ``spec`` that the API ``function`` does not offer as a keyword with the spec's default (as
    ``tests/codebase/test_spec_options.py`` holds every API function to its spec)."""
    keywords = inspect.signature(function).parameters
    return [item.name for item in dataclasses.fields(spec)
            if item.name not in ("checker_settings", "web", "settings")
            and (item.name not in keywords or keywords[item.name].default != item.default)]


def test_the_option_is_in_help(monkeypatch):
    swap_option_groups(monkeypatch, CheckSystem, {CheckSpec: SpecWithKnob})
    shown = " ".join(CliRunner().invoke(command_line(check_command), ["check", "--help"],
                                        env={"COLUMNS": "200"}).output.split())
    assert "--claim-budget" in shown and "at most N claims per response" in shown and "x>=1" in shown


def test_the_python_api_is_held_to_offer_it_with_the_specs_default():
    assert api_lacks(factscope.check, CheckSpec) == [] and api_lacks(factscope.acheck, CheckSpec) == []
    assert api_lacks(factscope.check, SpecWithKnob) == ["claim_budget"]


def test_the_option_is_in_the_openapi_schema_range_checked_and_reaches_the_requests_spec(tmp_path):
    system = KnobCheck()
    app = create_app(ServeConfig(data_dir=tmp_path), systems={"check": ServedSystem(system, _spec())})
    with TestClient(app) as client:
        schema = client.get("/openapi.json").json()["components"]["schemas"]["CheckRequest"]["properties"]
        assert schema["claim_budget"] == {"type": "integer", "minimum": 1, "default": 7, "title": "Claim Budget",
                                          "description": "at most N claims per response"}
        refused = client.post("/v1/check", json={"records": [RECORD], "claim_budget": 0})
        assert refused.status_code == 422 and refused.json()["error"]["field"] == "claim_budget"
        assert client.post("/v1/check", json={"records": [RECORD], "claim_budget": 3}).status_code == 200
        assert client.post("/v1/check", json={"records": [RECORD]}).status_code == 200
    assert set(system.budgets) == {3, 7} and system.budgets[-1] == 7


def test_the_option_is_in_the_results_fingerprint_unless_at_its_default(tmp_path):
    system = KnobCheck()
    system.run(_spec(claim_budget=3), [RECORD], output=tmp_path / "set.jsonl")
    system.run(_spec(), [RECORD], output=tmp_path / "default.jsonl")
    settings = {name: json.loads(manifest_path(tmp_path / f"{name}.jsonl").read_text())["settings"]
                for name in ("set", "default")}
    assert settings["set"]["claim_budget"] == 3 and "claim_budget" not in settings["default"]
    assert {**settings["default"], "claim_budget": 3} == settings["set"]
