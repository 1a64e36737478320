"""The four entry points share one shape: input, components, optional results file, optional progress callback,
and a typed run result; none of them draws anything unless a callback is given."""


import pytest

import factscope
from command_line import command_line
from factscope.checkers.base import CheckTask
from factscope.conner.evaluator import KnowledgeEvaluator
from factscope.conner.task import KnowledgeRun
from factscope.core.runs.loop import ProgressEvent
from factscope.core.schema import Label, Verdict
from factscope.grounding.task import GroundRun
from factscope.kalma.task import AttributionRun
from repo_paths import EXAMPLES


class _EntailsWhenContained:
    """Entailment when the claim's text occurs in a reference, else Neutral."""

    name = "contains"

    def check(self, tasks: list[CheckTask]) -> list[Verdict]:
        return [
            Verdict(label=Label.ENTAILMENT if any(t.claim.lower() in r.lower() for r in t.references) else Label.NEUTRAL)
            for t in tasks
        ]


def _stages(events: list[ProgressEvent]) -> dict[str, tuple[int, int | None]]:
    finished = [e for e in events if e.finished]
    return {e.stage: (e.done, e.total) for e in finished}


def test_attribute_on_the_shipped_answers_returns_a_typed_run_and_resumes(tmp_path, capsys):
    output = tmp_path / "scores.jsonl"
    events: list[ProgressEvent] = []
    run = factscope.attribute(EXAMPLES / "attribute" / "answers.jsonl", checker=_EntailsWhenContained(),
                              output=output, progress=events.append)
    assert isinstance(run, AttributionRun) and run.new_records == len(run.results) > 0
    assert _stages(events) == {"scoring answers": (run.new_records, run.new_records)}
    assert run.summary["removed=0"]["citations"] == sum(r.counts.citations for r in run.results)
    again = factscope.attribute(EXAMPLES / "attribute" / "answers.jsonl", checker=_EntailsWhenContained(),
                                output=output)
    assert (again.new_records, again.resumed_records) == (0, run.new_records)
    assert again.summary == run.summary
    assert capsys.readouterr().err == ""


def test_ground_on_the_shipped_example_with_a_custom_presence_model(capsys):
    from factscope.grounding.presence import WindowedPresence

    class Substring(WindowedPresence):
        name = "substring"
        threshold = 0.5

        def __init__(self) -> None:
            super().__init__(window=None)

        def score_pairs(self, pairs):
            import numpy as np

            return np.array([1.0 if fact.rstrip(".").lower() in text.lower() else 0.0 for fact, text in pairs])

    run = factscope.ground(EXAMPLES / "ground" / "original.json", metadata=EXAMPLES / "ground" / "metadata.json",
                           responses=EXAMPLES / "ground" / "responses.jsonl", presence=Substring())
    assert isinstance(run, GroundRun) and run.presence == "substring" and run.summary.records == len(run.results) > 0
    assert all(r.precision is None or 0.0 <= r.precision <= 1.0 for r in run.results)
    assert capsys.readouterr().err == ""


def test_knowledge_with_an_evaluator_of_no_parts_explains_every_missing_metric():
    run = factscope.knowledge(EXAMPLES / "knowledge" / "records.jsonl", evaluator=KnowledgeEvaluator())
    assert isinstance(run, KnowledgeRun) and run.summary.records == len(run.results) > 0
    assert all(figure.mean is None and figure.records == 0 for figure in run.summary.means.values())
    assert "factuality" in run.summary.not_computed and "relevance" in run.summary.not_computed


@pytest.mark.parametrize("entry", [factscope.check, factscope.ground, factscope.attribute, factscope.knowledge])
def test_every_entry_point_takes_output_and_progress(entry):
    import inspect

    parameters = inspect.signature(entry).parameters
    assert {"output", "progress"} <= set(parameters) and entry.__doc__


def test_the_examples_command_copies_the_shipped_examples_and_refuses_to_overwrite(tmp_path):
    from typer.testing import CliRunner

    from factscope.cli import examples

    app = command_line(examples)
    dest = tmp_path / "ex"
    first = CliRunner().invoke(app, ["examples", str(dest)])
    assert first.exit_code == 0, first.output
    assert (dest / "check.jsonl").read_bytes() == (EXAMPLES / "check.jsonl").read_bytes()
    assert (dest / "ground" / "original.json").is_file()
    again = CliRunner().invoke(app, ["examples", str(dest)])
    assert again.exit_code != 0 and "would be overwritten" in " ".join(str(again.exception).split())


def test_knowledge_takes_its_parts_as_ready_objects(capsys):
    class HalfRelevant:
        name = "half"

        def score(self, pairs):
            import numpy as np

            return np.full(len(pairs), 0.5)

    class FullyCoherent:
        name = "full"

        def score(self, paragraphs):
            return [1.0 for _ in paragraphs]

    run = factscope.knowledge(EXAMPLES / "knowledge" / "records.jsonl", corpus=EXAMPLES / "knowledge" / "corpus.jsonl",
                              checker=_EntailsWhenContained(), relevance=HalfRelevant(), coherence=FullyCoherent())
    means = run.summary.means
    assert means["relevance"].mean == 0.5 and means["coherence_paragraph"].mean == 1.0
    assert means["factual_consistent"].records == len(run.results) > 0
    assert capsys.readouterr().err == ""
