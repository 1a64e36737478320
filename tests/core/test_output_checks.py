"""A run's output paths are judged before any work, by the library, so that a run started from Python refuses a
bad one as the command line does: each refusal names the path and the parameter that gave it, and comes before the
input is read or any model is built."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from factscope.core.errors import InputError
from factscope.core.files.output_checks import check_outputs, check_written_file
from factscope.evaluation.checker_comparison import EvaluationPairs, EvaluationSettings, evaluate_pair_files
from factscope.refchecker.agree import AgreementInputs, AgreementWriter, AgreeSettings
from factscope.refchecker.spec import CheckSpec
from factscope.refchecker.system import CHECK


def test_a_file_written_whole_is_refused_where_it_cannot_be_written(tmp_path, monkeypatch):
    with pytest.raises(InputError, match=f"^{tmp_path}: is a folder; give `report` a file name"):
        check_written_file(tmp_path, "report")
    missing = tmp_path / "nowhere" / "r.json"
    with pytest.raises(InputError, match=f"the folder {missing.parent} does not exist; create it first, or give "
                                         "`report` a file"):
        check_written_file(missing, "report")
    plain = tmp_path / "plain"
    plain.write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match=f"{plain} is a file, not a folder; give `summary` another path"):
        check_written_file(plain / "s.json", "summary")
    taken = tmp_path / "taken.json"
    taken.write_text("{}", encoding="utf-8")
    monkeypatch.setattr(os, "access", lambda path, mode: str(path) != str(tmp_path))
    with pytest.raises(InputError, match=f"new.json: cannot be written: the folder {tmp_path} is read-only; give "
                                         "`summary` another file"):
        check_written_file(tmp_path / "new.json", "summary")
    check_written_file(taken, "summary")


def test_check_outputs_judges_the_results_file_and_each_file_given(tmp_path):
    check_outputs(tmp_path / "out.jsonl", written={"report": None, "summary": tmp_path / "s.json"})
    with pytest.raises(InputError, match="is a folder; name a results file as `output`"):
        check_outputs(tmp_path, written={"report": tmp_path / "r.json"})
    with pytest.raises(InputError, match="is a folder; give `summary` a file name"):
        check_outputs(tmp_path / "out.jsonl", written={"report": tmp_path / "r.json", "summary": tmp_path})


def test_an_api_run_refuses_a_bad_output_before_reading_its_input_or_building_its_pipeline(tmp_path, monkeypatch):
    def refuse(*_: object) -> None:
        raise AssertionError("the pipeline was built before the output was checked")

    monkeypatch.setattr(CHECK, "pipeline", refuse)
    with pytest.raises(InputError, match=f"^{tmp_path}: is a folder; name a results file as `output`"):
        CHECK.run(CheckSpec(extractor="sentences", checker="nli"), tmp_path / "absent.jsonl", output=tmp_path)


def test_agreement_and_evaluation_runs_refuse_a_bad_report_before_any_work(tmp_path):
    nothing = AgreementInputs(annotations=[], records=[], skipped=[])
    settings = AgreeSettings(output=tmp_path / "a.jsonl", report=tmp_path)
    with pytest.raises(InputError, match="is a folder; give `report` a file name"):
        AgreementWriter(CheckSpec(checker="no-such-checker")).write(settings, nothing, llm=None,
                                                                    output=settings.results_file)
    with pytest.raises(InputError, match="is a folder; name a results file as `output`"):
        AgreementWriter(CheckSpec(checker="no-such-checker")).write(AgreeSettings(output=tmp_path), nothing, llm=None,
                                                                    output=tmp_path)
    no_pairs = EvaluationPairs(files=[Path("pairs.jsonl")], pairs=[], skipped={})
    with pytest.raises(InputError, match="is a folder; give `output` a file name"):
        evaluate_pair_files(no_pairs, EvaluationSettings(output=tmp_path))
