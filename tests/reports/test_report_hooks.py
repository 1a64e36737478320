"""Every system's report is the shared page filled by its report hooks, through one path with no branch per
system: the page of a system's rows is exactly ``render_page`` given its hooks' overview, captions and record
fragments; a single record is its ``record`` hook's fragment."""

import ast

import pytest

from factscope.conner.scores import KnowledgeScores, SentenceEvidence
from factscope.core.schema import Claim, Label, Span, Verdict
from factscope.grounding.task import FactJudgement, GroundResult
from factscope.kalma.scores import AttributionScore, CitationJudgement
from factscope.metrics.attribution import AnswerCitationCounts
from factscope.metrics.hallucination import summarize_response
from factscope.refchecker.task import CheckResult, ClaimResult
from factscope.reports.dispatch import SYSTEMS, render_record, render_rows
from factscope.reports.page import RecordEntry, render_page
from repo_paths import PACKAGE


def check_row(id, label):
    response = "The tower is in Paris."
    claim = Claim(text="the tower is in Paris", kind="sentence", spans=[Span(start=0, end=len(response))])
    return CheckResult(
        id=id,
        response=response,
        setting="noisy",
        references=["The tower stands in Paris."],
        claims=[ClaimResult(claim=claim, verdict=Verdict(label=label, evidence_reference=0))],
        summary=summarize_response([label]),
    )


def ground_row(id, present):
    return GroundResult(
        id=id, question="q", response="r", precision=1.0 if present else 0.0, recall=1.0, f1=1.0 if present else 0.0,
        response_facts=[FactJudgement(fact="f", score=0.9 if present else 0.1, present=present)],
    )


def attribute_row(id, correct):
    citation = CitationJudgement(
        qid="Q1", relation="r", value="v", sentence=0, correct=correct, precise=correct, entailed=True
    )
    counts = AnswerCitationCounts(citations=1, correct=int(correct), precise=int(correct), knowledge=2, recalled=1)
    return AttributionScore(id=id, sentences=["s"], citations=[citation], counts=counts)


def knowledge_row(id, probs):
    return KnowledgeScores(id=id, relevance=0.5, sentences=[SentenceEvidence(sentence="s", probs=probs)])


ROWS = {
    "check": [check_row("c1", Label.ENTAILMENT), check_row("c2", Label.CONTRADICTION)],
    "ground": [ground_row("g1", True), ground_row("g2", False)],
    "attribute": [attribute_row("a1", True), attribute_row("a2", False)],
    "knowledge": [knowledge_row("k1", (0.8, 0.1, 0.1)), knowledge_row("k2", (0.1, 0.2, 0.7))],
}
"""Two result rows of each system, the second flagged as a problem."""


def test_the_rows_cover_every_system_a_report_shows():
    assert set(ROWS) == set(SYSTEMS)


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_each_system_s_page_is_the_shared_page_filled_by_its_hooks(name):
    system, rows = SYSTEMS[name], ROWS[name]
    hooks = system.report
    assert [hooks.flagged(row) for row in rows] == [False, True]
    page = render_rows(system, rows, rows[1:], title="t", only="hallucinated", source="s.jsonl", problems=["p"])
    assert page == render_page(
        title="t",
        overview=hooks.overview(rows),
        records=[RecordEntry(anchor="r1", id=rows[1].id, caption=hooks.caption(rows[1]),
                             html=hooks.record(rows[1], "r1"))],
        source="s.jsonl",
        problems=["p"],
        only="hallucinated",
        flagged=hooks.flagged_means,
    )
    assert str(hooks.overview(rows)) in page and hooks.caption(rows[1]) in page
    assert render_record(name, rows[0], "x") == str(hooks.record(rows[0], "x"))


def test_the_report_dispatch_knows_the_systems_only_by_their_definitions():
    """No branch per system: ``reports/dispatch.py`` reads the systems from their one list (``factscope.systems``),
    imports nothing of any system's package, and names no system's row type."""
    tree = ast.parse((PACKAGE / "reports" / "dispatch.py").read_text(encoding="utf-8"))
    systems = {"refchecker", "grounding", "kalma", "conner"}
    modules = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module]
    assert "factscope.systems" in modules
    assert [module for module in modules if module.partition(".")[2].partition(".")[0] in systems] == []
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    row_types = {system.row_type.__name__ for system in SYSTEMS.values()}
    assert not names & row_types
