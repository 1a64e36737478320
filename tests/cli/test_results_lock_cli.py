"""A command refuses a results file that another run holds before it loads any model, and frees the lock at its
end."""

import subprocess
import sys

from typer.testing import CliRunner

from factscope.checkers import registry
from factscope.core.files.results_lock import ResultsLocked, lock_path
from repo_paths import EXAMPLES

HOLD = """
import sys, time
from factscope.core.files.results_lock import results_lock
with results_lock(sys.argv[1]):
    print("held", flush=True)
    time.sleep(60)
"""


def test_check_on_a_file_another_run_holds_exits_before_building_its_checker(app, tmp_path, monkeypatch):
    output = tmp_path / "out.jsonl"
    built = []
    monkeypatch.setattr(registry, "make_checker", lambda *a, **k: built.append(a) or registry.make_checker(*a, **k))
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(output)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        result = CliRunner().invoke(app, ["check", str(EXAMPLES / "check.jsonl"), "-o", str(output)])
    finally:
        holder.kill()
        holder.wait()
    assert isinstance(result.exception, ResultsLocked), result.output
    assert f"pid {holder.pid}" in str(result.exception)
    assert built == [] and not output.exists()


def test_the_lock_a_command_took_is_gone_when_it_ends(app, tmp_path):
    output = tmp_path / "out.jsonl"
    result = CliRunner().invoke(
        app, ["check", str(EXAMPLES / "check.jsonl"), "-o", str(output), "--extractor", "sentences",
              "--checker", "similarity"],
    )
    assert result.exit_code == 0, result.output
    assert output.exists() and not lock_path(output).exists()
