"""The Ray engine gives the local engine's rows and summary: on the shipped example with the offline models, on a
few thousand generated records in shards, after a shard-level resume, and when a worker dies mid-run.

One local Ray cluster of 2 CPUs serves the whole module. The generated records go through a pipeline built here
from factscope's own check task (``check_pipeline``, its totals and rates) with a sentence extractor and a
word-overlap checker, cheap and deterministic, so that rows can be compared whole.
"""

from __future__ import annotations

import builtins
import dataclasses
import json
import os
import random
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ray = pytest.importorskip(
    "ray", reason="the Ray engine needs the optional extra: pip install 'factscope[ray]'"
)

from factscope.checkers.base import CheckTask
from factscope.checkers.relevance import lexical_relevance
from factscope.conner.data import KnowledgeRecord, parse_knowledge_record
from factscope.conner.evaluator_setup import make_evaluator
from factscope.conner.scores import KnowledgeScores, knowledge_failed
from factscope.conner.spec import KnowledgeSpec
from factscope.conner.system import KNOWLEDGE
from factscope.conner.task import knowledge_pipeline
from factscope.conner.totals import METRICS, KnowledgeTotals
from factscope.core.errors import ConfigError
from factscope.core.files.manifest import ResultsMismatch
from factscope.core.runs.loop import Pipeline, run_pipeline
from factscope.core.schema import Claim, Extraction, Record, Verdict
from factscope.core.text import split_sentences
from factscope.engines.ray import RayOptions, require_ray, run_on_ray
from factscope.grounding.data import GroundExample, attach_responses, load_dataset
from factscope.grounding.system import GROUND
from factscope.grounding.task import GroundResult, GroundTotals, ground_pipeline
from factscope.kalma.answers import AnswerRecord, AnswerRecords, read_answer
from factscope.kalma.scores import AttributionScore, score_failed
from factscope.kalma.system import ATTRIBUTE
from factscope.kalma.task import attribution_pipeline
from factscope.kalma.totals import AttributionTotals
from factscope.refchecker.data import CheckRecords, parse_record
from factscope.refchecker.task import CheckResult, CheckTotals, check_pipeline, check_run
from repo_paths import EXAMPLES

EXAMPLE = EXAMPLES / "check.jsonl"


@pytest.fixture(scope="module", autouse=True)
def cluster():
    """A local Ray cluster of 2 CPUs for the module; this module's classes travel to the workers by value."""
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


class SentenceClaims:
    """Each sentence of a response is a claim."""

    name = "sentences-test"

    def extract(
        self, texts: Sequence[str], questions: Sequence[str | None] | None = None
    ) -> list[Extraction]:
        return [
            Extraction(claims=[Claim(text=s, kind="sentence") for s in split_sentences(t)]) for t in texts
        ]


class OverlapChecker:
    """Entailment when most of a claim's content words are in a reference, Contradiction when the claim says
    'not', else Neutral."""

    name = "overlap-test"

    def check(self, tasks: Sequence[CheckTask]) -> list[Verdict]:
        verdicts = []
        for task in tasks:
            score = max((lexical_relevance(task.claim, ref) for ref in task.references), default=0.0)
            label = (
                "Entailment"
                if score >= 0.6
                else "Contradiction"
                if " not " in f" {task.claim} "
                else "Neutral"
            )
            verdicts.append(Verdict(label=label, score=score))
        return verdicts


def cheap_pipeline() -> Pipeline[Record, CheckResult, CheckTotals]:
    return check_pipeline(SentenceClaims(), OverlapChecker())


@dataclasses.dataclass(frozen=True)
class DiesOnce:
    """The cheap pipeline, whose worker process exits on its third batch, once in the whole run (a marker file
    says it has)."""

    marker: Path

    def __call__(self) -> Pipeline[Record, CheckResult, CheckTotals]:
        pipeline = cheap_pipeline()
        calls = Counter[str]()

        def process(batch: Sequence[Record]) -> Sequence[CheckResult]:
            calls["batches"] += 1
            if calls["batches"] == 3 and not self.marker.exists():
                self.marker.write_text(str(os.getpid()))
                os._exit(1)
            return pipeline.process(batch)

        return dataclasses.replace(pipeline, process=process)


