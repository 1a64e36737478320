"""A results file records what produced it; a rerun resumes only into a file made by the same input and settings."""

import json

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from factscope.core.errors import InputError
from factscope.core.files.manifest import (
    ResultsMismatch,
    RunManifest,
    describe,
    fingerprint_file,
    fingerprint_items,
    manifest_path,
    prepare_results,
)
from factscope.core.runs.loop import run_batches, run_manifest
from repo_paths import EXAMPLES


def _manifest(**settings):
    return RunManifest(system="check", factscope_version="1", inputs={"records": fingerprint_items([1, 2])},
                       settings=settings)


def test_a_new_file_gets_its_manifest_and_the_same_run_resumes(tmp_path):
    output = tmp_path / "out" / "r.jsonl"
    prepare_results(output, _manifest(threshold=0.5))
    assert RunManifest.model_validate_json(manifest_path(output).read_text()) == _manifest(threshold=0.5)
    output.write_text('{"id": "a"}\n')
    prepare_results(output, _manifest(threshold=0.5))


class Refused(Exception):
    """What a run's first batch raises: a key refused, say."""


def _stopping(after: int):
    def process(batch):
        if after <= 0:
            raise Refused("the service refused the key")
        return [Row(id=item) for item in batch]

    return process


class Row(BaseModel):
    id: str


def test_a_run_that_stops_before_its_first_row_leaves_no_results_file(tmp_path):
    output = tmp_path / "new.jsonl"
    manifest = run_manifest("check", ["a", "b"], {}, {})
    with pytest.raises(Refused):
        run_batches(["a", "b"], _stopping(0), key=str, row_type=Row, output=output, manifest=manifest)
    assert not output.exists() and not manifest_path(output).exists()
    run_batches(["a"], _stopping(1), key=str, row_type=Row, output=output, manifest=run_manifest("check", ["a"], {}, {}))
    with pytest.raises(Refused):
        run_batches(["a", "b"], _stopping(0), key=str, row_type=Row, output=output,
                    manifest=run_manifest("check", ["a"], {}, {}))
    assert output.read_text() == '{"id": "a"}\n' and manifest_path(output).exists()
    kept = tmp_path / "kept.jsonl"
    kept.touch()
    with pytest.raises(Refused):
        run_batches(["a"], _stopping(0), key=str, row_type=Row, output=kept, manifest=manifest)
    assert kept.exists()


def test_a_different_run_is_refused_with_what_differs_and_what_to_do(tmp_path):
    output = tmp_path / "r.jsonl"
    prepare_results(output, _manifest(threshold=0.5, model="m"))
    output.write_text('{"id": "a"}\n')
    other = _manifest(threshold=0.7, model="m")
    other.inputs["records"] = fingerprint_items([1, 2, 3], source="more.jsonl")
    with pytest.raises(ResultsMismatch) as caught:
        prepare_results(output, other)
    message = str(caught.value)
    assert "setting 'threshold': 0.5 -> 0.7" in message and "input 'records': more.jsonl" in message
    assert "setting 'model'" not in message
    assert "`overwrite=True`" in message and "`output`" in message
    prepare_results(output, other, overwrite=True)
    assert not output.exists() and RunManifest.model_validate_json(manifest_path(output).read_text()) == other


def test_a_component_setting_is_named_field_by_field(tmp_path):
    output = tmp_path / "r.jsonl"
    checker = {"type": "SegmentedChecker", "max_tokens": 200, "scorer": {"type": "EmbeddedScorer", "directory": "c"}}
    prepare_results(output, _manifest(checker=checker))
    output.write_text('{"id": "a"}\n')
    retrained = {**checker, "scorer": {**checker["scorer"], "contents": "sha256:0123"}}
    with pytest.raises(ResultsMismatch) as caught:
        prepare_results(output, _manifest(checker=retrained))
    message = str(caught.value)
    assert "setting 'checker.scorer.contents': not recorded in the file, now \"sha256:0123\"" in message
    assert "max_tokens" not in message
    another = {"type": "LLMChecker", "model": "m"}
    with pytest.raises(ResultsMismatch) as caught:
        prepare_results(output, _manifest(checker=another))
    assert "setting 'checker': {\"type\": \"SegmentedChecker\"" in str(caught.value)


def test_a_foreign_file_and_a_folder_are_refused(tmp_path):
    foreign = tmp_path / "notes.jsonl"
    foreign.write_text("my own notes\n")
    with pytest.raises(ResultsMismatch, match="not a factscope results file"):
        prepare_results(foreign, _manifest())
    assert foreign.read_text() == "my own notes\n"
    with pytest.raises(InputError, match="is a folder"):
        prepare_results(tmp_path, _manifest())


