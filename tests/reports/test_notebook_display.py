"""Notebook display: run results, result rows and verdicts render as their report (HTML in a frame of its own);
in a console a run result is one short line of its figures; the notebooks page's example, run."""

from __future__ import annotations

import html
import re

import pandas as pd
import pytest
from pydantic import BaseModel

import factscope
from containment import ContainsChecker, SubstringPresence
from doc_examples import python_blocks, run_block
from factscope.conner.evaluator import KnowledgeEvaluator
from factscope.core.runs.result import RunResult
from factscope.core.runs.results import ResultRows
from factscope.reports.notebook import NOTEBOOK_RECORDS
from repo_paths import EXAMPLES


def _page(shown: str) -> str:
    """The page inside the frame a notebook shows."""
    match = re.fullmatch(r'<iframe srcdoc="([^"]*)" style="[^"]*" sandbox="[^"]*"></iframe>', shown)
    assert match, shown[:200]
    return html.unescape(match.group(1))


@pytest.fixture(scope="module")
def many():
    """A check run over more records than a notebook shows."""
    records = pd.DataFrame({
        "id": [f"record-{number:02d}" for number in range(NOTEBOOK_RECORDS + 3)],
        "response": [f"Tower {number} is in Paris." for number in range(NOTEBOOK_RECORDS + 3)],
        "references": [["Tower 1 is in Paris. Tower 2 is in Paris."]] * (NOTEBOOK_RECORDS + 3),
    })
    return factscope.check(records, extractor="sentences", checker=ContainsChecker())


def test_a_run_prints_one_short_line_of_its_figures(many):
    line = str(many)
    assert line == repr(many)
    assert line.startswith(f"CheckRun: {NOTEBOOK_RECORDS + 3} records ({NOTEBOOK_RECORDS + 3} new, 0 resumed), 0 failed, ")
    rate = many.rates.hallucination_rate
    assert f"; hallucination rate {rate:.4g}; claims {many.claims}; checker contains" in line
    assert "\n" not in line and "results=" not in line and len(line) < 200


def test_a_run_shows_its_report_with_its_first_records(many):
    page = _page(many._repr_html_())
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page and "factscope" in page
    shown = re.findall(r"record-\d\d", page)
    assert sorted(set(shown)) == [f"record-{number:02d}" for number in range(NOTEBOOK_RECORDS)]
    assert "Tower 1 is in Paris." in page


def test_rows_and_verdicts_show_as_the_report_shows_them(many):
    record = many.results[1]
    page = _page(record._repr_html_())
    assert "record-01" in page and "Tower 1 is in Paris." in page and "Entailment" in page
    verdict = _page(record.claims[0].verdict._repr_html_())
    assert "Entailment 0.800, Neutral 0.150, Contradiction 0.050" in verdict
    assert "Tower 1 is in Paris. Tower 2 is in Paris." in verdict


def test_every_system_prints_its_figures_and_shows_its_rows():
    ground = factscope.ground(
        EXAMPLES / "ground" / "original.json", responses=EXAMPLES / "ground" / "responses.jsonl",
        presence=SubstringPresence(), extractor="sentences",
    )
    assert f"; F1 {ground.summary.overall.f1:.4g}" in str(ground)
    assert ground.results[0].response in _page(ground.results[0]._repr_html_())
    attribution = factscope.attribute(EXAMPLES / "attribute" / "answers.jsonl", checker=ContainsChecker())
    assert f"removed=0 micro F1 {attribution.summary['removed=0']['micro_f1']:.4g}" in str(attribution)
    assert attribution.results[0].id in _page(attribution._repr_html_())
    knowledge = factscope.knowledge(EXAMPLES / "knowledge" / "records.jsonl", evaluator=KnowledgeEvaluator())
    assert str(knowledge).startswith("KnowledgeRun: 6 records (6 new, 0 resumed), 0 failed")
    assert knowledge.results[0].id in _page(knowledge.results[0]._repr_html_())


class Generated(BaseModel):
    id: str


class GenerationRun(RunResult[Generated]):
    """A run whose rows no report shows."""


def test_a_result_no_report_shows_is_its_text_summary():
    run = GenerationRun(results=ResultRows(Generated, rows=[Generated(id="a")]), new_records=1, resumed_records=0,
                        seconds=0.5)
    assert run._repr_html_() == "<pre>GenerationRun: 1 records (1 new, 0 resumed), 0 failed, 0.5 s</pre>"


def test_the_notebooks_page_example_runs(tmp_path):
    (block,) = python_blocks("guides/notebooks.md")
    run = run_block(block, tmp_path)["run"]
    assert str(run).startswith("CheckRun: 1 records (1 new, 0 resumed), 0 failed")
    assert "eiffel" in _page(run._repr_html_())
