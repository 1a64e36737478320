"""Output paths are checked before any work: a folder, a read-only file, a missing folder for a summary, or a file
that is not a factscope results file is one clear error (exit 2) naming the path, and nothing is written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cli_entry import run_factscope
from factscope.core.errors import InputError
from factscope.core.files import manifest, output_checks

RECORD = {"id": "r1", "response": "Ada wrote code.", "references": ["Ada wrote code."]}


@pytest.fixture
def records(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(RECORD) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any model built means the check came too late."""

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("a model was built before the output paths were checked")

    monkeypatch.setattr("factscope.checkers.registry.make_checker", refuse)
    monkeypatch.setattr("factscope.claims.registry.make_extractor", refuse)


def test_a_folder_as_results_file_is_refused_before_any_model(monkeypatch, capsys, tmp_path, records, no_model):
    ran = run_factscope(monkeypatch, capsys, "check", str(records), "-o", str(tmp_path))
    assert ran.code == 2 and f"{tmp_path}: is a folder; name a results file" in ran.text


def test_a_foreign_file_is_never_appended_to(monkeypatch, capsys, tmp_path, records, no_model):
    foreign = tmp_path / "notes.jsonl"
    foreign.write_text("my own notes\n", encoding="utf-8")
    ran = run_factscope(monkeypatch, capsys, "check", str(records), "-o", str(foreign))
    assert ran.code == 2 and f"{foreign}: exists but has no notes.jsonl.manifest.json" in ran.text
    assert "--overwrite" in ran.text and foreign.read_text(encoding="utf-8") == "my own notes\n"


@pytest.mark.parametrize("option", ["--summary"])
def test_a_summary_into_a_missing_folder_or_onto_a_folder_is_refused(
    monkeypatch, capsys, tmp_path, records, no_model, option
):
    missing = tmp_path / "nowhere" / "summary.json"
    ran = run_factscope(monkeypatch, capsys, "check", str(records), "-o", str(tmp_path / "out.jsonl"), option,
                        str(missing))
    assert ran.code == 2 and f"{missing}: the folder {missing.parent} does not exist; create it first" in ran.text
    assert not (tmp_path / "out.jsonl").exists()
    ran = run_factscope(monkeypatch, capsys, "check", str(records), "-o", str(tmp_path / "out.jsonl"), option,
                        str(tmp_path))
    assert ran.code == 2 and f"{tmp_path}: is a folder; give {option} a file name" in ran.text


def test_every_command_checks_its_outputs_first(monkeypatch, capsys, tmp_path):
    """Each command refuses a folder as its output even when its input does not exist: the check comes first."""
    absent = str(tmp_path / "absent.jsonl")
    folder = str(tmp_path)
    commands = [
        ["check", absent, "-o", folder],
        ["agree", absent, "-i", absent, "-o", folder],
        ["agree", absent, "-i", absent, "-o", str(tmp_path / "a.jsonl"), "--report", folder],
        ["report", absent, "-o", folder],
        ["ground", absent, "-o", folder],
        ["ground", absent, "-o", str(tmp_path / "g.jsonl"), "--summary", folder],
        ["ground", "generate", absent, "-o", folder],
        ["attribute", "generate", absent, "-o", folder],
        ["attribute", "score", absent, "-o", folder],
        ["attribute", "score", absent, "-o", str(tmp_path / "s.jsonl"), "--summary", folder],
        ["attribute", "make-questions", absent, "-o", folder],
        ["knowledge", "score", absent, "-o", folder],
        ["knowledge", "generate", absent, "-o", folder],
        ["knowledge", "select", absent, "-o", folder],
        ["knowledge", "agree", absent, absent, "-o", folder],
    ]
    for argv in commands:
        ran = run_factscope(monkeypatch, capsys, *argv)
        assert ran.code == 2 and f"{folder}: is a folder" in ran.text, (argv, ran.text)


def test_a_read_only_results_file_or_folder_is_refused(monkeypatch, tmp_path):
    """Judged by the file system's permissions (``os.access``), which a root user bypasses: simulated here."""
    results = tmp_path / "out.jsonl"
    results.write_text("", encoding="utf-8")
    writable = {str(results): False}
    monkeypatch.setattr(os, "access", lambda path, mode: writable.get(str(path), True))
    with pytest.raises(InputError, match="out.jsonl: is read-only; make it writable"):
        manifest.check_results_path(results)
    with pytest.raises(InputError, match="out.jsonl: is read-only; make it writable .* `summary`"):
        output_checks.check_written_file(results, "summary")
    writable = {str(tmp_path): False}
    with pytest.raises(InputError, match=f"new.jsonl: cannot be written: the folder {tmp_path} is read-only"):
        manifest.check_results_path(tmp_path / "new.jsonl")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files")
def test_a_read_only_results_file_is_refused_by_permissions(tmp_path):
    results = tmp_path / "out.jsonl"
    results.write_text("", encoding="utf-8")
    results.chmod(0o444)
    with pytest.raises(InputError, match="is read-only"):
        manifest.check_results_path(results)


def test_a_results_path_under_a_file_is_refused(tmp_path):
    parent = tmp_path / "file"
    parent.write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match=f"cannot be created: {parent} is a file, not a folder"):
        manifest.check_results_path(parent / "out.jsonl")