@dataclasses.dataclass(frozen=True)
class KillsItsWorkerOn:
    """The pipeline ``build`` makes (the cheap check pipeline unless given), whose worker process exits whenever
    its batch holds the record ``poison``; each exit leaves a file in ``exits``. A run sees one exit in a batch
    (two when the rows of the batch before it were lost with the process), then ``max_crashes`` with the record
    run alone."""

    poison: str
    exits: Path
    build: Callable[[], Pipeline[Any, Any, Any]] = cheap_pipeline

    def __call__(self) -> Pipeline[Any, Any, Any]:
        pipeline = self.build()

        def process(batch: Sequence[Any]) -> Sequence[Any]:
            if any(pipeline.key(item) == self.poison for item in batch):
                (self.exits / f"exit-{len(list(self.exits.iterdir()))}").write_text(str(os.getpid()))
                os._exit(1)
            return pipeline.process(batch)

        return dataclasses.replace(pipeline, process=process)


WORDS = [
    "the",
    "river",
    "city",
    "bridge",
    "north",
    "old",
    "station",
    "museum",
    "park",
    "tower",
    "market",
    "school",
    "built",
    "opened",
    "closed",
]
SETTINGS = ["zero", "noisy", "accurate"]


def generated(folder: Path, records: int, shards: int, seed: int = 0) -> list[Path]:
    """``records`` check records of made-up sentences in ``shards`` JSONL shards; some responses restate their
    reference, some say 'not', some decline to answer."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"part-{n:02d}.jsonl" for n in range(shards)]
    handles = [path.open("w", encoding="utf-8") for path in paths]
    for number in range(records):
        reference = " ".join(rng.choice(WORDS) for _ in range(12)).capitalize() + "."
        kept = reference.split()[: rng.randint(3, 8)]
        sentences = [" ".join(kept) + ".", " ".join(rng.choice(WORDS) for _ in range(5)).capitalize() + "."]
        if number % 7 == 0:
            sentences.append("It was not " + rng.choice(WORDS) + ".")
        response = "I don't know." if number % 50 == 0 else " ".join(sentences)
        record = {
            "id": f"r{number}",
            "response": response,
            "references": [reference],
            "setting": SETTINGS[number % 3],
        }
        handles[number % shards].write(json.dumps(record) + "\n")
    for handle in handles:
        handle.close()
    return paths


def local_run(paths: Sequence[Path], pipeline: Pipeline[Record, CheckResult, CheckTotals], output: Path):
    """The local engine over the shards one after another, into one results file."""
    records = [record for path in paths for record in CheckRecords(path)]
    produced, totals = run_pipeline(pipeline, records, output=output, batch_size=16)
    assert isinstance(totals, CheckTotals)
    return check_run(produced, totals, extractor="sentences-test", checker="overlap-test")


def ray_run(build, input: Path, output: Path, **options):
    sharded = run_on_ray(build, parse_record, input, output, options=RayOptions(batch_size=16, **options))
    assert isinstance(sharded.totals, CheckTotals)
    names = sharded.names
    return check_run(
        sharded.produced, sharded.totals, extractor=names["extractor"], checker=names["checker"]
    ), sharded


def figures(run) -> dict:
    return run.model_dump(exclude={"seconds", "new_records", "resumed_records"})


def test_generated_records_in_shards_give_the_local_rows_and_summary(tmp_path):
    paths = generated(tmp_path / "in", 2000, 3)
    local = local_run(paths, cheap_pipeline(), tmp_path / "local.jsonl")
    run, sharded = ray_run(
        cheap_pipeline, tmp_path / "in", tmp_path / "out", concurrency=2, lines_per_unit=250
    )
    assert sharded.problems == []
    assert (run.new_records, run.resumed_records) == (2000, 0)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["manifest.json", *(p.name for p in paths)]
    ray_rows = {row.id: row.model_dump() for row in run.results}
    local_rows = {row.id: row.model_dump() for row in local.results}
    assert len(ray_rows) == len(run.results) == 2000
    assert ray_rows == local_rows
    assert figures(run) == figures(local)
    assert run.rates.abstained > 0 and run.rates.rates["Contradiction"] > 0
    for path in paths:
        ids = [json.loads(line)["id"] for line in (tmp_path / "out" / path.name).read_text().splitlines()]
        assert ids == [record.id for record in CheckRecords(path)]


def test_a_rerun_resumes_each_shard_and_keeps_every_record_once(tmp_path):
    paths = generated(tmp_path / "in", 300, 2, seed=1)
    first, _ = ray_run(cheap_pipeline, tmp_path / "in", tmp_path / "out", lines_per_unit=60)
    shard = tmp_path / "out" / paths[1].name
    lines = shard.read_text().splitlines(keepends=True)
    shard.write_text("".join(lines[:40]) + lines[40][:25])
    again, _ = ray_run(cheap_pipeline, tmp_path / "in", tmp_path / "out", lines_per_unit=60)
    assert (again.new_records, again.resumed_records) == (len(lines) - 40, 300 - len(lines) + 40)
    ids = [row.id for row in again.results]
    assert sorted(ids) == sorted(f"r{n}" for n in range(300))
    assert figures(again) == figures(first)
    with pytest.raises(ResultsMismatch, match="abstention_detection"):
        run_on_ray(
            lambda: check_pipeline(SentenceClaims(), OverlapChecker(), abstention_detection=False),
            parse_record,
            tmp_path / "in",
            tmp_path / "out",
        )


def test_a_worker_killed_mid_run_is_restarted_and_every_record_is_written_once(tmp_path):
    paths = generated(tmp_path / "in", 400, 2, seed=2)
    marker = tmp_path / "died"
    local = local_run(paths, cheap_pipeline(), tmp_path / "local.jsonl")
    run, _ = ray_run(DiesOnce(marker), tmp_path / "in", tmp_path / "out", concurrency=1, lines_per_unit=100)
    assert marker.exists()
    ids = [row.id for row in run.results]
    assert len(ids) == len(set(ids)) == 400
    assert {row.id: row.model_dump() for row in run.results} == {
        row.id: row.model_dump() for row in local.results
    }
    assert figures(run) == figures(local)


def test_a_record_that_kills_its_worker_every_time_is_written_failed_and_every_other_record_once(tmp_path):
    paths = generated(tmp_path / "in", 60, 1, seed=4)
    exits = tmp_path / "exits"
    exits.mkdir()
    local = local_run(paths, cheap_pipeline(), tmp_path / "local.jsonl")
    run, sharded = ray_run(
        KillsItsWorkerOn("r17", exits), tmp_path / "in", tmp_path / "out", concurrency=2, lines_per_unit=20,
        max_crashes=2,
    )
    rows = [json.loads(line) for line in (tmp_path / "out" / paths[0].name).read_text().splitlines()]
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids)) == 60 and run.new_records == 60
    poisoned = next(row for row in rows if row["id"] == "r17")
    assert poisoned["extraction_failed"]
    assert "record 'r17' ended its worker process 2 times" in poisoned["extraction_error"]
    assert 3 <= len(list(exits.iterdir())) <= 4 and sharded.crashed == 1
    expected = {row.id: row.model_dump(mode="json") for row in local.results if row.id != "r17"}
    assert {row["id"]: row for row in rows if row["id"] != "r17"} == expected
    assert ids == [record.id for record in CheckRecords(paths[0])]


def test_a_bad_record_is_reported_with_its_file_and_line_and_skipped(tmp_path):
    paths = generated(tmp_path / "in", 40, 2, seed=3)
    with paths[1].open("a", encoding="utf-8") as handle:
        handle.write('{"id": "broken", "response": \n')
        handle.write(json.dumps({"id": "no-response", "references": ["x"]}) + "\n")
        handle.write(json.dumps({"id": "r1", "response": "A repeated id.", "references": ["x"]}) + "\n")
    run, sharded = ray_run(cheap_pipeline, tmp_path / "in", tmp_path / "out", lines_per_unit=7)
    assert run.new_records == 40
    found = sorted((Path(p.path or "").name, p.line, p.field) for p in sharded.problems)
    assert found == [
        ("part-01.jsonl", 21, None),
        ("part-01.jsonl", 22, "response"),
        ("part-01.jsonl", 23, "id"),
    ]
    assert "broken JSON" in str(next(p for p in sharded.problems if p.line == 21))


def test_without_ray_the_engine_says_how_to_install_it(monkeypatch):
    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == "ray" or name.startswith("ray."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(ConfigError, match=r"pip install 'factscope\[ray\]'"):
        require_ray()


def test_the_command_without_ray_exits_2_with_the_install_line(tmp_path):
    blocked = (
        "import sys; sys.modules['ray'] = None; from factscope.cli.main import main; "
        f"sys.argv = ['factscope', 'check', {str(EXAMPLE)!r}, '--engine', 'ray', '-o', {str(tmp_path / 'out')!r}]; "
        "main()"
    )
    result = subprocess.run(
        [sys.executable, "-c", blocked],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "COLUMNS": "200"},
    )
    output = " ".join((result.stdout + result.stderr).split())
    assert result.returncode == 2, output
    assert "pip install 'factscope[ray]'" in output and "Traceback" not in output
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_the_shipped_example_through_the_cli_gives_the_local_labels_and_summary(app, tmp_path):
    from typer.testing import CliRunner

    runner = CliRunner()
    common = ["check", str(EXAMPLE), "--concurrency", "1"]
    local = runner.invoke(
        app, [*common, "-o", str(tmp_path / "local.jsonl"), "--summary", str(tmp_path / "l.json")]
    )
    assert local.exit_code == 0, local.output
    on_ray = runner.invoke(
        app, [*common, "--engine", "ray", "-o", str(tmp_path / "ray"), "--summary", str(tmp_path / "r.json")]
    )
    assert on_ray.exit_code == 0, on_ray.output
    assert "hallucination rates" in on_ray.output and "records (new / resumed)" in on_ray.output

    def labels(path: Path) -> dict[str, list[str]]:
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        return {
            row["id"]: [(c["claim"]["text"], c["verdict"]["label"]) for c in row["claims"]] for row in rows
        }

    assert labels(tmp_path / "ray" / "check.jsonl") == labels(tmp_path / "local.jsonl")
    local_figures = json.loads((tmp_path / "l.json").read_text())
    ray_figures = json.loads((tmp_path / "r.json").read_text())
    for figures_ in (local_figures, ray_figures):
        figures_.pop("seconds")
    assert ray_figures == local_figures
    assert ray_figures["claims"] > 0


def test_a_cascade_on_ray_decides_each_claim_with_the_local_checker(app, tmp_path):
    from typer.testing import CliRunner

    runner = CliRunner()
    common = ["check", str(EXAMPLE), "--concurrency", "1", "--checker", "cascade:embedded,similarity,0.5,1"]
    local = runner.invoke(app, [*common, "-o", str(tmp_path / "local.jsonl")])
    assert local.exit_code == 0, local.output
    on_ray = runner.invoke(app, [*common, "--engine", "ray", "-o", str(tmp_path / "ray")])
    assert on_ray.exit_code == 0, on_ray.output
    assert "escalated to the second checker" in on_ray.output

    def decided(path: Path) -> dict[str, list[tuple[str, str, bool]]]:
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        return {
            row["id"]: [(c["verdict"]["label"], c["verdict"]["decided_by"], c["verdict"]["escalated"])
                        for c in row["claims"]]
            for row in rows
        }

    on_local = decided(tmp_path / "local.jsonl")
    assert decided(tmp_path / "ray" / "check.jsonl") == on_local
    escalated = [flag for claims in on_local.values() for _, _, flag in claims]
    assert any(escalated) and not all(escalated), "the band splits the example's claims between the two checkers"


def attribution_with_overlap() -> Pipeline[AnswerRecord, AttributionScore, AttributionTotals]:
    return attribution_pipeline(OverlapChecker())


@dataclasses.dataclass(frozen=True)
class KnowledgeWithOverlap:
    """CONNER's scoring with BM25 evidence from ``corpus`` and the overlap checker (factuality, validity, Q_know)."""

    corpus: Path

    def __call__(self) -> Pipeline[KnowledgeRecord, KnowledgeScores, KnowledgeTotals]:
        evaluator = make_evaluator(KnowledgeSpec(corpus=self.corpus, checker="none", relevance="none", coherence="none"))
        return knowledge_pipeline(dataclasses.replace(evaluator, checker=OverlapChecker()), pool=[])


