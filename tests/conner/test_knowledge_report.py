"""What a terminal shows of a knowledge-scoring run (KnowledgeSystem's report hooks, shown by the CLI's
``report_run``): the metrics not computed, as notes below the summary table, and the failed records."""

from __future__ import annotations

from typer.testing import CliRunner

import repo_paths
from command_line import command_line
from factscope.cli import knowledge
from factscope.conner.scores import NOT_SCORED, KnowledgeScores
from factscope.conner.system import KNOWLEDGE

NOTHING = ["--checker", "none", "--relevance-model", "none", "--coherence-model", "none", "--lm", "none"]


def test_a_scoring_run_notes_what_it_did_not_compute_and_counts_its_failures():
    run = KNOWLEDGE.summarize([
        KnowledgeScores(id="a", relevance=0.5, not_computed={"factuality": "no corpus"}),
        KnowledgeScores(id="b", not_computed={"relevance": f"{NOT_SCORED}: worker died", "factuality": "no corpus"}),
    ])
    assert KNOWLEDGE.notes(run) == ["factuality not computed: no corpus",
                                    f"relevance not computed: {NOT_SCORED}: worker died"]
    assert KNOWLEDGE.failures(run) == (1, "records (a checker or causal-LM call, or their worker process)")


def test_the_score_command_shows_the_notes_below_its_table(tmp_path):
    records = repo_paths.DATA / "knowledge" / "records.jsonl"
    result = CliRunner().invoke(command_line(knowledge), ["knowledge", "score", str(records), "-o",
                                                          str(tmp_path / "s.jsonl"), *NOTHING], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    table = next(i for i, line in enumerate(lines) if "CONNER knowledge scores ->" in line)
    notes = [line for line in lines[table:] if line.startswith("note ")]
    assert notes[0] == "note coherence_paragraph not computed: no paragraph coherence model; pass `coherence`"
    assert len(notes) == 8
