"""A knowledge-generation run over a file of queries (conner.generation_run: the KnowledgeWriter) on the fake LLM
server: its settings declared once (GenerationSettings, CandidateSampling, DemonstrationSettings, held by
KnowledgeGenerationSettings), the evaluator built only
where Q_know chooses, the records counted, and the run policy of a knowledge file (KnowledgeSystem.check_usable)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import repo_paths
from factscope.conner.demonstrations import DemonstrationSettings
from factscope.conner.generation import CandidateSampling, GenerationSettings
from factscope.conner.generation_run import KnowledgeGenerationSettings, KnowledgeWriter, selection_spec
from factscope.conner.scores import KnowledgeScores
from factscope.conner.spec import KnowledgeSpec
from factscope.conner.system import KnowledgeSystem
from factscope.core.errors import InputError
from factscope.core.options.rules import broken_rule, field_rules
from factscope.llm.client import LLMClient, LLMConfig
from kept_notes import KeptNotes

BAD_RECORDS = repo_paths.DATA / "knowledge" / "records.jsonl"
TRAIN = repo_paths.EXAMPLES / "knowledge" / "records.jsonl"


class RankByLength:
    """An evaluator stand-in whose Q_know is the knowledge length."""

    lm = None

    def score(self, records, pool=None):
        return [KnowledgeScores(id=r.id, q_know=float(len(r.knowledge))) for r in records]


def _client(server) -> LLMClient:
    return LLMClient(LLMConfig(base_url=server.base_url, model="fake", max_retries=0, cache_path=None))


def _queries(tmp_path: Path, *queries: str) -> Path:
    path = tmp_path / "queries.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{i}", "query": q}) + "\n" for i, q in enumerate(queries)))
    return path


def test_candidate_sampling_sets_the_generation_settings_it_samples_with():
    settings = CandidateSampling(candidates=3, top_p=0.5, temperature=0.7).settings(GenerationSettings(mode="few", seed=4))
    assert settings == GenerationSettings(mode="few", candidates=3, top_p=0.5, temperature=0.7, seed=4)
    assert (CandidateSampling().candidates, CandidateSampling().top_p) == (5, GenerationSettings().top_p)


@pytest.mark.parametrize("name", ["shots", "select_from"])
def test_the_few_shot_options_count_only_in_a_few_shot_run(name):
    rules = field_rules(next(item for item in dataclasses.fields(DemonstrationSettings) if item.name == name))
    assert broken_rule(rules, {"mode": "few"}) is None
    assert broken_rule(rules, {"mode": "zero"}).condition == "with `mode='few'`"


def test_the_q_know_evaluator_is_wanted_only_where_it_chooses():
    scoring = KnowledgeSpec(lm="gpt2", checker="none")
    assert selection_spec(scoring, GenerationSettings(), DemonstrationSettings()) is None
    assert selection_spec(scoring, GenerationSettings(candidates=2), DemonstrationSettings()) == scoring
    assert selection_spec(scoring, GenerationSettings(), DemonstrationSettings(select_from=4)) == scoring
    assert selection_spec(KnowledgeSpec(lm="none"), GenerationSettings(candidates=2), DemonstrationSettings()).lm == "none"


class NotesWithRequests(KeptNotes):
    """Notes that also keep how many requests the fake LLM server had when each note came."""

    def __init__(self, server) -> None:
        super().__init__()
        self.server = server
        self.requests_then: list[int] = []

    def note(self, line):
        super().note(line)
        self.requests_then.append(len(self.server.requests))


def test_a_run_counts_its_records_reports_the_bad_ones_and_answers(fake_llm, tmp_path):
    fake_llm.responder = lambda request: "Some knowledge."
    told = KeptNotes()
    settings = KnowledgeGenerationSettings(demonstrations=DemonstrationSettings(answer=True))
    made = KnowledgeWriter().write(settings, BAD_RECORDS, llm=_client(fake_llm), output=tmp_path / "out.jsonl",
                                   notes=told)
    # lines 4 and 5 cannot be read; line 6 has no knowledge, which a query to generate for needs not
    assert (made.records, made.skipped, made.new_records, made.failed) == (4, 2, 4, 0)
    assert [problem.line for problem in told.skipped_records] == [4, 5] and len(told.lines) == 2
    assert (made.what_failed, made.failures_kept) == ("knowledge generations", True)
    assert made.summary_rows() == [
        ("records", 4), ("skipped (bad input)", 2), ("generated (new / resumed)", "4 / 0"), ("failed", 0)
    ]
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert all(row["knowledge"] == "Some knowledge." and row["answer"] == "Some knowledge." for row in rows)
    # 4 knowledge requests, then 4 answers
    assert len(fake_llm.requests) == 8


def test_selection_keeps_the_best_candidate_and_demonstrations_are_told_before_generation(fake_llm, tmp_path):
    texts = ["Short.", "The longest candidate of all.", "Mid length."]
    fake_llm.responder = lambda request: texts[request["seed"]] if "seed" in request else "x"
    told = NotesWithRequests(fake_llm)
    settings = KnowledgeGenerationSettings(
        generation=CandidateSampling(candidates=3).settings(GenerationSettings(mode="few")),
        demonstrations=DemonstrationSettings(train=TRAIN, shots=2, select_from=4),
    )
    made = KnowledgeWriter(KnowledgeSpec(evaluator=RankByLength())).write(
        settings, _queries(tmp_path, "who wrote it"), llm=_client(fake_llm), output=tmp_path / "out.jsonl", notes=told
    )
    (row,) = made.results
    assert row.selected == 1 and row.knowledge == texts[1]
    # one line naming the two demonstrations chosen, told before any generation request
    (line,) = told.lines
    assert line.startswith("qa demonstrations chosen by Q_know: ") and line.count(", ") == 1
    assert told.requests_then == [0]


def test_a_file_without_a_usable_query_is_an_error(fake_llm, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a"}\n{broken\n')  # two reasons: no whole-file error, each record skipped
    told = KeptNotes()
    with pytest.raises(InputError, match="no usable records"):
        KnowledgeWriter().write(KnowledgeGenerationSettings(), bad, llm=_client(fake_llm), notes=told)
    assert [problem.line for problem in told.skipped_records] == [1, 2] and fake_llm.requests == []


def test_the_run_policy_of_a_knowledge_file():
    system = KnowledgeSystem()
    problems = [InputError("missing", path="f.jsonl", line=line, field="query") for line in (1, 2)]
    with pytest.raises(InputError, match="none of its 2 records can be used: each fails with field 'query'"):
        system.check_usable(0, problems, "f.jsonl", None)
    told = KeptNotes()
    system.check_usable(3, problems, "f.jsonl", told)
    assert told.skipped_records == problems
    mixed = [problems[0], InputError("broken JSON", path="f.jsonl", line=3)]
    with pytest.raises(InputError, match="no usable records; see the messages above"):
        system.check_usable(0, mixed, "f.jsonl", told)
    assert told.skipped_records[2:] == mixed
