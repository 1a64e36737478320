"""Agreement with human labels: the RefChecker annotation loader, the figures, hand-computed, and a run as its
settings declare it (its inputs read, records without references refused, the report written)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from factscope.core.errors import ConfigError
from factscope.core.schema import Label
from factscope.refchecker.agree import (
    AgreementInputs,
    AgreementReport,
    AgreementWriter,
    AgreeSettings,
    read_agreement_inputs,
)
from factscope.refchecker.annotations import load_annotation_files, load_human_annotations, model_names
from factscope.refchecker.data import load_check_records
from factscope.refchecker.missing_references import MissingReferences, MissingReferencesWarning
from factscope.refchecker.spec import CheckSpec


def agree(human, records, *, checker, extractor=None, mode="checker", output=None, batch_size=32, **options):
    """The agreement writer on annotations and records held in memory, with ready components."""
    spec = CheckSpec(checker=checker, extractor=extractor if extractor is not None else CheckSpec.extractor)
    settings = AgreeSettings(mode=mode, batch_size=batch_size)
    inputs = AgreementInputs(list(human), list(records), [])
    return AgreementWriter(spec).write(settings, inputs, llm=None, output=output, **options)


def run_agreement(inputs, settings, spec, *, llm=None):
    """The agreement writer as `factscope agree` runs it: into the settings' results file."""
    return AgreementWriter(spec).write(settings, inputs, llm=llm, output=settings.results_file)


class LookupChecker:
    """Answers from a fixed table keyed by claim text (a transparent stand-in for a model)."""

    name = "lookup"

    def __init__(self, table):
        self.table = table

    def check(self, tasks):
        from factscope.core.schema import Verdict

        return [Verdict(label=self.table[task.claim]) for task in tasks]


def test_checker_mode_figures(tmp_path):
    human = [
        {"id": "a", "response": "r", "claude2_response_kg": [
            {"triplet": ["x", "is", "1"], "human_label": "Entailment"},
            {"triplet": ["x", "is", "2"], "human_label": "Contradiction"},
            {"triplet": ["x", "is", "bad"], "human_label": "bad triplet"},
        ]},
        {"id": "b", "response": "r", "claude2_response_kg": [
            {"triplet": ["y", "is", "1"], "human_label": "Neutral"},
            {"triplet": ["y", "is", "2"], "human_label": "Entailment"},
        ]},
        {"id": "c", "response": "r", "claude2_response_kg": [{"triplet": ["z", "is", "1"], "human_label": "Neutral"}]},
        {"id": "missing", "response": "r", "claude2_response_kg": []},
    ]
    (tmp_path / "gpt.json").write_text(json.dumps(human), encoding="utf-8")
    (tmp_path / "in.jsonl").write_text(
        "\n".join(json.dumps({"id": i, "response": "r", "reference": "ref"}) for i in "abc"), encoding="utf-8"
    )
    responses, problems = load_human_annotations(tmp_path / "gpt.json")
    assert not problems and responses[0].excluded == 1 and responses[0].model == "gpt"
    records, _ = load_check_records(tmp_path / "in.jsonl")
    E, N, C = Label.ENTAILMENT, Label.NEUTRAL, Label.CONTRADICTION
    checker = LookupChecker({"x is 1": E, "x is 2": N, "y is 1": N, "y is 2": E, "z is 1": C})
    report = agree(responses, records, checker=checker, mode="checker")
    # gold E C N E N ; predicted E N N E C -> 3 of 5 right
    assert report.claims == 5 and report.accuracy == pytest.approx(3 / 5)
    # E: tp 2 fp 0 fn 0 -> 1.0 ; N: tp 1, fp 1, fn 1 -> P .5 R .5 F .5 ; C: tp 0 -> 0
    assert report.per_class_f1 == {E: pytest.approx(1.0), N: pytest.approx(0.5), C: 0.0}
    assert report.macro_f1 == pytest.approx(0.5)
    # response rates: human a .5 b .5 c 1 ; ours a .5 b .5 c 1 -> perfect correlation
    assert report.pearson[0] == pytest.approx(1.0)
    assert report.unmatched_ids == ["missing"]


E, N, C = Label.ENTAILMENT, Label.NEUTRAL, Label.CONTRADICTION


