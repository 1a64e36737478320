"""The system definitions at the library level: CHECK.run and SystemBuild on ready components, ready and
mergeable, the server's ServedSystem, GROUND's file reader (ScoredExamples), supplied facts and the one pass
over a Ray run's shards (readable_items)."""

import inspect
import json
import pickle

import pytest

from factscope.claims.registry import make_extractor
from factscope.conner.spec import KnowledgeSpec
from factscope.conner.system import KNOWLEDGE
from factscope.core.errors import InputError
from factscope.engines.parts import SystemBuild
from factscope.engines.shards import readable_items
from factscope.engines.system import RunOptions, System
from factscope.grounding.data import GroundExample, ScoredExamples
from factscope.grounding.spec import GroundSpec
from factscope.grounding.supplied_facts import SuppliedFactExtractor, supply_facts
from factscope.grounding.system import GROUND, read_scored
from factscope.refchecker.spec import CheckSpec
from factscope.refchecker.system import CHECK
from factscope.serve.systems import ServedSystem
from fake_scorers import Entails
from kept_notes import KeptNotes

RECORDS = [
    {"id": "a", "response": "Paris is in France. It is large.", "references": ["Paris is in France."]},
    {"id": "b", "response": "Rome is in Italy.", "references": ["Rome is in Italy."]},
]


def _spec() -> CheckSpec:
    return CheckSpec(extractor=make_extractor("sentences"), checker=Entails())


def test_check_run_on_ready_components_writes_and_resumes(tmp_path):
    records = [CHECK.parse(item, path=tmp_path / "in.jsonl", line=n) for n, item in enumerate(RECORDS, start=1)]
    output = tmp_path / "out.jsonl"
    run = CHECK.run(_spec(), records, output=output)
    assert (run.new_records, run.resumed_records) == (2, 0)
    assert run.claims == sum(len(row.claims) for row in run.results) > 0
    assert (run.extractor, run.checker) == ("sentences", "entails")
    again = CHECK.run(_spec(), records, output=output)
    assert (again.new_records, again.resumed_records) == (0, 2)


def test_run_takes_each_keyword_argument_of_execute_with_its_type():
    execute = inspect.signature(System.execute).parameters
    keywords = {name: str(p.annotation) for name, p in execute.items() if p.kind is p.KEYWORD_ONLY}
    assert keywords == {name: hint.__forward_arg__ for name, hint in RunOptions.__annotations__.items()}


def test_a_system_reads_its_row_totals_and_run_types_from_its_base():
    from factscope.grounding.task import GroundResult, GroundRun, GroundTotals

    assert (GROUND.row_type, GROUND.totals_type, GROUND.run_type) == (GroundResult, GroundTotals, GroundRun)
    assert CHECK.row_type.__name__ == "CheckResult" and KNOWLEDGE.run_type.__name__ == "KnowledgeRun"


def test_ready_builds_the_named_components_and_keeps_ready_ones():
    checker = Entails()
    ready = CHECK.ready(CheckSpec(extractor="sentences", checker=checker), None)
    assert not isinstance(ready.extractor, str) and ready.extractor.name == "sentences"
    assert ready.checker is checker and CHECK.ready(ready, None).extractor is ready.extractor


def test_system_build_is_picklable_and_builds_the_pipeline():
    build = pickle.loads(pickle.dumps(SystemBuild(CHECK, CheckSpec(extractor="sentences", checker=Entails()))))
    pipeline = build()
    assert pipeline.names() == {"extractor": "sentences", "checker": "entails"}
    assert [row.id for row in pipeline.process([CHECK.parse(RECORDS[1], path=None, line=1)])] == ["b"]


def test_knowledge_with_a_causal_lm_is_not_mergeable():
    assert KNOWLEDGE.mergeable(KnowledgeSpec()) and not KNOWLEDGE.mergeable(KnowledgeSpec(lm="gpt2"))
    assert CHECK.mergeable(CheckSpec())


def test_the_server_runs_a_definition_per_request_and_per_file(tmp_path):
    system = ServedSystem(CHECK, _spec())
    items = [system.parse(item, index) for index, item in enumerate(RECORDS)]
    rows = system.process(items)
    answer = system.assemble(items, rows, seconds=1.0)
    assert [row.id for row in answer.results] == ["a", "b"] and answer.rates.responses == 2
    with pytest.raises(InputError, match="expected an object"):
        system.parse(["not", "a record"], 0)
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps(item) for item in RECORDS) + "\n{broken\n", encoding="utf-8")
    told = []
    run = system.run_file(path, tmp_path / "out.jsonl", batch_size=1, progress=lambda event: None,
                          loaded=lambda count, problems: told.append((count, len(problems))))
    assert told == [(2, 1)] and run.new_records == 2


def _ground_file(tmp_path):
    path = tmp_path / "ground.jsonl"
    rows = [
        {"id": "q1", "question": "Where?", "contexts": ["It is in Paris."], "gold_facts": ["It is in Paris."],
         "response": "It is in Paris."},
        {"id": "q2", "question": "When?", "contexts": ["In 1900."], "gold_facts": ["In 1900."]},
    ]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    return path


def test_scored_examples_keep_those_with_a_response_and_read_scored_locates_the_others(tmp_path):
    path = _ground_file(tmp_path)
    examples = ScoredExamples(path)
    assert [e.id for e in examples] == ["q1"] and examples.without_response == ["q2"] and not examples.problems
    read = read_scored(path)
    assert len(read) == 1 and [problem.field for problem in read.problems] == ["response"]
    assert "q2" in str(read.problems[0])