def test_attribution_scores_of_answer_shards_are_the_local_ones(tmp_path):
    folder = tmp_path / "answers"
    folder.mkdir()
    for name in ("answers.jsonl", "answers_removed1.jsonl"):
        shutil.copy(EXAMPLES / "attribute" / name, folder / name)
    sharded = run_on_ray(
        attribution_with_overlap, read_answer, folder, tmp_path / "out", options=RayOptions(batch_size=3)
    )
    totals = AttributionTotals("skip")
    for path in sorted(folder.iterdir()):
        produced, part = run_pipeline(attribution_with_overlap(), list(AnswerRecords(path)), batch_size=3)
        totals.merge(part)
        written = [json.loads(line) for line in (tmp_path / "out" / path.name).read_text().splitlines()]
        assert written == [row.model_dump(mode="json") for row in produced.results]
    assert isinstance(sharded.totals, AttributionTotals)
    assert sharded.totals.summary() == totals.summary() and len(totals.summary()) == 2


def test_knowledge_scores_of_shards_are_the_local_ones(tmp_path):
    lines = (EXAMPLES / "knowledge" / "records.jsonl").read_text().splitlines(keepends=True)
    folder = tmp_path / "records"
    folder.mkdir()
    (folder / "a.jsonl").write_text("".join(lines[:3]))
    (folder / "b.jsonl").write_text("".join(lines[3:]))
    build = KnowledgeWithOverlap(EXAMPLES / "knowledge" / "corpus.jsonl")
    sharded = run_on_ray(
        build, KNOWLEDGE.parse, folder, tmp_path / "out", options=RayOptions(batch_size=2)
    )
    records = [parse_knowledge_record(json.loads(line), path=EXAMPLE, line=1) for line in lines]
    produced, totals = run_pipeline(build(), records, batch_size=2)
    assert [row.model_dump() for row in sharded.produced.results] == [
        row.model_dump() for row in produced.results
    ]
    assert isinstance(sharded.totals, KnowledgeTotals) and isinstance(totals, KnowledgeTotals)
    assert sharded.totals.summary() == totals.summary()
    assert totals.summary().means["factual_consistent"].records == len(lines)