def test_fingerprints_follow_content_not_names(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("same")
    b.write_text("same")
    assert fingerprint_file(a).sha256 == fingerprint_file(b).sha256 and fingerprint_file(a).size == 4
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "x.txt").write_text("one")
    before = fingerprint_file(folder).sha256
    (folder / "x.txt").write_text("two")
    assert fingerprint_file(folder).sha256 != before
    assert fingerprint_items([{"b": 1, "a": 2}]).sha256 == fingerprint_items([{"a": 2, "b": 1}]).sha256


def test_descriptions_keep_result_settings_and_drop_speed_and_secrets():
    class Client:
        def result_settings(self):
            return {"model": "m", "temperature": 0.0}

    class Component:
        def __init__(self):
            self.threshold = 0.4
            self.batch_size = 64
            self.api_key = "secret"
            self.client = Client()
            self._cache = {}

    assert describe(Component()) == {
        "type": "Component",
        "threshold": 0.4,
        "client": {"type": "Client", "model": "m", "temperature": 0.0},
    }



COMMANDS = {
    "check": (["check", str(EXAMPLES / "check.jsonl"), "--checker", "similarity"], ["--similarity-threshold", "0.5"]),
    "ground": (
        ["ground", str(EXAMPLES / "ground" / "original.json"), "--responses",
         str(EXAMPLES / "ground" / "responses.jsonl"), "--window", "0"],
        ["--threshold", "0.9"],
    ),
    "attribute score": (
        ["attribute", "score", str(EXAMPLES / "attribute" / "answers.jsonl"), "--checker", "similarity"],
        ["--hypothesis", "{name} {relation} {value}"],
    ),
    "knowledge score": (
        ["knowledge", "score", str(EXAMPLES / "knowledge" / "records.jsonl"), "--checker", "none",
         "--relevance-model", "none", "--coherence-model", "none", "--lm", "none"],
        ["--weights", "0.4,0.2,0.2,0.2"],
    ),
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_scoring_command_refuses_to_resume_under_other_settings(app, tmp_path, name):
    base, changed = COMMANDS[name]
    output = tmp_path / "results.jsonl"
    runner = CliRunner()
    first = runner.invoke(app, [*base, "-o", str(output)], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    rows = output.read_text(encoding="utf-8")
    assert rows and manifest_path(output).is_file()
    again = runner.invoke(app, [*base, "-o", str(output)], catch_exceptions=False)
    assert again.exit_code == 0 and output.read_text(encoding="utf-8") == rows
    refused = runner.invoke(app, [*base, *changed, "-o", str(output)])
    assert isinstance(refused.exception, ResultsMismatch), refused.output
    assert "setting '" in str(refused.exception) and output.read_text(encoding="utf-8") == rows
    fresh = runner.invoke(app, [*base, *changed, "-o", str(output), "--overwrite"], catch_exceptions=False)
    assert fresh.exit_code == 0, fresh.output
    recorded = json.loads(manifest_path(output).read_text(encoding="utf-8"))
    assert recorded["factscope_version"] and recorded["inputs"]["records"]["sha256"]


GENERATION = {
    "attribute generate": (
        ["attribute", "generate", str(EXAMPLES / "attribute" / "questions.jsonl"), "--graph",
         str(EXAMPLES / "attribute" / "graph.jsonl")],
        ["--remove", "1"],
        "Ada's father was Lord Byron [Q7259, father: Lord Byron].",
    ),
    "attribute make-questions": (
        ["attribute", "make-questions", str(EXAMPLES / "attribute" / "seeds.jsonl"), "--graph",
         str(EXAMPLES / "attribute" / "graph.jsonl"), "--rounds", "2"],
        ["--rounds", "3"],
        "Generated Answer: Text [qid: Q7259, father: Lord Byron].\nGenerated Question: Q?",
    ),
    "knowledge generate": (
        ["knowledge", "generate", str(EXAMPLES / "knowledge" / "records.jsonl")],
        ["--seed", "1"],
        "Some knowledge about the query.",
    ),
}


@pytest.mark.parametrize("name", sorted(GENERATION))
def test_every_generation_command_resumes_without_calls_and_refuses_other_settings(app, tmp_path, fake_llm, name):
    base, changed, reply = GENERATION[name]
    fake_llm.responder = lambda request: reply
    llm = ["--llm-base-url", fake_llm.base_url, "--llm-model", "fake", "--llm-cache", "off"]
    output = tmp_path / "generated.jsonl"
    runner = CliRunner()
    first = runner.invoke(app, [*base, "-o", str(output), *llm], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    calls, rows = len(fake_llm.requests), output.read_text(encoding="utf-8")
    assert calls and rows and manifest_path(output).is_file()
    again = runner.invoke(app, [*base, "-o", str(output), *llm], catch_exceptions=False)
    assert again.exit_code == 0 and len(fake_llm.requests) == calls and output.read_text(encoding="utf-8") == rows
    refused = runner.invoke(app, [*base, *changed, "-o", str(output), *llm])
    assert isinstance(refused.exception, ResultsMismatch), refused.output
    assert len(fake_llm.requests) == calls and output.read_text(encoding="utf-8") == rows
