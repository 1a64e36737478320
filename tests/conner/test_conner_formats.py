"""CONNER's own files (query tables, one knowledge per line paired with its queries) read as knowledge records, and
the factuality aggregation options (evidence mean, sentences ranked by label) through the evaluator and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import pytest
from typer.testing import CliRunner

import repo_paths
from command_line import command_line
from factscope.checkers.base import CheckTask
from factscope.cli import knowledge as knowledge_cli
from factscope.conner.data import KnowledgeRecord, read_knowledge_records
from factscope.conner.evaluator import KnowledgeEvaluator, KnowledgeSettings
from factscope.conner.released_files import file_layout
from factscope.core.errors import ConfigError, InputError
from factscope.core.files.manifest import ResultsMismatch
from factscope.core.schema import LABELS, Verdict
from factscope.retrieve.corpus import Hit

DATA = repo_paths.DATA / "knowledge"
TABLE = DATA / "nq_random_testset.txt"
LINES = DATA / "nq_knowledge"
ROWS = TABLE.read_text().splitlines()


def records_of(path: Path, **options) -> list[KnowledgeRecord | InputError]:
    return [item for _, item in read_knowledge_records(path, **options)]


def test_layouts_by_extension_and_content(tmp_path):
    assert file_layout(TABLE) == "table" and file_layout(LINES) == "lines"
    assert file_layout(DATA / "records.jsonl") == "records"
    jsonl_as_txt = tmp_path / "records.txt"
    jsonl_as_txt.write_text('{"query": "q", "knowledge": "k"}\n')
    tsv = tmp_path / "queries.tsv"
    tsv.write_text("just one column\n")
    assert file_layout(jsonl_as_txt) == "records" and file_layout(tsv) == "table"


def test_query_table_rows_are_records():
    first, _, third = records_of(TABLE)
    assert isinstance(first, KnowledgeRecord) and isinstance(third, KnowledgeRecord)
    assert (first.id, first.topic, first.query, first.gold_answer, first.task) == (
        "line-1",
        "The Glory of Love",
        "who wrote the song the glory of love",
        "Billy Hill",
        "qa",
    )
    assert first.knowledge == "The Glory of Love is a song written by Billy Hill in 1936 ."
    assert [r.task for r in records_of(TABLE, task="dialogue")] == ["dialogue"] * 3


@pytest.mark.parametrize("header", ["topic\tquery\tknowledge\tresponse", "Topic\tQuery\tKnowledge\tAnswer"])
def test_a_header_row_naming_the_columns_is_skipped(tmp_path, header):
    path = tmp_path / "wow.tsv"
    path.write_text("\n".join([header, *ROWS]) + "\n")
    assert [r.id for r in records_of(path)] == ["line-2", "line-3", "line-4"]


def test_bad_rows_are_located_by_line_and_column(tmp_path):
    path = tmp_path / "queries.tsv"
    path.write_text(
        "\n".join(
            [
                ROWS[0],
                "Paris\twhat is the capital of france\tParis is the capital.",
                "Paris\t \tk\ta",
                "T\tq\t\ta",
            ]
        )
        + "\n"
    )
    items = dict(read_knowledge_records(path))
    assert isinstance(items[1], KnowledgeRecord)
    assert items[2].line == 2 and "3 tab-separated columns, expected 4" in str(items[2])
    assert items[3].field == "column 2 (query)" and str(items[3]).startswith(f"{path}:3:")
    assert items[4].field == "column 3 (knowledge)"
    # queries for generation need no knowledge
    assert isinstance(dict(read_knowledge_records(path, need_knowledge=False))[4], KnowledgeRecord)


def test_knowledge_lines_pair_with_their_queries_line_for_line():
    paired = records_of(LINES, queries=TABLE)
    assert [(r.id, r.query, r.knowledge, r.gold_answer) for r in paired][1] == (
        "line-2",
        "what is the capital of france",
        "Paris is the capital of France.",
        "Paris",
    )
    assert [r.task for r in records_of(LINES, queries=TABLE, task="dialogue")] == ["dialogue"] * 3


def test_knowledge_lines_problems(tmp_path):
    with pytest.raises(InputError, match="`queries`"):
        records_of(LINES)
    with pytest.raises(ConfigError, match="holds its queries itself"):
        records_of(TABLE, queries=TABLE)
    short = tmp_path / "knowledge"
    short.write_text("Paris is the capital of France.\n")
    with pytest.raises(InputError, match="1 knowledge lines, but .* has 3 queries"):
        records_of(short, queries=TABLE)
    blank = tmp_path / "with_blank"
    blank.write_text("Billy Hill wrote it.\n\nEverest is high.\n")
    items = records_of(blank, queries=TABLE)
    assert isinstance(items[1], InputError) and items[1].line == 2 and "query line-2" in str(items[1])
    assert [r.id for r in items if isinstance(r, KnowledgeRecord)] == ["line-1", "line-3"]


def test_a_record_naming_its_task_keeps_it(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"query": "q", "knowledge": "k", "task": "qa"}\n{"query": "q", "knowledge": "k"}\n')
    assert [r.task for r in records_of(path, task="dialogue")] == ["qa", "dialogue"]


class Scripted:
    """A retriever giving the same two passages for every sentence, and a checker with scripted NLI vectors."""

    name = "scripted"
    PROBS: ClassVar[dict[tuple[str, str], tuple[float, float, float]]] = {
        ("Ada was born in London.", "p1"): (0.6, 0.3, 0.1),
        ("Ada was born in London.", "p2"): (0.2, 0.2, 0.6),
        ("She wrote notes.", "p1"): (0.1, 0.8, 0.1),
        ("She wrote notes.", "p2"): (0.3, 0.3, 0.4),
    }

    def search_many(self, queries, k=5):
        return [[Hit("p1", "p1", 1.0), Hit("p2", "p2", 0.5)][:k] for _ in queries]

    def check(self, tasks: list[CheckTask]):
        out = []
        for task in tasks:
            probs = self.PROBS[(task.claim, task.references[0])]
            out.append(Verdict(label=LABELS[max(range(3), key=lambda i: probs[i])], probs=probs))
        return out


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        # max over evidence: s1 -> p1 (0.6, 0.3, 0.1), s2 -> p2 (0.3, 0.3, 0.4); min over sentences -> s2
        ({}, (0.3, 0.3, 0.4)),
        # mean over evidence: s1 -> (0.4, 0.25, 0.35), s2 -> (0.2, 0.55, 0.25); min -> s2
        ({"evidence_aggregate": "mean"}, (0.2, 0.55, 0.25)),
        # max over sentences, ranked by label: s1 is entailment, s2 contradiction -> s1
        ({"aggregate": "max", "rank_by": "label"}, (0.6, 0.3, 0.1)),
    ],
)
def test_evaluator_factuality_options_hand_computed(settings, expected):
    scripted = Scripted()
    evaluator = KnowledgeEvaluator(
        checker=scripted, retriever=scripted, settings=KnowledgeSettings(evidence_k=2, **settings)
    )
    (scores,) = evaluator.score(
        [KnowledgeRecord(id="a", query="Ada?", knowledge="Ada was born in London. She wrote notes.")]
    )
    factuality = scores.factuality
    assert factuality is not None
    assert (factuality.consistent, factuality.non_verified, factuality.inconsistent) == pytest.approx(
        expected
    )


@pytest.fixture(scope="module")
def app():
    return command_line(knowledge_cli)


def run(app, *args):
    return CliRunner().invoke(app, ["knowledge", *(str(a) for a in args)], catch_exceptions=False)


OFFLINE_NOTHING = ["--checker", "none", "--relevance-model", "none", "--coherence-model", "none"]


def test_cli_scores_generated_knowledge_lines_against_the_query_table(app, tmp_path):
    out = tmp_path / "scored.jsonl"
    result = run(app, "score", LINES, "--queries", TABLE, "--task", "qa", "-o", out, *OFFLINE_NOTHING)
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["line-1", "line-2", "line-3"]
    settings = json.loads((tmp_path / "scored.jsonl.manifest.json").read_text())["settings"]["evaluator"][
        "settings"
    ]
    assert (settings["aggregate"], settings["evidence_aggregate"], settings["rank_by"]) == (
        "min",
        "max",
        "entailment",
    )
    with pytest.raises(ResultsMismatch, match="rank_by"):
        run(app, "score", LINES, "--queries", TABLE, "-o", out, "--rank-by", "label", *OFFLINE_NOTHING)
    with pytest.raises(ResultsMismatch, match="input 'records'"):
        run(app, "score", LINES, "--queries", TABLE, "--task", "dialogue", "-o", out, *OFFLINE_NOTHING)


def test_cli_every_record_bad_for_one_reason_is_one_error(app, tmp_path):
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(json.dumps({"id": str(i), "answer": "A", "graph": []}) + "\n" for i in range(3))
    )
    with pytest.raises(
        InputError, match="none of its 3 records can be used: each fails with field 'query': missing"
    ):
        run(app, "score", answers, "-o", tmp_path / "s.jsonl", *OFFLINE_NOTHING)


def _jsonl(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_knowledge_lines_pair_by_position_whatever_the_ids_and_a_repeated_id_keeps_the_pairing(tmp_path):
    queries = _jsonl(tmp_path / "queries.jsonl", [
        {"id": "z", "query": "Which letter is last?"}, {"id": "a", "query": "Which letter is first?"},
        {"id": "z", "query": "Which letter again?"}, {"id": "m", "query": "Which letter is in the middle?"},
    ])
    knowledge = tmp_path / "knowledge"
    knowledge.write_text("Z is last.\nA is first.\nZ again.\nM is in the middle.\n")
    items = records_of(knowledge, queries=queries)
    assert [(r.id, r.knowledge) for r in items if isinstance(r, KnowledgeRecord)] == [
        ("z", "Z is last."), ("a", "A is first."), ("m", "M is in the middle.")]
    repeated = items[2]
    assert isinstance(repeated, InputError) and (repeated.path, repeated.line) == (str(queries), 3)
    assert "is already used by line 1" in repeated.reason
    knowledge.write_text("Z is last.\nA is first.\nZ again.\nM is in the middle.\nOne line too many.\n")
    with pytest.raises(InputError, match="5 knowledge lines, but .* has 4 queries") as raised:
        records_of(knowledge, queries=queries)
    assert raised.value.path == str(knowledge)


def test_knowledge_lines_and_their_queries_are_read_in_step_without_holding_them(tmp_path):
    import tracemalloc

    from factscope.conner.data import KnowledgeRecords

    count = 2000
    queries = _jsonl(tmp_path / "queries.jsonl", [
        {"id": f"q{n}", "query": f"What is known about item {n}? " + "Context words. " * 80} for n in range(count)])
    knowledge = tmp_path / "knowledge.txt"
    knowledge.write_text("".join(f"Item {n} is known. " + "Knowledge words. " * 80 + "\n" for n in range(count)))
    size = queries.stat().st_size + knowledge.stat().st_size
    assert size > 4_000_000
    records = KnowledgeRecords(knowledge, queries=queries)
    next(iter(records))
    tracemalloc.start()
    try:
        paired = sum(1 for _ in records)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert paired == count and not records.problems
    assert peak < size / 10, f"pairing held {peak} bytes of {size} bytes of input"