POISON_OPTIONS = {"lines_per_unit": 3, "batch_size": 2, "max_crashes": 2}
"""Work units and batches small enough that the poison record's unit has records before and after it."""


def poisoned_rows(output: Path, poison: str, exits: Path) -> tuple[list[dict], dict]:
    """The rows of the one results shard in ``output`` and the poison record's row; each record is written once,
    and the poison record's worker died in a batch, then ``max_crashes`` times alone."""
    (shard,) = output.glob("*.jsonl")
    rows = [json.loads(line) for line in shard.read_text().splitlines()]
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids))
    assert 3 <= len(list(exits.iterdir())) <= 4
    return rows, next(row for row in rows if row["id"] == poison)


def assert_resumed_without_running(build, parse, data: Path, output: Path, exits: Path, options: dict) -> None:
    """A rerun of the poisoned run resumes every row, the failed one included: nothing runs (no worker dies
    again) and the results shard is unchanged."""
    (shard,) = output.glob("*.jsonl")
    written, died = shard.read_text(), len(list(exits.iterdir()))
    again = run_on_ray(build, parse, data, output, options=RayOptions(**options))
    assert (again.produced.new, again.produced.resumed, again.crashed) == (0, len(written.splitlines()), 0)
    assert shard.read_text() == written and len(list(exits.iterdir())) == died
    assert again.totals.failed == 1


