"""The grounding task: batching, per-record scores by hand, failures left out, summary by factor, generation."""

import inspect
import json

import numpy as np
import pytest

from factscope import ground
from factscope.core.runs.loop import ProgressEvent
from factscope.core.runs.results import ResultRows
from factscope.core.schema import Claim, Extraction
from factscope.grounding.data import GroundExample
from factscope.grounding.distractors import DistractorSettings
from factscope.grounding.generation import (
    GeneratedResponse,
    GenerationRun,
    ResponseGenerationSettings,
    ResponseWriter,
    response_replies,
)
from factscope.grounding.presence import WindowedPresence
from factscope.grounding.task import GroundResult, summarize
from factscope.llm.client import LLMClient, LLMConfig


class _SentenceFacts:
    """Each sentence is one fact; a response containing 'FAIL' fails to decompose."""

    name = "sentences"

    def extract(self, texts, questions=None):
        out = []
        for text in texts:
            if "FAIL" in text:
                out.append(Extraction(failed=True, raw="garbled", error="not a fact line"))
            else:
                out.append(
                    Extraction(claims=[Claim(text=s.strip() + ".") for s in text.split(".") if s.strip()])
                )
        return out


class _Contains(WindowedPresence):
    """1.0 when the fact (without its full stop) is a substring of the window, else 0.0."""

    name = "contains"
    threshold = 0.5

    def __init__(self):
        super().__init__(window=None)

    def score_pairs(self, pairs):
        return np.array([1.0 if f.rstrip(".") in w else 0.0 for f, w in pairs])


EXAMPLES = [
    GroundExample(
        "a",
        "Q?",
        ["Title: A \n\n Corvel is a town. The Lenne flows through Corvel."],
        ["The Lenne flows through Corvel.", "Corvel is a town."],
        answer="Lenne",
        response="The Lenne flows through Corvel. The Lenne is long.",
        metadata={"pop": "low"},
    ),
    GroundExample(
        "b",
        "Q?",
        ["Owls hunt at dusk."],
        ["Owls hunt at dusk."],
        answer="dusk|evening",
        response="Owls hunt at dusk.",
        metadata={"pop": "high"},
    ),
    GroundExample("c", "Q?", ["X."], ["X is x."], answer="x", response="FAIL", metadata={"pop": "high"}),
]


def test_ground_scores_each_record_by_hand_and_leaves_failures_out():
    events: list[ProgressEvent] = []
    run = ground(EXAMPLES, extractor=_SentenceFacts(), presence=_Contains(), batch_size=2, progress=events.append)
    results, summary = run.results, run.summary
    assert [(e.done, e.total, e.finished) for e in events] == [(0, 3, False), (2, 3, False), (3, 3, False), (3, 3, True)]
    a, b, c = results
    # a: response facts "The Lenne flows through Corvel." (in context) and "The Lenne is long." (not) -> P 1/2;
    # gold "The Lenne flows through Corvel." in response, "Corvel is a town." not -> R 1/2; F1 0.5
    assert (a.precision, a.recall, a.f1) == (0.5, 0.5, 0.5)
    assert [j.present for j in a.response_facts] == [True, False]
    assert a.answer_correct is True
    assert (b.precision, b.recall, b.f1) == (1.0, 1.0, 1.0)
    assert c.failed and c.raw == "garbled" and c.precision is None
    # macro over the 2 scored records: F1 (0.5 + 1) / 2 = 0.75; answer accuracy 2/2
    assert summary.overall.f1 == pytest.approx(0.75) and summary.failed == 1 and summary.records == 3
    assert summary.overall.answer_accuracy == 1.0
    pop = summary.by_factor[0]
    assert pop.factor == "pop" and pop.groups["high"].records == 1 and pop.groups["low"].f1 == 0.5


def test_results_round_trip_through_json_for_resumed_summaries():
    run = ground(EXAMPLES[:2], extractor=_SentenceFacts(), presence=_Contains())
    again = summarize([GroundResult.model_validate(r.model_dump(mode="json")) for r in run.results])
    assert again.overall == run.summary.overall


class _Interrupted(_SentenceFacts):
    """Stops the run (as a kill would) on the batch after its first, once."""

    def __init__(self):
        self._batches = 0

    def extract(self, texts, questions=None):
        self._batches += 1
        if self._batches == 2:
            raise KeyboardInterrupt
        return super().extract(texts, questions)


def test_an_interrupted_run_resumes_and_summarises_the_whole_file(tmp_path):
    output = tmp_path / "ground.jsonl"
    extractor = _Interrupted()
    with pytest.raises(KeyboardInterrupt):
        ground(EXAMPLES, extractor=extractor, presence=_Contains(), output=output, batch_size=2)
    assert len(output.read_text(encoding="utf-8").splitlines()) == 2
    again = ground(EXAMPLES, extractor=extractor, presence=_Contains(), output=output, batch_size=2)
    assert (again.new_records, again.resumed_records) == (1, 2)
    assert [r.id for r in again.results] == ["a", "b", "c"]
    assert len(output.read_text(encoding="utf-8").splitlines()) == 3
    assert again.summary.records == 3 and again.summary.failed == 1


