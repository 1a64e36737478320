"""One top-level handler: every error ends in one line and a documented exit code; --debug shows the traceback."""

import pytest
import typer

from factscope.cli import main as entry
from factscope.core.errors import InputError, RecordsFailed


def _run(monkeypatch, capsys, argv, raised):
    def register() -> None:
        @entry.app.command("boom")
        def boom() -> None:
            raise raised

    monkeypatch.setattr(entry, "_register", register)
    monkeypatch.setattr(entry, "_options", entry.RootOptions())
    monkeypatch.setattr("sys.argv", ["factscope", *argv])
    with pytest.raises(SystemExit) as exited:
        entry.main()
    return exited.value.code, capsys.readouterr().err


@pytest.fixture(autouse=True)
def fresh_app(monkeypatch):
    app = typer.Typer(pretty_exceptions_enable=False, add_completion=False)
    app.callback()(entry._root)
    monkeypatch.setattr(entry, "app", app)


def test_an_unexpected_error_is_one_line_with_what_to_do_and_exit_1(monkeypatch, capsys):
    code, err = _run(monkeypatch, capsys, ["boom"], ValueError("[/x] went wrong"))
    assert code == 1 and "Traceback" not in err
    assert "unexpected ValueError: [/x] went wrong" in " ".join(err.split()) and "--debug" in err


def test_debug_shows_the_traceback(monkeypatch, capsys):
    with pytest.raises(ValueError):
        _run(monkeypatch, capsys, ["--debug", "boom"], ValueError("went wrong"))


def test_an_input_error_exits_2_and_a_partial_run_exits_3_unless_allowed(monkeypatch, capsys):
    code, err = _run(monkeypatch, capsys, ["boom"], InputError("missing", path="a[b].jsonl", line=3, field="id"))
    assert code == 2 and "a[b].jsonl:3: field 'id': missing" in err
    failed = RecordsFailed(7, "claims", "out.jsonl")
    code, err = _run(monkeypatch, capsys, ["boom"], failed)
    assert code == 3 and "7 claims failed" in err and "--allow-failures" in err
    code, _ = _run(monkeypatch, capsys, ["--allow-failures", "boom"], failed)
    assert code == 0


def test_check_with_failed_claim_checks_exits_3_and_keeps_every_record(fake_llm, monkeypatch, capsys, tmp_path):
    import json

    from cli_entry import run_factscope

    fake_llm.responder = lambda request: "I would rather not say."
    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps({"id": "a", "response": "Paris is the capital of France.",
                                "references": ["Paris is the capital of France."]}) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    llm = ["--checker", "llm", "--llm-base-url", fake_llm.base_url, "--llm-model", "fake", "--llm-cache", "off"]
    monkeypatch.chdir(tmp_path)

    failed = run_factscope(monkeypatch, capsys, "check", str(data), "-o", str(out), *llm)
    assert failed.code == 3, failed.err
    assert "Traceback" not in failed.err and "claims) failed" in " ".join(failed.err.split())
    [row] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert all(claim["verdict"]["failed"] for claim in row["claims"]) and row["claims"]
    assert run_factscope(monkeypatch, capsys, "--allow-failures", "check", str(data), "-o", str(out), *llm).code == 0
