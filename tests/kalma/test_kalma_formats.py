"""KaLMA's own files and the paper's own scoring: files of the wrong kind stop with one error, gold minimum
knowledge from its own file (--minimum), and citations matched as KaLMA's released scoring matches them
(--matching paper) beside factscope's normalised matching, hand-computed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import repo_paths
from factscope import attribute
from factscope.core.errors import InputError
from factscope.core.files.manifest import ResultsMismatch
from factscope.kalma.answers import AnswerRecord, load_answers
from factscope.kalma.data import load_questions
from factscope.kalma.file_kinds import (
    ANSWERS,
    GRAPH,
    MINIMUM_KNOWLEDGE,
    QUESTION_GRAPHS,
    QUESTIONS,
    SEEDS,
    file_kind,
)
from factscope.kalma.minimum import apply_minimum, read_minimum
from factscope.kalma.question_evolution import load_seeds
from factscope.kg.citations import parse_answer
from factscope.kg.graph import KnowledgeGraph, Triple
from factscope.kg.loaders import entity_from_dict
from factscope.kg.paper_citations import bracket_citations, paper_citations
from factscope.metrics.attribution import citation_quality, match_citations
from fake_scorers import ValueInSentence

DATA = repo_paths.DATA / "attribute"
BIOKALMA = DATA / "biokalma.json"

ENTITIES = [
    {"qid": "Q1", "name": "Ada Lovelace", "place of birth": "London", "father": "Lord Byron"},
    {"qid": "Q2", "name": "Lord Byron", "occupation": "poet"},
]
GRAPH_OF_ADA = KnowledgeGraph(entity_from_dict(e) for e in ENTITIES)
MINIMUM = [
    Triple("Q1", "place of birth", "London"),
    Triple("Q1", "father", "Lord Byron"),
    Triple("Q2", "occupation", "poet"),
]
ANSWER = (
    "Ada Lovelace was born in London [Q1, place of birth: London]. Her father was Lord Byron "
    "[qid: Q1, father: Lord Byron]. Byron was a poet [Q2, Occupation: poet] [Q2, occupation: poet]. "
    "He wrote verse [Q2]. She was born in London [Q1, place of birth: London]."
)


@pytest.fixture
def cli(monkeypatch, app):
    """The CLI with `attribute score` checking by ValueInSentence (patched after every command module is imported)."""
    from typer.testing import CliRunner

    from factscope.checkers import registry

    monkeypatch.setattr(registry, "make_checker", lambda spec, **kw: ValueInSentence())
    return lambda args: CliRunner().invoke(app, args, catch_exceptions=False)


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


# ---------------------------------------------------------------- files of the wrong kind


def test_file_kinds_of_kalma_files(tmp_path):
    released_minimum = tmp_path / "gold_used_knowledge.json"
    released_minimum.write_text(json.dumps([["Q one?", [["Q1", "father", "Lord Byron"]]], ["Q two?", []]]))
    answers = write_jsonl(tmp_path / "a.jsonl", [{"id": "1", "answer": "A", "graph": ENTITIES}])
    questions = write_jsonl(tmp_path / "q.jsonl", [{"id": "1", "question": "Q?", "minimum": []}])
    seeds = write_jsonl(tmp_path / "s.jsonl", [{"id": "1", "paragraph": "P.", "qids": ["Q1"]}])
    mixed = write_jsonl(tmp_path / "m.jsonl", [{"answer": "A"}, {"paragraph": "P."}])
    assert file_kind(BIOKALMA) is QUESTION_GRAPHS
    assert file_kind(released_minimum) is MINIMUM_KNOWLEDGE
    assert file_kind(answers) is ANSWERS and file_kind(questions) is QUESTIONS and file_kind(seeds) is SEEDS
    assert file_kind(DATA / "graph.jsonl") is GRAPH and file_kind(DATA / "graph.nt") is GRAPH
    assert file_kind(mixed) is None


@pytest.mark.parametrize(
    ("load", "command"),
    [
        (load_answers, "factscope attribute score"),
        (lambda path: load_seeds(path, None), "factscope attribute make-questions"),
    ],
)
def test_the_question_graph_dataset_given_to_another_command_is_one_error(load, command):
    with pytest.raises(InputError) as info:
        load(BIOKALMA)
    message = str(info.value)
    assert message.startswith(str(BIOKALMA))
    assert (
        "question-graph dataset" in message
        and "factscope attribute generate" in message
        and command in message
    )


def test_answers_given_as_questions_name_the_command_that_takes_them(tmp_path):
    answers = write_jsonl(
        tmp_path / "a.jsonl", [{"id": str(i), "answer": "A", "graph": ENTITIES} for i in range(3)]
    )
    with pytest.raises(InputError, match="attributed answers.*give it to `factscope attribute score`"):
        load_questions(answers)


def test_every_record_bad_for_one_reason_is_one_error_naming_it(tmp_path):
    path = write_jsonl(tmp_path / "a.jsonl", [{"id": str(i), "answer": f"A{i}"} for i in range(4)])
    with pytest.raises(InputError) as info:
        load_answers(path)
    assert str(info.value) == (
        f"{path}: none of its 4 records can be used: each fails with field 'graph': missing (first at line 1)"
    )


def test_records_bad_for_different_reasons_are_reported_one_by_one(tmp_path):
    path = write_jsonl(tmp_path / "a.jsonl", [{"id": "1", "answer": "A"}, {"id": "2", "graph": ENTITIES}])
    assert [p.field for p in load_answers(path).problems] == ["graph", "answer"]
    path = write_jsonl(
        tmp_path / "b.jsonl", [{"id": "1", "answer": "A"}, {"id": "2", "answer": "B", "graph": ENTITIES}]
    )
    loaded = load_answers(path)
    assert [r.id for r in loaded.records] == ["2"] and [p.field for p in loaded.problems] == ["graph"]


def test_cli_score_on_the_question_graph_dataset_exits_2_with_one_line(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "factscope",
            "attribute",
            "score",
            str(BIOKALMA),
            "-o",
            str(tmp_path / "s.jsonl"),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert done.returncode == 2
    error = " ".join(done.stderr.split())
    assert (
        "skipped" not in error
        and "question-graph dataset" in error
        and "`factscope attribute generate`" in error
    )
    assert not (tmp_path / "s.jsonl").exists()


# ---------------------------------------------------------------- gold minimum knowledge (--minimum)


def test_kalma_minimum_layout_finds_sets_by_question_then_position(tmp_path):
    path = tmp_path / "gold_used_knowledge.json"
    path.write_text(
        json.dumps(
            [
                ["Who was Ada's  father?", [["Q1", "father", "Lord Byron"]]],
                ["Where did Byron die?", [["Q2", "place of death", "Missolonghi"]]],
            ]
        )
    )
    gold = read_minimum(path).gold
    assert gold.find("x", "Who was Ada's father?") == [Triple("Q1", "father", "Lord Byron")]
    assert gold.find("1", None) == [Triple("Q2", "place of death", "Missolonghi")]
    assert gold.find("1", "Another question?") is None


def test_minimum_records_by_id_and_bad_entries_skipped(tmp_path):
    path = write_jsonl(
        tmp_path / "minimum.jsonl",
        [
            {"id": "a", "minimum": [["Q1", "father", "Lord Byron"]]},
            {"minimum": [["Q1", "father", "Lord Byron"]]},
            {"question": "Q b?", "minimum": [["Q2", "occupation"]]},
        ],
    )
    loaded = read_minimum(path)
    assert loaded.gold.find("a", "anything") == [Triple("Q1", "father", "Lord Byron")]
    assert [(p.line, p.field) for p in loaded.problems] == [(2, None), (3, "minimum.0")]
    assert "give the 'id' or the 'question'" in str(loaded.problems[0])
    all_bad = write_jsonl(tmp_path / "bad.jsonl", [{"id": str(i), "minimum": "Q1"} for i in range(3)])
    with pytest.raises(InputError, match="none of its 3 records can be used"):
        read_minimum(all_bad)


def test_apply_minimum_replaces_sets_and_lists_the_records_without_one(tmp_path):
    path = tmp_path / "gold.json"
    path.write_text(json.dumps([["Q one?", [["Q1", "father", "Lord Byron"]]]]))
    records = [
        AnswerRecord("0", "Q one?", "A", GRAPH_OF_ADA, MINIMUM),
        AnswerRecord("7", "Q two?", "A", GRAPH_OF_ADA, MINIMUM),
    ]
    assert apply_minimum(records, read_minimum(path).gold) == ["7"]
    assert records[0].minimum == [Triple("Q1", "father", "Lord Byron")] and records[1].minimum == MINIMUM


def test_scores_against_the_gold_sets(tmp_path):
    answers = write_jsonl(
        tmp_path / "answers.jsonl",
        [
            {
                "id": "0",
                "question": "Who was Ada's father?",
                "graph": ENTITIES,
                "minimum": [t.to_list() for t in MINIMUM],
                "answer": "Her father was Lord Byron [Q1, father: Lord Byron]. She was born in London [Q1, place of birth: "
                "London].",
            }
        ],
    )
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([["Who was Ada's father?", [["Q1", "father", "Lord Byron"]]]]))
    records = load_answers(answers).records
    own = attribute(records, checker=ValueInSentence()).summary["removed=0"]
    # own set (3 triples): 2 citations, both precise; 2 of 3 recalled
    assert (own["micro_precision"], own["micro_recall"]) == (1.0, pytest.approx(2 / 3))
    apply_minimum(records, read_minimum(gold).gold)
    with_gold = attribute(records, checker=ValueInSentence()).summary["removed=0"]
    # gold set (1 triple): 1 of 2 citations precise; 1 of 1 recalled
    assert (with_gold["micro_precision"], with_gold["micro_recall"]) == (0.5, 1.0)


def test_cli_minimum_option_and_its_manifest(cli, tmp_path):
    answers = write_jsonl(
        tmp_path / "answers.jsonl",
        [
            {
                "id": "0",
                "question": "Who was Ada's father?",
                "graph": ENTITIES,
                "minimum": [t.to_list() for t in MINIMUM],
                "answer": "Her father was Lord Byron [Q1, father: Lord Byron].",
            }
        ],
    )
    gold = tmp_path / "gold.json"
    gold.write_text(json.dumps([["Who was Ada's father?", [["Q1", "father", "Lord Byron"]]]]))
    out, summary = tmp_path / "s.jsonl", tmp_path / "summary.json"
    result = cli(
        [
            "attribute",
            "score",
            str(answers),
            "-o",
            str(out),
            "--summary",
            str(summary),
            "--minimum",
            str(gold),
        ]
    )
    assert result.exit_code == 0, result.output
    assert "1 of 1 records use its sets" in " ".join(result.output.split())
    assert json.loads(summary.read_text())["removed=0"]["knowledge"] == 1
    with pytest.raises(ResultsMismatch, match="input 'records'"):
        cli(["attribute", "score", str(answers), "-o", str(out)])


# ---------------------------------------------------------------- citation matching: normalized and paper


def test_paper_reading_of_brackets():
    cited = [
        (c.qid, c.relation, c.value)
        for c in bracket_citations("Q1, place of birth: Washington, D.C., occupation: poet", 2)
    ]
    assert cited == [("Q1", "place of birth", "Washington, D.C."), ("Q1", "occupation", "poet")]
    assert [(c.qid, c.relation, c.value) for c in bracket_citations("qid: Q1, father: Lord Byron", 0)] == [
        ("qid: Q1", "father", "Lord Byron")
    ]
    for no_citation in ("NA", "Q1", "place of birth: London", "Q1, place of birth:London", "sic"):
        assert bracket_citations(no_citation, 0) == []
    assert [(c.qid, c.relation, c.value) for c in bracket_citations("N/A, a: b", 0)] == [("N/A", "a", "b")]


def test_normalized_and_paper_matching_side_by_side_hand_computed():
    parsed = parse_answer(ANSWER)
    # normalized: 6 citations ([Q2] is an incomplete one); 5 correct and precise (case and 'qid:' tolerated, the
    # repeat counted each time); all 3 minimum-set triples recalled
    matches, counts = match_citations(parsed.citations, GRAPH_OF_ADA.triples(), MINIMUM, "normalized")
    assert (counts.citations, counts.correct, counts.precise, counts.knowledge, counts.recalled) == (
        6,
        5,
        5,
        3,
        3,
    )
    # paper: [Q2] gives no citation -> 5; 'qid: Q1' and 'Occupation' match nothing -> 3 correct; the hits are
    # (Q1, place of birth, London) and (Q2, occupation, poet), each once -> precise 2, recalled 2
    cited = paper_citations(parsed)
    assert [c.sentence for c in cited] == [0, 1, 2, 2, 4]
    matches, counts = match_citations(cited, GRAPH_OF_ADA.triples(), MINIMUM, "paper")
    assert (counts.citations, counts.correct, counts.precise, counts.knowledge, counts.recalled) == (
        5,
        3,
        2,
        3,
        2,
    )
    assert [(m.correct, m.precise) for m in matches] == [
        (True, True),
        (False, False),
        (False, False),
        (True, True),
        (True, False),
    ]
    quality = citation_quality([counts])
    assert (quality.correctness, quality.micro_precision, quality.micro_recall) == (
        pytest.approx(3 / 5),
        pytest.approx(2 / 5),
        pytest.approx(2 / 3),
    )


def test_score_with_paper_matching_and_its_manifest(tmp_path):
    record = AnswerRecord("ada", "Who was Ada Lovelace?", ANSWER, GRAPH_OF_ADA, MINIMUM)
    out = tmp_path / "s.jsonl"
    run = attribute([record], checker=ValueInSentence(), output=out, matching="paper")
    row = run.results[0]
    assert [(c.qid, c.correct, c.precise) for c in row.citations] == [
        ("Q1", True, True),
        ("qid: Q1", False, False),
        ("Q2", False, False),
        ("Q2", True, True),
        ("Q1", True, False),
    ]
    assert run.summary["removed=0"]["micro_precision"] == pytest.approx(2 / 5)
    # alignment keeps factscope's reading of the sentences and citations in both modes
    assert len(row.alignment) == len(attribute([record], checker=ValueInSentence()).results[0].alignment)
    manifest = json.loads((tmp_path / "s.jsonl.manifest.json").read_text())
    assert manifest["settings"]["matching"] == "paper"
    with pytest.raises(ResultsMismatch, match='setting \'matching\': "paper" -> "normalized"'):
        attribute([record], checker=ValueInSentence(), output=out)


def test_cli_matching_option(cli, tmp_path):
    answers = write_jsonl(
        tmp_path / "answers.jsonl",
        [
            {
                "id": "ada",
                "question": "Who was Ada Lovelace?",
                "answer": ANSWER,
                "graph": ENTITIES,
                "minimum": [t.to_list() for t in MINIMUM],
            }
        ],
    )
    figures = {}
    for matching in ("normalized", "paper"):
        summary = tmp_path / f"{matching}.json"
        result = cli(
            [
                "attribute",
                "score",
                str(answers),
                "-o",
                str(tmp_path / f"{matching}.jsonl"),
                "--matching",
                matching,
                "--summary",
                str(summary),
            ]
        )
        assert result.exit_code == 0, result.output
        figures[matching] = json.loads(summary.read_text())["removed=0"]
    assert figures["normalized"]["micro_precision"] == pytest.approx(5 / 6)
    assert figures["paper"]["micro_precision"] == pytest.approx(2 / 5)


def test_cli_generate_with_minimum_uses_and_removes_the_gold_sets(cli, fake_llm, tmp_path):
    fake_llm.responder = lambda request: "Her father was Lord Byron [Q1, father: Lord Byron]."
    first_question = json.loads(BIOKALMA.read_text())[0][0]
    gold = tmp_path / "gold_used_knowledge.json"
    gold.write_text(json.dumps([[first_question, [["Q1", "father", "Lord Byron"]]]]))
    out = tmp_path / "answers.jsonl"
    llm = ["--llm-base-url", fake_llm.base_url, "--llm-model", "fake", "--llm-cache", "off"]
    result = cli(
        [
            "attribute",
            "generate",
            str(BIOKALMA),
            "--minimum",
            str(gold),
            "--remove",
            "1",
            "-o",
            str(out),
            *llm,
        ]
    )
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "1 of 2 records use its sets" in said and "1 records have no set" in said
    rows = {row["id"]: row for row in map(json.loads, out.read_text().splitlines())}
    assert rows["0"]["minimum"] == rows["0"]["removed"] == [["Q1", "father", "Lord Byron"]]
    assert len(rows["1"]["minimum"]) == 2
    with pytest.raises(InputError, match="gold minimum-knowledge file .*: give it to `minimum`"):
        cli(["attribute", "generate", str(gold), "-o", str(tmp_path / "other.jsonl"), *llm])


def test_one_reason_is_compared_with_its_numbers_aside(tmp_path):
    path = tmp_path / "numbers.json"
    path.write_text("[1, 2, 3]")
    with pytest.raises(
        InputError, match=r"none of its 3 records can be used: each fails with item 0 is a int"
    ):
        load_answers(path)