def test_readable_items_pass_over_bad_records_and_those_the_parser_refuses(tmp_path):
    path = _ground_file(tmp_path)
    path.write_text(path.read_text(encoding="utf-8") + "{broken\n", encoding="utf-8")
    assert [example.id for example in readable_items(path, GROUND.parse)] == ["q1"]


def test_supplied_facts_serve_the_file_and_count_what_they_cover(tmp_path):
    facts = tmp_path / "facts.jsonl"
    facts.write_text(
        json.dumps({"id": "q1", "atomic_facts": ["It is in Paris."]}) + "\n"
        + json.dumps({"id": "zz", "atomic_facts": ["Elsewhere."]}) + "\n",
        encoding="utf-8",
    )
    examples = [
        GroundExample(id="q1", question="Where?", contexts=["c"], gold_facts=[], response="It is in Paris, I think."),
        GroundExample(id="q2", question="When?", contexts=["c"], gold_facts=[], response="It opened in 1900. It closed in 1958."),
    ]
    supplied = supply_facts(facts, examples, human=False, paper_rules=False)
    assert (supplied.supplied, supplied.extracted, supplied.unknown) == (1, 1, ["zz"])
    assert supplied.settings["atomic_facts"]["paper_fact_rules"] is False
    served = SuppliedFactExtractor(supplied.facts, make_extractor("sentences")).extract(["It is in Paris, I think.", "It opened in 1900. It closed in 1958."], ["Where?", "When?"])
    assert [c.text for c in served[0].claims] == ["It is in Paris."]
    assert [c.text for c in served[1].claims] == ["It opened in 1900.", "It closed in 1958."]


BARE = [*RECORDS, {"id": "bare", "response": "Oslo is in Norway."}]


def test_records_without_references_stop_an_api_run_unless_allowed(tmp_path):
    import factscope
    from factscope.refchecker.missing_references import MissingReferences, MissingReferencesWarning

    with pytest.raises(MissingReferences, match=r"1 record\(s\) have no references \(bare\)") as stopped:
        factscope.check(BARE, extractor="sentences", checker=Entails(), output=tmp_path / "a.jsonl")
    assert stopped.value.keys == ["bare"] and "allow_missing_references" in str(stopped.value)
    assert not (tmp_path / "a.jsonl").exists()
    with pytest.warns(MissingReferencesWarning, match="bare"):
        run = factscope.check(BARE, extractor="sentences", checker=Entails(), allow_missing_references=True)
    assert run.new_records == 3


def test_records_without_references_run_when_passages_are_retrieved_for_them(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "d1", "text": "Oslo is in Norway."}) + "\n", encoding="utf-8")
    spec = CheckSpec(extractor=make_extractor("sentences"), checker=Entails(), retriever="bm25", corpus=corpus)
    run = CHECK.run(spec, BARE)
    assert {row.id: row.retrieved for row in run.results}["bare"] is True


def test_the_server_refuses_records_without_references_as_the_api_does(tmp_path):
    from fastapi.testclient import TestClient

    from factscope.serve.app import create_app
    from factscope.serve.config import ServeConfig

    served = {"check": ServedSystem(CHECK, _spec())}
    with TestClient(create_app(ServeConfig(data_dir=tmp_path), systems=served)) as client:
        refused = client.post("/v1/check", json={"records": BARE})
        accepted = client.post("/v1/check", json={"records": RECORDS})
    assert refused.status_code == 422 and "1 record(s) have no references (bare)" in refused.text
    assert accepted.status_code == 200 and len(accepted.json()["results"]) == 2


def test_a_file_with_no_usable_record_stops_a_run_after_its_skipped_records_are_told(tmp_path):
    empty, bad = tmp_path / "empty.json", tmp_path / "bad.jsonl"
    empty.write_text("[]", encoding="utf-8")
    bad.write_text('{"id": "x"}\n{broken\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"empty\.json: no usable records$"):
        CHECK.run(_spec(), empty, output=tmp_path / "a.jsonl")
    notes = KeptNotes()
    with pytest.raises(InputError, match=r"bad\.jsonl: no usable records; see the messages above"):
        CHECK.run(_spec(), bad, output=tmp_path / "b.jsonl", notes=notes)
    assert [problem.line for problem in notes.skipped_records] == [1, 2]
    assert not (tmp_path / "a.jsonl").exists() and not (tmp_path / "b.jsonl").exists()
    assert CHECK.run(_spec(), [], output=tmp_path / "c.jsonl").new_records == 0


def test_a_grounding_file_without_responses_says_how_to_give_them(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"id": "q", "question": "Q?", "contexts": ["c"], "gold_facts": ["c"]}) + "\n",
                    encoding="utf-8")
    with pytest.raises(InputError, match=r"no record to score; see the messages above: a record needs a response "
                                         r"\(give `responses`"):
        GROUND.run(GroundSpec(extractor=make_extractor("sentences")), data)


def test_a_run_on_a_results_file_another_run_writes_is_refused_before_any_model_is_built(tmp_path):
    import threading

    from factscope.core.files.results_lock import ResultsLocked, results_lock

    data, output = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    data.write_text("".join(json.dumps(record) + "\n" for record in RECORDS), encoding="utf-8")
    taken, done = threading.Event(), threading.Event()

    def hold() -> None:
        with results_lock(output):
            taken.set()
            done.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        taken.wait(30)
        unbuildable = CheckSpec(extractor="sentences", checker=f"path:{tmp_path / 'no-such-checker'}")
        with pytest.raises(ResultsLocked, match="another thread of this process"):
            CHECK.run(unbuildable, data, output=output)
    finally:
        done.set()
        holder.join()
    assert not output.exists()
