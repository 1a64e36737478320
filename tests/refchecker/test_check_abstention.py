"""Abstentions in `factscope check`: declining responses give no claims with every extractor and are counted as
abstentions, never as hallucinations, and never turn a rate into NaN."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from factscope import check
from factscope.checkers.base import CheckTask
from factscope.claims.registry import make_extractor
from factscope.core.files.manifest import manifest_path
from factscope.core.schema import Label, Record, Verdict
from factscope.llm.client import LLMClient, LLMConfig

REFERENCES = ["Alice won the 2019 city marathon in Oslo. The race was held in May."]


class AllSupported:
    """A checker that finds every claim supported and keeps the claims it was given."""

    name = "all-supported"

    def __init__(self) -> None:
        self.claims: list[str] = []

    def check(self, tasks: Sequence[CheckTask]) -> list[Verdict]:
        self.claims.extend(task.claim for task in tasks)
        return [Verdict(label=Label.ENTAILMENT) for _ in tasks]


def _records(*responses: str) -> list[Record]:
    return [Record(id=f"r{i}", response=text, references=REFERENCES) for i, text in enumerate(responses)]


def _no_nan(value: str) -> float:
    raise AssertionError(f"{value} in the JSON")


@pytest.mark.parametrize("extractor", ["rules", "sentences", "facts"])
def test_offline_extractors_give_no_claims_for_declining_sentences(extractor):
    checker = AllSupported()
    run = check(
        _records("I don't know.", "The references do not say who won.", "Alice won the race. I'm not sure when."),
        extractor=make_extractor(extractor),
        checker=checker,
    )
    declined, silent, partial = run.results
    assert declined.abstained and declined.claims == [] and declined.summary.abstain
    assert silent.abstained and silent.claims == [] and silent.abstaining_sentences == [0]
    assert not partial.abstained and partial.abstaining_sentences == [1]
    assert partial.claims and all(c.claim.sentence_ids == [0] for c in partial.claims)
    assert run.rates.abstained == 2 and run.declined == 2
    assert run.rates.answered == 1 and run.rates.hallucination_rate == 0.0


def test_without_detection_a_silent_source_sentence_becomes_a_claim():
    checker = AllSupported()
    run = check(
        _records("The references do not say who won."),
        extractor=make_extractor("sentences"),
        checker=checker,
        abstention_detection=False,
    )
    assert checker.claims == ["The references do not say who won."]
    assert not run.results[0].abstained and run.rates.abstained == 0


def _triplet_replies(request: dict) -> str:
    prompt = request["messages"][-1]["content"]
    if "Alice" in prompt.split("Now the response")[-1]:
        return json.dumps({"claims": [
            {"triplet": ["Alice", "won", "the race"], "sentences": [1]},
            {"triplet": ["The references", "do not say", "when Alice won"], "sentences": [1]},
        ]})
    return json.dumps({"claims": [{"triplet": ["speaker", "does not know", "the winner"], "sentences": [1]}]})


@pytest.mark.parametrize("detection", [True, False])
def test_llm_extractor_claims_that_abstain_are_dropped_and_declining_responses_not_sent(fake_llm, detection):
    fake_llm.responder = _triplet_replies
    client = LLMClient(LLMConfig(base_url=fake_llm.base_url, model="fake", cache_path=None))
    checker = AllSupported()
    run = check(
        _records("Alice won the race. The references do not say when.", "I don't know."),
        extractor=make_extractor("llm", llm=client),
        checker=checker,
        abstention_detection=detection,
    )
    answered, declined = run.results
    if detection:
        assert len(fake_llm.requests) == 1
        assert [c.claim.triplet for c in answered.claims] == [("Alice", "won", "the race")]
        assert declined.claims == [] and declined.summary.abstain and run.rates.abstain_rate == 0.5
    else:
        assert len(fake_llm.requests) == 2
        assert len(answered.claims) == 2 and len(declined.claims) == 1
        assert run.rates.abstained == 0


def test_check_command_counts_abstentions_and_rates_only_answering_responses(app, tmp_path: Path):
    rows = [
        {"id": "answer", "response": "Alice won the 2019 city marathon.", "references": REFERENCES},
        {"id": "unknown", "response": "I don't know.", "references": REFERENCES},
        {"id": "silent", "response": "The references do not say.", "references": REFERENCES},
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    output, summary = tmp_path / "out.jsonl", tmp_path / "summary.json"
    result = CliRunner().invoke(
        app, ["check", str(source), "-o", str(output), "--summary", str(summary)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "abstentions / declined to answer" in result.output and "2 / 2" in result.output
    assert "nan" not in result.output.lower()
    figures = json.loads(summary.read_text(encoding="utf-8"), parse_constant=_no_nan)
    rates = figures["rates"]
    assert (rates["responses"], rates["answered"], rates["abstained"]) == (3, 1, 2)
    assert rates["abstain_rate"] == pytest.approx(2 / 3)
    assert not math.isnan(rates["hallucination_rate"]) and figures["declined"] == 2
    by_id = {row["id"]: row for row in map(json.loads, output.read_text(encoding="utf-8").splitlines())}
    assert by_id["unknown"]["abstained"] and by_id["silent"]["abstained"] and not by_id["answer"]["abstained"]
    assert by_id["unknown"]["summary"]["hallucination_rate"] is None
    manifest = json.loads(manifest_path(output).read_text(encoding="utf-8"))
    assert manifest["settings"]["abstention_detection"] is True
    rerun = CliRunner().invoke(app, ["check", str(source), "-o", str(output), "--no-abstention-detection"])
    assert rerun.exit_code != 0 and "abstention_detection" in str(rerun.exception)