def test_an_answer_that_kills_its_worker_every_time_is_written_once_as_failed(tmp_path):
    lines = (EXAMPLES / "attribute" / "answers.jsonl").read_text().splitlines()
    for line in (EXAMPLES / "attribute" / "answers_removed1.jsonl").read_text().splitlines():
        answer = json.loads(line)
        lines.append(json.dumps({**answer, "id": answer["id"] + "-removed1"}))
    data = tmp_path / "answers.jsonl"
    data.write_text("\n".join(lines) + "\n")
    exits = tmp_path / "exits"
    exits.mkdir()
    poison = "curie-2-removed1"
    build = KillsItsWorkerOn(poison, exits, attribution_with_overlap)
    options = {**POISON_OPTIONS, "concurrency": 2}
    sharded = run_on_ray(build, read_answer, data, tmp_path / "out", options=RayOptions(**options))
    rows, failed = poisoned_rows(tmp_path / "out", poison, exits)
    assert [row["id"] for row in rows] == [answer.id for answer in AnswerRecords(data)]
    row = AttributionScore.model_validate(failed)
    assert row.error is not None and f"record {poison!r} ended its worker process 2 times" in row.error
    assert score_failed(row) and row.removed == 1 and row.citations == []
    others = [answer for answer in AnswerRecords(data) if answer.id != poison]
    produced, totals = run_pipeline(attribution_with_overlap(), others, batch_size=2)
    assert [row for row in rows if row["id"] != poison] == [r.model_dump(mode="json") for r in produced.results]
    run = ATTRIBUTE.result(sharded.produced, sharded.totals, sharded.facts())
    assert (run.new_records, run.failed, sharded.crashed, sharded.problems) == (len(lines), 1, 1, [])
    assert run.summary == totals.summary() and totals.failed == 0
    assert_resumed_without_running(build, read_answer, data, tmp_path / "out", exits, options)


