"""The span view of a response: maximal labelled spans, the overlap rule, RAGTruth-shaped labels, the spans table."""

import pytest

from factscope.core.files.result_tables import SPANS, levels, table_rows
from factscope.core.schema import Claim, ClaimSpan, Label, Verdict
from factscope.refchecker.span_view import hallucinated_spans, span_view
from factscope.refchecker.task import CheckResult, ClaimResult

RESPONSE = "Curie was a physicist and chemist. She won in 1903."


def claim(*pieces: str) -> Claim:
    spans = [ClaimSpan.covering(RESPONSE, RESPONSE.index(p), RESPONSE.index(p) + len(p)) for p in pieces]
    return Claim(text=" ".join(pieces), spans=spans, spans_cover="words")


CLAIMS = [claim("Curie was a physicist"), claim("Curie was", "chemist"), claim("won in 1903")]


def test_pieces_take_the_worst_label_of_the_claims_covering_them_and_join_when_equal():
    view = span_view(RESPONSE, CLAIMS, [Label.ENTAILMENT, Label.NEUTRAL, Label.CONTRADICTION])
    assert [(s.text, s.label, s.claims) for s in view] == [
        ("Curie was", Label.NEUTRAL, [0, 1]),
        (" a physicist", Label.ENTAILMENT, [0]),
        (" and ", None, []),
        ("chemist", Label.NEUTRAL, [1]),
        (". She ", None, []),
        ("won in 1903", Label.CONTRADICTION, [2]),
        (".", None, []),
    ]
    assert "".join(s.text for s in view) == RESPONSE
    assert all(RESPONSE[s.start : s.end] == s.text for s in view)


def test_the_best_rule_and_a_failed_check_label_nothing():
    view = span_view(RESPONSE, CLAIMS, [Label.ENTAILMENT, Label.NEUTRAL, None], overlap="best")
    assert [(s.text, s.label) for s in view[:4]] == [
        ("Curie was a physicist", Label.ENTAILMENT),
        (" and ", None),
        ("chemist", Label.NEUTRAL),
        (". She won in 1903.", None),
    ]
    with pytest.raises(ValueError, match="`overlap`"):
        span_view(RESPONSE, CLAIMS, [None] * 3, overlap="mean")


def test_ragtruth_shape_keeps_the_hallucinated_spans_trimmed():
    view = span_view(RESPONSE, CLAIMS, [Label.ENTAILMENT, Label.NEUTRAL, Label.CONTRADICTION])
    labels = hallucinated_spans("r1", RESPONSE, view)
    assert labels.hallucinated
    assert [(s.start, s.end, s.text, s.label_type) for s in labels.labels] == [
        (0, 9, "Curie was", "Evident Baseless Info"),
        (26, 33, "chemist", "Evident Baseless Info"),
        (39, 50, "won in 1903", "Evident Conflict"),
    ]
    supported = hallucinated_spans("r1", RESPONSE, span_view(RESPONSE, CLAIMS, [Label.ENTAILMENT] * 3))
    assert not supported.hallucinated and supported.labels == []


def test_check_results_have_a_spans_table_level():
    result = CheckResult(
        id="r1",
        response=RESPONSE,
        claims=[ClaimResult(claim=c, verdict=Verdict(label=label))
                for c, label in zip(CLAIMS, [Label.ENTAILMENT, Label.NEUTRAL, Label.CONTRADICTION])],
    )
    assert SPANS in levels(CheckResult)
    rows = list(table_rows([result], CheckResult, SPANS))
    assert rows[0] == {"id": "r1", "start": 0, "end": 9, "text": "Curie was", "label": "Neutral", "claims": [1, 2]}
    assert result.hallucination_labels(overlap="best").labels[0].text == "chemist"
    (claims_row, *_) = table_rows([result], CheckResult, "claims")
    assert claims_row["spans"] == [[0, 21]] and claims_row["spans_cover"] == "words"
