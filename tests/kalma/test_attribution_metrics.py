"""Citation quality, alignment and [NA] quality on a small graph with hand-computed numbers."""


import pytest

import repo_paths
from factscope.kg.citations import parse_answer
from factscope.kg.graph import Triple
from factscope.kg.loaders import load_graph
from factscope.metrics.attribution import (
    AnswerNACounts,
    alignment,
    citation_counts,
    citation_quality,
    na_counts,
    na_quality,
)
from factscope.metrics.ratios import f1

DATA = repo_paths.DATA / "attribute"
GRAPH = load_graph(DATA / "graph.jsonl")

MIN_A = [Triple("Q1", "place of birth", "London"), Triple("Q1", "father", "Lord Byron"),
         Triple("Q2", "occupation", "poet")]
ANSWER_A = ("Ada Lovelace was born in London [Q1, place of birth: London, occupation: mathematician]. "
            "Her father was the poet Lord Byron [Q1, father: Lord Byron] [q2, Occupation: \"Poet\"]. "
            "She died young [NA].")
MIN_B = [Triple("Q2", "place of death", "Missolonghi"), Triple("Q2", "child", "Ada Lovelace")]
ANSWER_B = ("Lord Byron died in Greece [Q2, place of death: Missolonghi]. He was a painter [Q2, occupation: painter]. "
            "He wrote Don Juan [notable work: Don Juan].")
MIN_C = [Triple("Q1", "occupation", "mathematician")]
ANSWER_C = "Ada Lovelace was a mathematician [NA]."


def counts(answer, minimum):
    return citation_counts(parse_answer(answer).citations, GRAPH.triples(), minimum)


def test_per_answer_counts():
    # A: 4 citations, all in the graph; 3 in the minimum set (occupation: mathematician is not); 3/3 recalled.
    a = counts(ANSWER_A, MIN_A)
    assert (a.citations, a.correct, a.precise, a.knowledge, a.recalled) == (4, 4, 3, 3, 3)
    # B: place of death correct+precise; 'occupation: painter' not in graph; the qid-less citation is incomplete.
    b = counts(ANSWER_B, MIN_B)
    assert (b.citations, b.correct, b.precise, b.knowledge, b.recalled) == (3, 1, 1, 2, 1)


def test_micro_and_macro_differ():
    quality = citation_quality([counts(ANSWER_A, MIN_A), counts(ANSWER_B, MIN_B)])
    # micro: correctness 5/7, precision 4/7, recall 4/5, F1 = 2*(4/7)*(4/5) / (4/7 + 4/5) = (32/35)/(48/35) = 2/3
    assert quality.correctness == pytest.approx(5 / 7)
    assert quality.micro_precision == pytest.approx(4 / 7)
    assert quality.micro_recall == pytest.approx(4 / 5)
    assert quality.micro_f1 == pytest.approx(2 / 3)
    # macro: precision (3/4 + 1/3) / 2 = 13/24, recall (1 + 1/2) / 2 = 3/4,
    # F1 = 2 * 13/24 * 3/4 / (13/24 + 18/24) = (13/16) / (31/24) = 312/496
    assert quality.macro_precision == pytest.approx(13 / 24)
    assert quality.macro_recall == pytest.approx(3 / 4)
    assert quality.macro_f1 == pytest.approx(312 / 496)
    assert (quality.answers, quality.citations, quality.knowledge) == (2, 7, 5)


def test_answer_without_citations_skip_or_zero():
    all_counts = [counts(ANSWER_A, MIN_A), counts(ANSWER_B, MIN_B), counts(ANSWER_C, MIN_C)]
    skipped = citation_quality(all_counts)
    # C has no citations: macro precision stays 13/24; macro recall = (1 + 1/2 + 0) / 3 = 1/2
    assert skipped.macro_precision == pytest.approx(13 / 24)
    assert skipped.macro_recall == pytest.approx(1 / 2)
    assert skipped.answers_without_citations == 1
    zero = citation_quality(all_counts, empty_answers="zero")
    # (3/4 + 1/3 + 0) / 3 = 13/36
    assert zero.macro_precision == pytest.approx(13 / 36)
    # micro is unchanged by C's missing citations except recall: 4 / 6
    assert zero.micro_recall == pytest.approx(4 / 6) and zero.micro_precision == pytest.approx(4 / 7)


def test_repeated_citation_counts_twice_but_recalls_once():
    c = counts("Born in London [Q1, place of birth: London]. Really, London [Q1, place of birth: London].", MIN_A)
    assert (c.citations, c.correct, c.precise, c.recalled) == (2, 2, 2, 1)


def test_no_citations_at_all_gives_undefined_not_zero():
    quality = citation_quality([counts(ANSWER_C, MIN_C)])
    assert quality.correctness is None and quality.micro_precision is None and quality.micro_f1 is None
    assert quality.micro_recall == 0.0


def test_f1_edge_cases():
    assert f1(0.0, 0.0) == 0.0
    assert f1(None, 0.5) is None
    assert f1(0.5, 1.0) == pytest.approx(2 / 3)


def test_alignment_skips_failed_checks():
    # 2 entailed of 3 decided pairs; one failed pair is counted, not scored
    result = alignment([True, False, None, True])
    assert result.value == pytest.approx(2 / 3)
    assert (result.pairs, result.entailed, result.failed) == (3, 2, 1)
    assert alignment([]).value is None


def test_counts_add_field_by_field():
    # (2, 1, 2, 1, 0) + (0, 0, 1, 0, 2) = (2, 1, 3, 1, 2); the sum keeps its type
    total = AnswerNACounts(2, 1, 2, 1, 0) + AnswerNACounts(0, 0, 1, 0, 2)
    assert total == AnswerNACounts(na_sentences=2, na_precise=1, absent=3, absent_recalled=1, undecided=2)
    assert type(total) is AnswerNACounts


def test_na_precision_and_recall():
    # answer 1: two [NA] sentences x two absent triples; sentence 0 entails triple 0 only
    first = na_counts([[True, False], [False, False]], absent=2)
    assert first == AnswerNACounts(na_sentences=2, na_precise=1, absent=2, absent_recalled=1, undecided=0)
    # answer 2: one [NA] sentence; its check against triple 0 failed -> that sentence and triple 0 undecided
    second = na_counts([[None, False]], absent=2)
    assert second == AnswerNACounts(na_sentences=0, na_precise=0, absent=1, absent_recalled=0, undecided=2)
    # answer 3: no [NA] sentence at all: its absent triple is not recalled
    third = na_counts([], absent=1)
    quality = na_quality([first, second, third])
    # precision 1/2, recall 1/(2+1+1) = 1/4, F1 = 2 * 1/2 * 1/4 / (3/4) = 1/3
    assert quality.precision == pytest.approx(1 / 2)
    assert quality.recall == pytest.approx(1 / 4)
    assert quality.f1 == pytest.approx(1 / 3)
    assert quality.undecided == 2