class SettingChecker:
    """Right on Zero Context references (answers the label written at the end of the claim), always
    Entailment elsewhere; counts the claims it is asked."""

    name = "by-setting"

    def __init__(self):
        self.asked = 0

    def check(self, tasks):
        from factscope.core.schema import Verdict

        self.asked += len(tasks)
        return [
            Verdict(label=Label.parse(task.claim.split()[-1]) if "zero passage" in task.references[0] else E)
            for task in tasks
        ]


def _annotation(k, labels):
    """Model k's response '1': one triplet per label, the label written in its object."""
    return {"id": "1", "response": f"answer of m{k}", "claude2_response_kg": [
        {"triplet": [f"m{k}", f"says {i}", label], "human_label": label} for i, label in enumerate(labels)
    ]}


def _seven_models(tmp_path):
    """Seven models over two settings in RefChecker's layout; both benchmark files use the id '1'."""
    (tmp_path / "zero_context").mkdir()
    files = []
    for k in range(1, 8):
        zero = tmp_path / "zero_context" / f"nq_m{k}_answers.json"
        zero.write_text(json.dumps([_annotation(k, ["Entailment"] + ["Neutral"] * (k - 1))]), encoding="utf-8")
        noisy = tmp_path / f"m{k}_noisy.json"
        noisy.write_text(json.dumps([_annotation(k, ["Entailment"] + ["Contradiction"] * (k - 1))]), encoding="utf-8")
        files += [zero, noisy]
    inputs = [tmp_path / "nq.json", tmp_path / "msmarco.json"]
    inputs[0].write_text(json.dumps([{"id": "1", "question": "q", "context": "the zero passage"}]), encoding="utf-8")
    inputs[1].write_text(json.dumps([{"id": "1", "question": "q", "context": ["noisy", "more"]}]), encoding="utf-8")
    return files, inputs


def _load(files, inputs, **options):
    from factscope.refchecker.annotations import load_reference_records

    human = [response for path in files for response in load_human_annotations(path, **options)[0]]
    records, problems = load_reference_records(inputs)
    assert not problems
    return human, records


def test_seven_models_over_settings_rank_as_seven_with_figures_per_setting(tmp_path):
    files, inputs = _seven_models(tmp_path)
    human, records = _load(files, inputs)
    assert {(h.model, h.setting) for h in human} == {(f"m{k}", s) for k in range(1, 8) for s in ("zero", "noisy")}
    report = agree(human, records, checker=SettingChecker(), mode="checker")
    assert sorted(report.model_rates) == [f"m{k}" for k in range(1, 8)] and report.responses == 14
    zero, noisy = report.by_setting["zero"], report.by_setting["noisy"]
    assert list(report.by_setting) == ["zero", "noisy"]
    # zero: the checker is right on all 28 claims; model k's rate is (k - 1) / k by both
    assert (zero.claims, zero.accuracy, zero.macro_f1) == (28, 1.0, pytest.approx(2 / 3))
    assert zero.pearson[0] == pytest.approx(1.0) and zero.model_ranking_spearman == pytest.approx(1.0)
    assert zero.model_rates["m4"] == (pytest.approx(0.75), pytest.approx(0.75))
    # noisy: all Entailment, right on 7 of 28; our rates are all 0, so no correlation is defined
    assert (noisy.claims, noisy.accuracy) == (28, pytest.approx(0.25))
    assert noisy.pearson is None and noisy.model_ranking_spearman is None
    assert noisy.confusion == {E: {E: 7, N: 0, C: 0}, N: {E: 0, N: 0, C: 0}, C: {E: 21, N: 0, C: 0}}
    # all: 35 of 56 right; model k: human (k-1)/k, ours (k-1)/(2k) -> the same ranking
    assert (report.claims, report.accuracy) == (56, pytest.approx(35 / 56))
    assert report.confusion[E][E] == 14 and report.confusion[N][N] == 21 and report.confusion[C][E] == 21
    assert report.model_rates["m4"] == (pytest.approx(0.75), pytest.approx(0.375))
    assert report.model_ranking_spearman == pytest.approx(1.0)
    predictions = [p for p in report.predictions if p.model == "m3" and p.setting == "noisy"]
    assert [(p.id, p.triplet, p.human, p.checker) for p in predictions] == [
        ("1", ("m3", "says 0", "Entailment"), E, E),
        ("1", ("m3", "says 1", "Contradiction"), C, E),
        ("1", ("m3", "says 2", "Contradiction"), C, E),
    ]