def test_a_knowledge_record_that_kills_its_worker_every_time_is_written_once_as_failed(tmp_path):
    data = tmp_path / "records.jsonl"
    shutil.copy(EXAMPLES / "knowledge" / "records.jsonl", data)
    exits = tmp_path / "exits"
    exits.mkdir()
    poison = "nq-4"
    build = KillsItsWorkerOn(poison, exits, KnowledgeWithOverlap(EXAMPLES / "knowledge" / "corpus.jsonl"))
    parse = KNOWLEDGE.parse
    sharded = run_on_ray(build, parse, data, tmp_path / "out", options=RayOptions(**POISON_OPTIONS))
    rows, failed = poisoned_rows(tmp_path / "out", poison, exits)
    records = [parse_knowledge_record(json.loads(line), path=data, line=1) for line in data.read_text().splitlines()]
    assert [row["id"] for row in rows] == [record.id for record in records]
    row = KnowledgeScores.model_validate(failed)
    assert knowledge_failed(row) and row.factuality is None and row.validity is None
    assert set(row.not_computed) == {*METRICS, "q_know"}
    assert all(f"record {poison!r} ended its worker process 2 times" in why for why in row.not_computed.values())
    produced, totals = run_pipeline(build.build(), [r for r in records if r.id != poison], batch_size=2)
    assert [row for row in rows if row["id"] != poison] == [r.model_dump(mode="json") for r in produced.results]
    run = KNOWLEDGE.result(sharded.produced, sharded.totals, sharded.facts())
    assert (run.new_records, run.failed, sharded.crashed, sharded.problems) == (len(records), 1, 1, [])
    assert run.summary.means == totals.summary().means and totals.failed == 0
    assert_resumed_without_running(build, parse, data, tmp_path / "out", exits, POISON_OPTIONS)


class OverlapPresence:
    """A fact is present when most of its content words are in one of the sources."""

    name = "overlap-test"
    threshold = 0.6

    def score(self, facts: Sequence[str], sources: Sequence[Sequence[str]]) -> np.ndarray:
        return np.array(
            [max((lexical_relevance(f, s) for s in given), default=0.0) for f, given in zip(facts, sources)]
        )


def grounding_with_overlap() -> Pipeline[GroundExample, GroundResult, GroundTotals]:
    return ground_pipeline(SentenceClaims(), OverlapPresence(), factors=("has_answer",))


def test_grounding_scores_of_shards_are_the_local_ones(tmp_path):
    dataset = load_dataset(EXAMPLES / "ground" / "original.json", EXAMPLES / "ground" / "metadata.json")
    attach_responses(dataset, EXAMPLES / "ground" / "responses.jsonl")
    examples = [e for e in dataset.examples if e.response is not None]
    folder = tmp_path / "examples"
    folder.mkdir()
    for number, example in enumerate(examples):
        with (folder / f"part-{number % 2}.jsonl").open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(dataclasses.asdict(example)) + "\n")
    sharded = run_on_ray(
        grounding_with_overlap, GROUND.parse, folder, tmp_path / "out", options=RayOptions(batch_size=2)
    )
    ordered = [examples[n] for n in range(0, len(examples), 2)] + [
        examples[n] for n in range(1, len(examples), 2)
    ]
    produced, totals = run_pipeline(grounding_with_overlap(), ordered, batch_size=2)
    assert [row.model_dump() for row in sharded.produced.results] == [
        row.model_dump() for row in produced.results
    ]
    assert isinstance(sharded.totals, GroundTotals) and isinstance(totals, GroundTotals)
    assert sharded.totals.summary() == totals.summary()
    assert totals.summary().records == len(examples) > 1


