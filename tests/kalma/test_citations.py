"""Citation parsing: qid + relation: value pairs, [NA], sentence mapping, tolerance, reported problems."""

from factscope.kg.citations import Citation, parse_answer


def test_seed_example_one_pair_per_citation_and_na():
    text = ("Artemisia Gentileschi was an Italian painter born on July 8, 1596 [NA] in Rome "
            "[Q212657, ethnic group: Italians, occupation: painter, place of birth: Rome]. "
            "She was the eldest child of Orazio Gentileschi [Q212657, father: Orazio Gentileschi].")
    answer = parse_answer(text)
    assert answer.sentences == [
        "Artemisia Gentileschi was an Italian painter born on July 8, 1596 in Rome.",
        "She was the eldest child of Orazio Gentileschi.",
    ]
    assert [(c.qid, c.relation, c.value, c.sentence) for c in answer.citations] == [
        ("Q212657", "ethnic group", "Italians", 0),
        ("Q212657", "occupation", "painter", 0),
        ("Q212657", "place of birth", "Rome", 0),
        ("Q212657", "father", "Orazio Gentileschi", 1),
    ]
    assert answer.na_sentences == [0]
    assert answer.issues == []


def test_qid_prefix_quotes_case_and_spacing_are_tolerated():
    answer = parse_answer("She was born in Rome [ qid:q212657 ,  'place of birth' : \"Rome\" ,Occupation:painter ].")
    assert [(c.qid, c.relation, c.value) for c in answer.citations] == [
        ("Q212657", "place of birth", "Rome"), ("Q212657", "Occupation", "painter")]


def test_citation_after_final_period_belongs_to_that_sentence():
    answer = parse_answer("He died in London. [Q1, place of death: London] He was a painter [n/a]. [NA]")
    assert [c.sentence for c in answer.citations] == [0]
    assert answer.na_sentences == [1]
    assert answer.sentences == ["He died in London.", "He was a painter."]


def test_value_with_comma_and_value_with_colon():
    answer = parse_answer("Born in the capital [Q5, place of birth: Washington, D.C., category: Category:People].")
    assert [(c.relation, c.value) for c in answer.citations] == [
        ("place of birth", "Washington, D.C."), ("category", "Category:People")]


def test_several_qids_in_one_bracket_switch_the_centre_entity():
    answer = parse_answer("Father and daughter painted [Q1, occupation: painter, Q2, occupation: painter].")
    assert [c.qid for c in answer.citations] == ["Q1", "Q2"]


def test_incomplete_citations_are_kept_and_reported():
    answer = parse_answer("He was born in Pisa [Q367360]. He died in London [place of death: London].")
    assert answer.citations == [
        Citation("Q367360", None, None, 0, "[Q367360]"),
        Citation(None, "place of death", "London", 1, "[place of death: London]"),
    ]
    assert not any(c.complete for c in answer.citations)
    assert [i.reason for i in answer.issues] == ["a qid with no relation: value pair",
                                                 "no qid: the citation is incomplete"]


def test_non_citation_brackets_stay_in_text_and_are_reported():
    answer = parse_answer("He wrote [sic] a poem [Q2, notable work: Don Juan, stray piece].")
    assert answer.sentences == ["He wrote [sic] a poem."]
    assert [(c.relation, c.value) for c in answer.citations] == [("notable work", "Don Juan, stray piece")]
    assert [i.raw for i in answer.issues] == ["[sic]"]


def test_unreadable_piece_before_any_pair_is_reported():
    answer = parse_answer("Text [Q2 born somewhere, place: X].")
    assert answer.citations[0].qid is None and answer.citations[0].relation == "place"
    assert "cannot read 'Q2 born somewhere'" in answer.issues[0].reason


def test_empty_and_citation_free_answers():
    assert parse_answer("").sentences == [] and parse_answer("").citations == []
    answer = parse_answer("Just text. More text!")
    assert answer.sentences == ["Just text.", "More text!"] and answer.citations == []


def test_hypothesis_is_relation_colon_value():
    assert parse_answer("X [Q1, employer: University of Jena].").citations[0].hypothesis() == (
        "employer: University of Jena")


def test_abbreviations_do_not_end_a_sentence_and_edge_positions():
    answer = parse_answer("[Q1, name: Dr. Smith] Dr. Smith was born on Jan. 5, 1900 in the U.S. state of Ohio "
                          "[Q1, date of birth: 1900-01-05].[NA] He died.")
    assert answer.sentences == ["Dr. Smith was born on Jan. 5, 1900 in the U.S. state of Ohio.", "He died."]
    assert [c.sentence for c in answer.citations] == [0, 0]
    assert answer.na_sentences == [0]