def test_model_names_from_a_field_or_given(tmp_path):
    rows = [{**_annotation(k, ["Entailment", "Neutral"]), "model": f"m{k}", "setting": "Zero"} for k in (1, 2)]
    mixed = tmp_path / "all_annotations.jsonl"
    mixed.write_text("\n".join(json.dumps(row) for row in rows) + "\n" + json.dumps(_annotation(3, [])), encoding="utf-8")
    responses, problems = load_human_annotations(mixed, model_from="field")
    assert [(r.model, r.setting) for r in responses] == [("m1", "zero"), ("m2", "zero")]
    assert problems[0].line == 3 and problems[0].field == "model" and "missing" in problems[0].reason
    given, skipped = load_human_annotations(mixed, "gpt4")
    assert {r.model for r in given} == {"gpt4"} and [r.setting for r in given] == ["zero", None]
    assert [p.line for p in skipped] == [2] and "is already used by line 1" in skipped[0].reason


def test_annotation_files_are_read_once_each_with_the_model_named_for_them(tmp_path):
    rows = json.dumps(_annotation(1, ["Entailment"])) + "\n" + json.dumps(_annotation(1, [])) + "\n"
    for name in ("gpt4_zero.jsonl", "mine.jsonl"):
        (tmp_path / name).write_text(rows, encoding="utf-8")
    gpt4, mine = tmp_path / "gpt4_zero.jsonl", tmp_path / "mine.jsonl"
    responses, problems = load_annotation_files([gpt4, mine], {mine: "llama", gpt4: "gpt4"})
    assert [(r.model, r.setting) for r in responses] == [("gpt4", "zero"), ("llama", None)]
    assert [(Path(p.path).name, p.line) for p in problems] == [("gpt4_zero.jsonl", 2), ("mine.jsonl", 2)]
    responses, _ = load_annotation_files([], {mine: "llama"})
    assert [r.model for r in responses] == ["llama"]


def test_responses_are_written_as_checked_and_a_rerun_resumes(tmp_path):
    files, inputs = _seven_models(tmp_path)
    human, records = _load(files, inputs)
    output, events = tmp_path / "agree.jsonl", []
    first = agree(human, records, checker=SettingChecker(), output=output, batch_size=4, progress=events.append)
    assert first.new_responses == 14 and len(output.read_text().splitlines()) == 14
    stage = [e for e in events if e.stage == "checking annotated claims"]
    assert stage[0].total == 14 and stage[-1].finished and stage[-1].done == 14
    lines = output.read_text().splitlines()
    output.write_text("\n".join(lines[:-2]) + "\n", encoding="utf-8")
    checker = SettingChecker()
    second = agree(human, records, checker=checker, output=output)
    assert (second.new_responses, second.resumed_responses) == (2, 12)
    assert checker.asked == sum(len(json.loads(line)["triplets"]) for line in lines[-2:])
    assert second.model_dump(exclude={"new_responses", "resumed_responses", "seconds"}) == first.model_dump(
        exclude={"new_responses", "resumed_responses", "seconds"}
    )


def test_pipeline_mode_reports_per_setting_and_each_extracted_claim(tmp_path):
    from factscope.core.schema import Claim, Extraction

    class OneClaim:
        name = "one"

        def extract(self, texts, questions=None):
            return [Extraction(claims=[Claim(text=f"{t} Neutral", kind="fact")]) for t in texts]

    files, inputs = _seven_models(tmp_path)
    human, records = _load(files, inputs)
    report = agree(human, records, checker=SettingChecker(), extractor=OneClaim(), mode="pipeline")
    assert report.claims == 0 and report.accuracy is None and set(report.by_setting) == {"zero", "noisy"}
    assert len(report.predictions) == 14
    assert {(p.setting, p.checker) for p in report.predictions} == {("zero", N), ("noisy", E)}
    assert all(p.human is None for p in report.predictions)
    # ours: 1.0 for every zero response, 0.0 for every noisy one
    assert report.by_setting["zero"].model_rates["m2"] == (pytest.approx(0.5), 1.0)