def test_knowledge_score_through_the_cli_on_ray_prints_the_local_figures(app, fake_llm, tmp_path):
    from typer.testing import CliRunner

    fake_llm.responder = lambda request: "Entailment"
    runner = CliRunner()
    common = [
        "knowledge",
        "score",
        str(EXAMPLES / "knowledge" / "records.jsonl"),
        "--corpus",
        str(EXAMPLES / "knowledge" / "corpus.jsonl"),
        "--checker",
        "llm",
        "--llm-base-url",
        fake_llm.base_url,
        "--llm-model",
        "fake",
        "--llm-cache",
        "off",
        "--relevance-model",
        "none",
        "--coherence-model",
        "none",
        "--concurrency",
        "1",
    ]
    local = runner.invoke(app, [*common, "-o", str(tmp_path / "local.jsonl")], env={"COLUMNS": "200"})
    on_ray = runner.invoke(
        app, [*common, "--engine", "ray", "-o", str(tmp_path / "ray")], env={"COLUMNS": "200"}
    )
    assert local.exit_code == 0 and on_ray.exit_code == 0, (local.output, on_ray.output)

    def figures(output: str) -> list[str]:
        return [line for line in output.splitlines() if "mean of" in line or "new / resumed" in line]

    def usage(output: str) -> list[str]:
        return [" ".join(line.split()) for line in output.splitlines() if line.startswith("│ LLM")]

    assert figures(on_ray.output) == figures(local.output) and len(figures(local.output)) > 2
    assert usage(on_ray.output) == usage(local.output) and "│ LLM calls │ 0 │" not in usage(local.output)
    assert any(line.startswith("│ LLM calls │") for line in usage(local.output))
    written = (tmp_path / "ray" / "records.jsonl").read_text()
    assert written == (tmp_path / "local.jsonl").read_text()


def test_llm_usage_is_summed_over_the_actors_and_records_without_references_stop_the_run(app, fake_llm, tmp_path):
    from typer.testing import CliRunner

    from factscope.refchecker.missing_references import MissingReferences

    fake_llm.responder = lambda request: "Entailment"
    data = tmp_path / "records.jsonl"
    records = [{"id": f"c{n}", "response": f"Paris is a city number {n}.", "references": ["Paris is a city."]}
               for n in range(12)]
    data.write_text("".join(json.dumps(record) + "\n" for record in records))
    runner = CliRunner()
    common = ["check", str(data), "--extractor", "sentences", "--checker", "llm", "--llm-check-mode", "single",
              "--no-abstention-detection", "--llm-base-url", fake_llm.base_url, "--llm-model", "fake", "--llm-cache",
              "off", "--batch-size", "3"]
    local = runner.invoke(app, [*common, "-o", str(tmp_path / "local.jsonl")], env={"COLUMNS": "200"})
    on_ray = runner.invoke(app, [*common, "--engine", "ray", "--concurrency", "2", "-o", str(tmp_path / "ray")],
                           env={"COLUMNS": "200"})
    assert local.exit_code == 0 and on_ray.exit_code == 0, (local.output, on_ray.output)

    def usage(output: str) -> list[str]:
        return [" ".join(line.split()) for line in output.splitlines() if line.startswith("│ LLM")]

    assert usage(on_ray.output) == usage(local.output)
    assert "│ LLM calls │ 12 │" in usage(local.output) and "│ LLM prompt tokens │ 0 │" not in usage(local.output)

    with data.open("a") as handle:
        handle.write(json.dumps({"id": "bare", "response": "No references here."}) + "\n")
    bare = runner.invoke(app, [*common, "--engine", "ray", "-o", str(tmp_path / "bare")], env={"COLUMNS": "200"})
    assert isinstance(bare.exception, MissingReferences) and bare.exception.keys == ["bare"]  # the CLI exits 2
    assert not (tmp_path / "bare").exists()
