"""RefChecker-exact options: references checked whole (--segment-tokens 0), the LLM checker's 'Passage 0:' layout,
and results manifests that record both."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from factscope.checkers.base import CheckTask
from factscope.checkers.llm import LLMChecker
from factscope.checkers.options import CheckerOptions
from factscope.checkers.registry import make_checker
from factscope.checkers.segmented import SegmentedChecker
from factscope.core.errors import ConfigError
from factscope.core.files.manifest import describe, manifest_path
from factscope.core.schema import Label
from factscope.llm.client import LLMClient, LLMConfig
from fake_scorers import plain_options


class WordScorer:
    """Counts words as tokens and entails every pair; records the premises it was given."""

    name = "words"

    def __init__(self) -> None:
        self.premises: list[str] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def score(self, premises, hypotheses):
        self.premises += list(premises)
        return np.tile([1.0, 0.0, 0.0], (len(premises), 1))


LONG = " ".join(f"Sentence number {i} is here." for i in range(12))


def test_zero_segment_tokens_checks_each_reference_whole():
    whole = WordScorer()
    checker = SegmentedChecker(whole, plain_options(max_tokens=0))
    (verdict,) = checker.check([CheckTask(claim="c", references=(f"  {LONG} ", " "))])
    assert whole.premises == [LONG] and verdict.label is Label.ENTAILMENT
    cut = WordScorer()
    SegmentedChecker(cut, plain_options(max_tokens=10)).check([CheckTask(claim="c", references=(LONG,))])
    assert len(cut.premises) == 6 and all(len(p.split()) <= 10 for p in cut.premises)
    with pytest.raises(ConfigError, match="`max_tokens` must be at least 0, not -1"):
        SegmentedChecker(WordScorer(), plain_options(max_tokens=-1))


@pytest.fixture
def client(fake_llm):
    return LLMClient(LLMConfig(base_url=fake_llm.base_url, model="fake", max_retries=0))


def _reference(request: dict) -> str:
    return request["json"]["messages"][0]["content"].split("### Reference:\n")[1].split("\n\n### Claim")[0]


def test_refchecker_passage_layout_numbers_from_zero_one_line_each(fake_llm, client):
    # the two calls run concurrently: answer by content, not by arrival order
    fake_llm.responder = lambda request: "Contradiction" if "Passage 1:" in str(request["messages"]) else "Neutral"
    checker = LLMChecker(client, CheckerOptions(llm_mode="single", llm_passages="refchecker"))
    several, single = checker.check(
        [CheckTask(claim="c", references=("a.", "b.")), CheckTask(claim="d", references=("only.",))]
    )
    assert several.label is Label.CONTRADICTION and several.evidence_reference is None
    assert single.label is Label.NEUTRAL
    sent = sorted(_reference(request) for request in fake_llm.requests)
    # RefChecker's evaluation: "".join(f"Passage {i}: {p}\n"), numbered from 0, a single passage included
    assert sent == ["Passage 0: a.\nPassage 1: b.\n", "Passage 0: only.\n"]


def test_checker_descriptions_record_the_exact_options(fake_llm, client):
    assert describe(make_checker("embedded", max_tokens=0))["max_tokens"] == 0
    assert describe(make_checker("llm", llm=client, llm_passages="refchecker"))["passages"] == "refchecker"
    assert describe(make_checker("llm", llm=client))["passages"] == "each"



def test_check_results_manifest_records_the_options(app, fake_llm, tmp_path):
    records = tmp_path / "in.jsonl"
    records.write_text(json.dumps({"id": "a", "response": "Ada wrote code.", "context": ["Ada wrote code."]}) + "\n")
    fake_llm.responder = lambda request: "1. Entailment"
    output = tmp_path / "out.jsonl"
    args = ["check", str(records), "-o", str(output), "--checker", "llm", "--llm-passages", "refchecker",
            "--llm-base-url", fake_llm.base_url, "--llm-model", "fake", "--llm-cache", "off"]
    result = CliRunner().invoke(app, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    manifest = json.loads(manifest_path(output).read_text(encoding="utf-8"))
    assert manifest["settings"]["checker"]["passages"] == "refchecker"
    assert "Passage 0: Ada wrote code.\n" in fake_llm.requests[-1]["json"]["messages"][0]["content"]
    whole = tmp_path / "whole.jsonl"
    result = CliRunner().invoke(
        app, ["check", str(records), "-o", str(whole), "--segment-tokens", "0"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    refused = CliRunner().invoke(app, ["check", str(records), "--segment-tokens", "5"])
    assert refused.exit_code == 2 and "or at least 8 tokens" in re.sub(r"[\s│]+", " ", refused.output)