def test_reference_records_need_no_response_and_missing_references_are_listed(tmp_path):
    from factscope.refchecker.annotations import join_annotations, load_reference_records

    (tmp_path / "gpt4_zero.json").write_text(json.dumps([_annotation(1, ["Entailment"])]), encoding="utf-8")
    refs = tmp_path / "refs.jsonl"
    refs.write_text(json.dumps({"id": "1", "question": "q"}) + "\n", encoding="utf-8")
    records, problems = load_reference_records([refs])
    assert not problems and records[0].response == "" and records[0].setting is None
    human, _ = load_human_annotations(tmp_path / "gpt4_zero.json")
    joined = join_annotations(human, records)
    assert [p.key for p in joined.pairs] == ["gpt4/zero/1"] and joined.without_references() == ["gpt4/zero/1"]
    # a response without a setting and two records with its id (in two settings) cannot be told apart
    files, inputs = _seven_models(tmp_path)
    _, benchmark = _load(files, inputs)
    unset = human[0].model_copy(update={"setting": None})
    assert join_annotations([unset], benchmark).unmatched_ids == ["1"]
    assert join_annotations([unset], benchmark[:1]).pairs[0].key == "gpt4/zero/1"



def test_cli_reports_settings_confusion_and_claims_and_resumes(app, tmp_path):
    from typer.testing import CliRunner

    files, inputs = _seven_models(tmp_path)
    renamed = tmp_path / "seventh_noisy.json"
    renamed.write_text(files[-1].read_text(), encoding="utf-8")
    human = [str(f) for f in files[:-1]]
    output, report = tmp_path / "out.jsonl", tmp_path / "report.json"
    args = ["agree", *human, "--model", f"m7={renamed}", "-i", str(inputs[0]), "-i", str(inputs[1]),
            "--checker", "similarity", "-o", str(output), "--report", str(report)]
    first = CliRunner().invoke(app, args, catch_exceptions=False)
    assert first.exit_code == 0, first.output
    figures = json.loads(report.read_text())
    assert sorted(figures["model_rates"]) == [f"m{k}" for k in range(1, 8)]
    assert sorted(figures["by_setting"]["noisy"]["model_rates"]) == [f"m{k}" for k in range(1, 8)]
    assert figures["unmatched_ids"] == [] and figures["responses"] == 14
    assert sum(sum(row.values()) for row in figures["confusion"].values()) == figures["claims"]
    assert len(figures["predictions"]) == figures["claims"] + figures["failed_checks"]
    assert {"model", "setting", "id", "triplet", "human", "checker"} <= set(figures["predictions"][0])
    again = CliRunner().invoke(app, args, catch_exceptions=False)
    assert again.exit_code == 0 and re.search(r"0 / 14", again.output)
    assert len(output.read_text().splitlines()) == 14


def test_cli_stops_on_records_without_references(tmp_path, monkeypatch, capsys):
    from cli_entry import run_factscope

    (tmp_path / "gpt4_zero.json").write_text(json.dumps([_annotation(1, ["Entailment"])]), encoding="utf-8")
    refs = tmp_path / "refs.jsonl"
    refs.write_text(json.dumps({"id": "1", "question": "q", "references": []}) + "\n", encoding="utf-8")
    base = ["agree", str(tmp_path / "gpt4_zero.json"), "-i", str(refs), "--checker", "similarity"]
    stopped = run_factscope(monkeypatch, capsys, *base, "-o", str(tmp_path / "a.jsonl"))
    assert stopped.code == 2 and "no references (gpt4/zero/1)" in stopped.text
    assert "check that --input holds the records" in stopped.text and "--allow-missing-references" in stopped.text
    allowed = run_factscope(monkeypatch, capsys, *base, "-o", str(tmp_path / "b.jsonl"), "--allow-missing-references")
    assert allowed.code == 0 and "Going on (--allow-missing-references)" in allowed.text, allowed.text


def test_model_names_read_name_equals_file():
    assert model_names(["gpt4 = a/gpt.json", "m=b.json"]) == {Path("a/gpt.json"): "gpt4", Path("b.json"): "m"}
    assert model_names(None) == {}
    for bad in ("gpt4", "=a.json", "gpt4= "):
        with pytest.raises(ValueError, match=f"{bad!r}: expected NAME=FILE"):
            model_names([bad])


