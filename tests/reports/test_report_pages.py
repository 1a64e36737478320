"""The per-system report pages on rows built in memory: chart choices, factors, flags, located bad rows."""

import json

import pytest

from factscope.conner.report import evidence_class
from factscope.conner.report import is_flagged as knowledge_flagged
from factscope.conner.scores import KnowledgeScores, SentenceEvidence
from factscope.core.errors import InputError
from factscope.grounding.report import report_factors
from factscope.grounding.task import FactJudgement, GroundResult
from factscope.kalma.report import PER_ANSWER_BARS, answer_precision, answer_recall, citation_class
from factscope.kalma.report import overview_html as attribution_overview
from factscope.kalma.scores import AttributionScore, CitationJudgement
from factscope.metrics.attribution import AnswerCitationCounts
from factscope.reports.dispatch import make_report, system_of


def answer(index, precise=1, citations=2, recalled=1, knowledge=4):
    return AttributionScore(
        id=f"a{index}",
        sentences=["s"],
        citations=[
            CitationJudgement(
                qid="Q1", relation="r", value="v", sentence=0, correct=True, precise=True, entailed=True
            )
        ],
        counts=AnswerCitationCounts(
            citations=citations, correct=citations, precise=precise, knowledge=knowledge, recalled=recalled
        ),
    )


def ground_row(id, present, **metadata):
    return GroundResult(
        id=id,
        question="q",
        response="r",
        precision=0.5,
        recall=1.0,
        f1=2 / 3,
        response_facts=[FactJudgement(fact="f", score=0.1, present=present)],
        metadata=metadata,
    )


def test_citation_precision_and_recall_per_answer_follow_the_counts():
    assert answer_precision(answer(1, precise=1, citations=4)) == 0.25
    assert answer_recall(answer(1, recalled=3, knowledge=4)) == 0.75
    assert answer_precision(answer(1, citations=0, precise=0)) is None
    assert answer_recall(answer(1, knowledge=0, recalled=0)) is None
    wrong = CitationJudgement(
        qid="Q", relation="r", value="v", sentence=0, correct=False, precise=False, entailed=None
    )
    assert citation_class(wrong) == "wrong"
    assert citation_class(wrong.model_copy(update={"correct": True})) == "correct"
    assert citation_class(wrong.model_copy(update={"correct": True, "precise": True})) == "precise"


def test_few_answers_get_bars_per_answer_and_many_get_histograms():
    few = str(attribution_overview([answer(i) for i in range(PER_ANSWER_BARS)]))
    many = str(attribution_overview([answer(i) for i in range(PER_ANSWER_BARS + 1)]))
    assert 'id="chart-attribute-answers"' in few and "chart-attribute-precision" not in few
    assert 'id="chart-attribute-precision"' in many and 'id="chart-attribute-recall"' in many
    assert "chart-attribute-answers" not in many
    assert f"citation precision per answer (n={PER_ANSWER_BARS + 1})" in many


def test_ground_factors_are_the_paper_s_the_records_have_then_the_model():
    rows = [ground_row("a", True, pop="high", model="m1"), ground_row("b", False, has_multi=True)]
    assert report_factors(rows) == ["pop", "has_multi", "model"]
    assert report_factors([ground_row("c", True, other=1)]) == []


def test_a_knowledge_sentence_is_what_its_largest_probability_says():
    def sentence(probs):
        return SentenceEvidence(sentence="s", probs=probs)

    assert [evidence_class(sentence(p)) for p in [(0.5, 0.3, 0.2), (0.2, 0.5, 0.3), (0.1, 0.2, 0.7)]] == [
        "consistent",
        "non-verified",
        "inconsistent",
    ]
    assert evidence_class(sentence(None)) == "unchecked"
    assert knowledge_flagged(KnowledgeScores(id="k", sentences=[sentence((0.2, 0.5, 0.3))]))
    assert not knowledge_flagged(
        KnowledgeScores(id="k", sentences=[sentence((0.6, 0.3, 0.1)), sentence(None)])
    )


def test_bad_rows_of_a_results_file_are_skipped_with_file_line_and_field(tmp_path):
    path = tmp_path / "grounded.jsonl"
    lines = [
        ground_row("a", False).model_dump_json(),
        "{broken",
        json.dumps(
            {
                "id": "b",
                "question": "q",
                "response": None,
                "response_facts": [{"fact": "f", "score": "high", "present": True}],
            }
        ),
        ground_row("c", True).model_dump_json(),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert system_of(path).name == "ground"
    report = make_report(path, only="hallucinated")
    assert [row.id for row in report.rows] == ["a", "c"] and [row.id for row in report.shown] == ["a"]
    assert [(p.line, p.field) for p in report.problems] == [(2, None), (3, "response_facts.0.score")]
    assert "response_facts.0.score" in report.html


def test_an_empty_results_file_is_an_error_naming_it(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text(json.dumps({"id": "x", "citations": "none"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as refused:
        make_report(path)
    assert "no attribute results to report" in str(refused.value) and str(path) in str(refused.value)
    with pytest.raises(InputError):
        make_report(path, only="some")
