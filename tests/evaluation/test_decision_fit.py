"""A claim decision fitted on a user's labelled pairs with the real embedded checker, saved, and read back by
`factscope check --claim-decision`."""

import json

import pytest

from cli_entry import run_factscope
from factscope.checkers.claim_decision import ClaimDecision
from nli_pairs import write_pairs
from repo_paths import EXAMPLES


@pytest.fixture
def pairs(tmp_path):
    """18 labelled pairs, entailed and not (the shared NLI templates)."""
    return write_pairs(tmp_path / "pairs.jsonl", n=18)


def test_fit_save_and_check_with_the_decision(tmp_path, monkeypatch, capsys, pairs):
    saved = tmp_path / "decision.json"
    out = tmp_path / "report.json"
    ran = run_factscope(
        monkeypatch, capsys, "eval-checker", str(pairs), "--fit-decision", str(saved), "-o", str(out)
    )
    assert ran.code == 0, ran.text
    assert "fitted on pairs that are also evaluated" in ran.text  # the figures of this run are optimistic
    decision = ClaimDecision.load(saved)
    assert "18 labelled pairs (pairs)" in decision.fitted_on
    report = json.loads(out.read_text())
    assert report["claim_decision"] == str(saved) and report["datasets"][0]["n"] == 18
    assert "after the claim decision fitted into" in ran.text

    results = tmp_path / "checked.jsonl"
    ran = run_factscope(
        monkeypatch, capsys, "check", str(EXAMPLES / "check.jsonl"), "-o", str(results), "--claim-decision", str(saved)
    )
    assert ran.code == 0, ran.text
    verdicts = [claim["verdict"] for line in results.read_text().splitlines()[1:] for claim in json.loads(line)["claims"]]
    assert verdicts and all(0.0 <= verdict["support"] <= 1.0 for verdict in verdicts if verdict["label"])


def test_refusals(tmp_path, monkeypatch, capsys, pairs):
    ran = run_factscope(
        monkeypatch, capsys, "eval-checker", str(pairs), "--fit-decision", str(tmp_path / "d.json"),
        "--threshold", "0.5",
    )
    assert ran.code == 2 and "not both" in ran.text
    ran = run_factscope(
        monkeypatch, capsys, "check", str(EXAMPLES / "check.jsonl"), "-o", str(tmp_path / "c.jsonl"),
        "--claim-decision", str(tmp_path / "missing.json"),
    )
    assert ran.code == 2 and "cannot read the claim decision" in ran.text
