"""The cascade checker: the first checker decides unless its P(Entailment) is inside the band; every verdict says
which checker decided it; the spec, the fitted band and the summary's escalated share."""

from __future__ import annotations

import json

import pytest

from cli_entry import run_factscope
from factscope.checkers.base import CheckTask
from factscope.checkers.cascade import CascadeChecker, parse_cascade
from factscope.checkers.registry import make_checker
from factscope.core.errors import ConfigError
from factscope.core.schema import Label, Verdict


class FixedChecker:
    """Gives each claim the P(Entailment) written in it after '@' (no '@': a rule verdict without probabilities)."""

    def __init__(self, name: str, label: Label) -> None:
        self.name = name
        self.label = label
        self.seen: list[str] = []

    def check(self, tasks):
        self.seen += [task.claim for task in tasks]
        verdicts = []
        for task in tasks:
            _, at, value = task.claim.partition("@")
            if not at:
                verdicts.append(Verdict(label=Label.NEUTRAL, rule="relevance", reason="no relevant segment"))
                continue
            p = float(value)
            verdicts.append(Verdict(label=self.label, probs=(p, 1 - p, 0.0), rule="model", reason=f"{self.name} says"))
        return verdicts


def tasks(*claims: str) -> list[CheckTask]:
    return [CheckTask(claim=claim, references=("a reference",)) for claim in claims]


def test_only_claims_inside_the_band_go_to_the_second_checker():
    first, second = FixedChecker("small", Label.ENTAILMENT), FixedChecker("large", Label.CONTRADICTION)
    cascade = CascadeChecker(first, second, (0.3, 0.7))
    verdicts = cascade.check(tasks("a@0.95", "b@0.5", "c@0.3", "d@0.71", "e@0.05", "no probabilities"))
    # the band is closed: 0.3 and 0.5 are inside, 0.71 is not; a rule verdict without probabilities stays
    assert second.seen == ["b@0.5", "c@0.3"]
    assert [v.decided_by for v in verdicts] == ["small", "large", "large", "small", "small", "small"]
    assert [v.escalated for v in verdicts] == [False, True, True, False, False, False]
    assert [v.label for v in verdicts] == [Label.ENTAILMENT, Label.CONTRADICTION, Label.CONTRADICTION,
                                           Label.ENTAILMENT, Label.ENTAILMENT, Label.NEUTRAL]
    assert verdicts[1].reason.startswith("escalated (small P(Entailment) 0.50 in [0.30, 0.70]); large says")


def test_nothing_uncertain_means_the_second_checker_is_never_called():
    first, second = FixedChecker("small", Label.ENTAILMENT), FixedChecker("large", Label.NEUTRAL)
    CascadeChecker(first, second, (0.4, 0.6)).check(tasks("a@0.9", "b@0.1"))
    assert second.seen == []


@pytest.mark.parametrize(
    "argument, parsed",
    [
        ("embedded,mpnet", ("embedded", "mpnet", None)),
        ("embedded, llm ,0.25,0.75", ("embedded", "llm", (0.25, 0.75))),
        ("path:/tmp/x,nli:some/model", ("path:/tmp/x", "nli:some/model", None)),
    ],
)
def test_the_spec_names_two_checkers_and_an_optional_band(argument, parsed):
    assert parse_cascade(argument) == parsed


@pytest.mark.parametrize("argument", ["embedded", "embedded,mpnet,0.2", "embedded,mpnet,low,high", ","])
def test_a_malformed_spec_says_how_to_write_it(argument):
    with pytest.raises(ConfigError, match="cascade:"):
        parse_cascade(argument)


def test_a_band_outside_zero_to_one_or_reversed_is_refused():
    first = FixedChecker("small", Label.ENTAILMENT)
    for band in [(0.7, 0.3), (-0.1, 0.5), (0.5, 1.2)]:
        with pytest.raises(ConfigError, match="low < high"):
            CascadeChecker(first, first, band)


def test_a_first_checker_without_a_fitted_band_needs_one_in_the_spec():
    with pytest.raises(ConfigError, match="no uncertainty band is fitted for 'similarity'"):
        make_checker("cascade:similarity,embedded")


def test_the_shipped_band_is_fitted_for_the_embedded_checker():
    from factscope.checkers.cascade import BANDS_FILE, fitted_band

    bands = json.loads(BANDS_FILE.read_text())
    low, high = fitted_band("embedded")
    assert 0.0 <= low < high <= 1.0
    assert bands["embedded"]["fitted_on"].startswith("the users'-task benchmark")


def test_check_with_the_real_cascade_of_embedded_and_mpnet(monkeypatch, capsys, tmp_path):
    """The real mpnet checker end to end: its base from the five PyPI pieces, its shipped delta, the cascade's
    summary row and each claim's decided_by in the results; its former name still works, with a warning."""
    records = tmp_path / "in.jsonl"
    reference = (
        "The James Webb Space Telescope was launched on 25 December 2021. Its primary mirror is made of 18 "
        "hexagonal segments. It orbits the Sun near the second Lagrange point, about 1.5 million kilometres from Earth."
    )
    rows = [
        {"id": "a", "response": "The James Webb Space Telescope was launched in 2021.", "references": [reference]},
        {"id": "b", "response": "Its mirror has 18 segments. It orbits the Earth at 570 kilometres.",
         "references": [reference]},
    ]
    records.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "out.jsonl"
    # band [0, 1] sends every claim with probabilities to the mpnet checker
    ran = run_factscope(monkeypatch, capsys, "check", str(records), "-o", str(out),
                        "--checker", "cascade:embedded,mpnet,0,1")
    assert ran.code == 0, ran.text
    assert "escalated to the second checker" in ran.text
    claims = [claim for line in out.read_text().splitlines() for claim in json.loads(line)["claims"]]
    assert claims and all(claim["verdict"]["decided_by"] in ("embedded", "mpnet") for claim in claims)
    assert any(claim["verdict"]["decided_by"] == "mpnet" and claim["verdict"]["escalated"] for claim in claims)
    ran = run_factscope(monkeypatch, capsys, "check", str(records), "-o", str(tmp_path / "acc.jsonl"),
                        "--checker", "accurate", "--mode", "fast")
    assert ran.code == 0, ran.text
    assert "the checker 'accurate' is now called 'mpnet'" in ran.text
    verdicts = [c["verdict"] for line in (tmp_path / "acc.jsonl").read_text().splitlines()
                for c in json.loads(line)["claims"]]
    assert verdicts[0]["label"] == "Entailment"