def test_a_rerun_with_other_input_or_settings_is_refused_until_overwrite(tmp_path):
    from factscope.core.files.manifest import ResultsMismatch

    output = tmp_path / "ground.jsonl"
    ground(EXAMPLES[:2], extractor=_SentenceFacts(), presence=_Contains(), output=output)
    with pytest.raises(ResultsMismatch, match="input 'records'"):
        ground(EXAMPLES, extractor=_SentenceFacts(), presence=_Contains(), output=output)
    with pytest.raises(ResultsMismatch, match="setting 'no_response_facts': \"zero\" -> \"skip\""):
        ground(EXAMPLES[:2], extractor=_SentenceFacts(), presence=_Contains(), output=output, no_response_facts="skip")
    stricter = _Contains()
    stricter.threshold = 0.9
    with pytest.raises(ResultsMismatch, match="setting 'presence.threshold'"):
        ground(EXAMPLES[:2], extractor=_SentenceFacts(), presence=stricter, output=output)
    fresh = ground(EXAMPLES, extractor=_SentenceFacts(), presence=stricter, output=output, overwrite=True)
    assert (fresh.new_records, fresh.resumed_records) == (3, 0)
    assert len(output.read_text(encoding="utf-8").splitlines()) == 3


def test_examples_without_response_are_refused():
    from factscope.core.errors import InputError

    with pytest.raises(InputError, match="no response"):
        ground([GroundExample("z", "Q?", ["c"], ["f"])], extractor=_SentenceFacts(), presence=_Contains())


def test_generate_builds_the_prompt_from_contexts_and_question(fake_llm):
    fake_llm.script(["The Lenne."])
    client = LLMClient(LLMConfig(base_url=fake_llm.base_url, model="gen", cache_path=None, max_retries=0))
    [reply] = response_replies(EXAMPLES[:1], client, max_tokens=64)
    assert reply.text == "The Lenne."
    request = fake_llm.requests[0]["json"]
    prompt = request["messages"][-1]["content"]
    assert "Corvel is a town. The Lenne flows through Corvel." in prompt and prompt.rstrip().endswith(
        "Answer:"
    )
    assert "Question: Q?" in prompt and request["max_tokens"] == 64


def test_a_generation_run_gives_its_summary_rows(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text(GeneratedResponse(id="a", question="Q?", response="R.", model="gen").model_dump_json() + "\n")
    run = GenerationRun(
        results=ResultRows(GeneratedResponse, path=out), new_records=1, resumed_records=2, seconds=0.0, failed=3,
        failed_calls=[], skipped=4,
    )
    assert run.summary_rows() == [
        ("responses written (new)", 1),
        ("skipped input records", 4),
        ("already there (resumed)", 2),
        ("failed calls (rerun to retry)", 3),
        ("distractors", "none (gold only)"),
        ("responses", str(out)),
    ]
    assert (run.what_failed, run.failures_kept) == ("generation calls", False)


def test_a_dataset_file_gets_its_responses_with_distractors_and_notes(fake_llm, tmp_path):
    from fake_llm import Fail
    from kept_notes import KeptNotes

    data, metadata, corpus = tmp_path / "data.jsonl", tmp_path / "meta.json", tmp_path / "corpus.jsonl"
    data.write_text("".join(json.dumps({"id": f"g{i}", "question": f"Who founded town {i}?",
                                        "contexts": [f"Town {i} was founded by Ada."], "gold_facts": ["Ada."]}) + "\n"
                            for i in range(3)) + "{broken\n")
    metadata.write_text(json.dumps({"g0": {}, "g1": {}}))
    corpus.write_text(json.dumps({"id": "owls", "title": "Owls", "text": "Owls hunt at dusk."}) + "\n")
    fake_llm.script([Fail(500)])
    fake_llm.responder = lambda request: "Ada founded it."
    client = LLMClient(LLMConfig(base_url=fake_llm.base_url, model="gen", cache_path=None, max_retries=0,
                                 concurrency=1))
    told, out = KeptNotes(), tmp_path / "responses.jsonl"
    distractors = DistractorSettings(retriever="bm25", budget=50)
    settings = ResponseGenerationSettings(max_tokens=8, corpus=corpus, distractors=distractors)
    run = ResponseWriter(metadata).write(settings, data, llm=client, output=out, notes=told)
    # the broken line is skipped, g2 has no metadata, and the first call (g0's) fails and is not written
    assert [problem.line for problem in told.skipped_records] == [4]
    assert told.lines[1:] == [f"warning {metadata}: no metadata for 1 question id(s): g2",
                              "warning call failed for g0: " + run.failed_calls[0].error]
    assert (run.skipped, run.failed, run.new_records, run.distractors) == (1, 1, 2, "bm25, 50 tokens, gold at end")
    assert [row.id for row in run.results] == ["g1", "g2"]
    assert run.results[0].contexts == ["Title: Owls \n\n Owls hunt at dusk.", "Town 1 was founded by Ada."]
    assert {request["json"]["max_tokens"] for request in fake_llm.requests} == {8}


def test_generation_defaults_are_the_settings_defaults():
    settings = ResponseGenerationSettings()
    assert inspect.signature(response_replies).parameters["max_tokens"].default == settings.max_tokens == 512
    assert ResponseWriter().batch_of(settings) == settings.batch_size == 32


def test_an_empty_response_scores_zero_by_default_and_can_be_skipped():
    empty = GroundExample("e", "Q?", ["Owls hunt at dusk."], ["Owls hunt at dusk."], response="")
    run = ground([empty], extractor=_SentenceFacts(), presence=_Contains())
    [result] = run.results
    # no response facts -> precision 0 ("zero" policy); the gold fact meets no text -> absent, recall 0
    assert (result.precision, result.recall, result.f1) == (0.0, 0.0, 0.0)
    assert result.gold_facts[0].present is False and result.gold_facts[0].score is None
    run = ground([empty], extractor=_SentenceFacts(), presence=_Contains(), no_response_facts="skip")
    [skipped] = run.results
    assert skipped.precision is None and skipped.f1 is None and run.summary.overall.f1_n == 0