def test_settings_name_the_results_file_and_say_when_an_llm_is_needed():
    assert AgreeSettings().results_file == Path("agree-checker.jsonl")
    assert AgreeSettings(mode="pipeline").results_file == Path("agree-pipeline.jsonl")
    assert AgreeSettings(output=Path("out.jsonl")).results_file == Path("out.jsonl")
    assert AgreeSettings().needs_llm(CheckSpec(checker="llm")) and not AgreeSettings().needs_llm(CheckSpec())
    assert not AgreeSettings().needs_llm(CheckSpec(extractor="llm"))
    assert AgreeSettings(mode="pipeline").needs_llm(CheckSpec(extractor="llm"))


def test_inputs_are_read_from_the_files_the_settings_name(tmp_path):
    files, inputs = _seven_models(tmp_path)
    with pytest.raises(ConfigError, match="`input`"):
        read_agreement_inputs(files, AgreeSettings())
    with pytest.raises(ConfigError, match="`human`.*`model`"):
        read_agreement_inputs([], AgreeSettings(input=inputs))
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{broken\n", encoding="utf-8")
    read = read_agreement_inputs(files[:1], AgreeSettings(input=[*inputs, broken], model=[f"m9={files[1]}"]))
    assert [(r.model, r.setting) for r in read.annotations] == [("m1", "zero"), ("m9", "noisy")]
    assert len(read.records) == 2 and [(Path(p.path).name, p.line) for p in read.skipped] == [("broken.jsonl", 1)]


def test_a_run_refuses_records_without_references_unless_allowed_and_writes_its_report(tmp_path):
    (tmp_path / "gpt4_zero.json").write_text(json.dumps([_annotation(1, ["Entailment"])]), encoding="utf-8")
    refs = tmp_path / "refs.jsonl"
    refs.write_text(json.dumps({"id": "1", "question": "q", "references": []}) + "\n", encoding="utf-8")
    settings = AgreeSettings(input=[refs], output=tmp_path / "out.jsonl", report=tmp_path / "report.json")
    inputs = read_agreement_inputs([tmp_path / "gpt4_zero.json"], settings)
    made = []

    def client():
        made.append(True)
        return "client"

    with pytest.raises(MissingReferences) as stopped:
        run_agreement(inputs, settings, CheckSpec(checker="llm"), llm=client)
    assert stopped.value.keys == ["gpt4/zero/1"] and made == [] and not settings.results_file.exists()
    allowed = CheckSpec(checker=LookupChecker({"m1 says 0 Entailment": N}), allow_missing_references=True)
    with pytest.warns(MissingReferencesWarning, match="gpt4/zero/1"):
        report = run_agreement(inputs, settings, allowed, llm=client)
    assert made == [] and report.accuracy == 0.0 and len(settings.results_file.read_text().splitlines()) == 1
    assert json.loads(settings.report.read_text())["confusion"]["Entailment"]["Neutral"] == 1


def test_every_agree_setting_is_an_option_with_its_flags_and_default(app):
    import dataclasses

    import typer

    from factscope.cli.option_groups import option_flags

    params = {param.name: param for param in typer.main.get_command(app).commands["agree"].params}
    for item in dataclasses.fields(AgreeSettings):
        assert params[item.name].opts == option_flags(item) and params[item.name].default == item.default


def test_cli_refuses_a_model_without_a_file_and_names_the_missing_inputs_by_their_flags(monkeypatch, capsys, tmp_path):
    from cli_entry import run_factscope

    refs, out = str(tmp_path / "refs.jsonl"), str(tmp_path / "out.jsonl")
    ran = run_factscope(monkeypatch, capsys, "agree", "-i", refs, "--model", "gpt4", "-o", out)
    assert ran.code == 2 and "Invalid value for '--model': --model: 'gpt4': expected NAME=FILE" in " ".join(ran.text.split())
    ran = run_factscope(monkeypatch, capsys, "agree", "-i", refs, "-o", out)
    assert ran.code == 2 and "give human annotation files (HUMAN), or name each file's model (--model)" in ran.text
    ran = run_factscope(monkeypatch, capsys, "agree", refs, "-o", out)
    assert ran.code == 2 and "give the records with the questions and references (--input)" in ran.text


def test_what_failed_names_the_extraction_in_pipeline_mode_only():
    assert AgreementReport.model_construct(mode="checker").what_failed == "responses (a claim check)"
    pipeline = AgreementReport.model_construct(mode="pipeline")
    assert pipeline.what_failed == "responses (a claim check or the extraction)"
