"""Every --help page fits an 80-column terminal: no line wider, no option name cut, a flag shown without a value
placeholder; `check --help` groups its options by purpose in about 150 lines, and `factscope --help` lists the
four systems first."""

from __future__ import annotations

import re
from typing import Any

import pytest
import typer

from cli_entry import run_factscope
from factscope.cli import main as entry

WIDTH = 80


def _commands(command: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    found = [(path, command)]
    for name, sub in getattr(command, "commands", {}).items():
        found += _commands(sub, (*path, name))
    return found


def _registered() -> Any:
    application = typer.Typer(name="factscope", add_completion=False)
    application.callback()(entry._root)
    for module in entry.command_modules():
        module.register(application)
    return typer.main.get_command(application)


COMMANDS = _commands(_registered())


def _page(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *path: str) -> list[str]:
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    ran = run_factscope(monkeypatch, capsys, *path, "--help")
    assert ran.code == 0, ran.err
    return ran.out.splitlines()


def _written(param: Any) -> list[str]:
    """How the page may write each of the option's flags: as is, or as --[no-]NAME with its negation."""
    longs = [flag for flag in param.opts if flag.startswith("--")]
    negated = [flag for flag in param.secondary_opts if flag.startswith("--")]
    if len(longs) == 1 and negated == ["--no-" + longs[0][2:]]:
        return ["--[no-]" + longs[0][2:]]
    return [*param.opts, *param.secondary_opts]


@pytest.mark.parametrize("path", [path for path, _ in COMMANDS], ids=lambda path: " ".join(path) or "factscope")
def test_a_help_page_fits_80_columns_with_every_option_name_whole(monkeypatch, capsys, path):
    page = _page(monkeypatch, capsys, *path)
    command = dict(COMMANDS)[path]
    assert [line for line in page if len(line.rstrip()) > WIDTH] == []
    assert [line for line in page if "…" in line] == []
    text = "\n".join(page)
    options = [param for param in command.params if param.param_type_name == "option" and param.name != "help"]
    missing = [flag for param in options for flag in _written(param) if flag not in text]
    assert missing == []
    for param in (param for param in options if getattr(param, "is_flag", False)):
        shown = next(line for line in page if line.startswith("│ " + _written(param)[0]))
        assert re.match(r"\s{2,}\S|\s*│?\s*$", shown.split(_written(param)[0], 1)[1]), shown
    assert "<bool>" not in text and " BOOL" not in text


def test_check_help_groups_its_options_by_purpose_in_about_150_lines(monkeypatch, capsys):
    page = _page(monkeypatch, capsys, "check")
    assert len(page) <= 150
    titles = [line.split("─ ", 1)[1].split(" ─", 1)[0] for line in page if line.startswith("╭─ ")]
    assert [title.split(":")[0] for title in titles] == [
        "Input", "Claims", "Checking", "Evidence", "LLM", "Output", "Engine"
    ]
    text = "\n".join(page)
    assert "`factscope checkers`" in text
    assert "cascade:FIRST,SECOND" in text and "MiniCheck" not in text


def test_the_llm_checker_options_are_in_the_llm_panel(monkeypatch, capsys):
    page = _page(monkeypatch, capsys, "check")
    llm = page.index(next(line for line in page if line.startswith("╭─ LLM")))
    end = next(i for i in range(llm, len(page)) if page[i].startswith("╰"))
    inside = "\n".join(page[llm:end])
    assert "--llm-check-mode" in inside and "--llm-passages" in inside and "--llm-base-url" in inside


def test_factscope_help_lists_the_four_systems_first_together(monkeypatch, capsys):
    page = _page(monkeypatch, capsys)
    first = page.index(next(line for line in page if line.startswith("╭─")))
    end = next(i for i in range(first, len(page)) if page[i].startswith("╰"))
    names = [line.strip("│ ").split(" ", 1)[0] for line in page[first + 1:end] if not line.startswith("│  ")]
    assert names == ["check", "ground", "attribute", "knowledge"]


def test_checkers_describes_every_checker_extractor_and_presence_model(monkeypatch, capsys):
    from factscope.checkers.registry import CHECKERS
    from factscope.claims.registry import EXTRACTORS
    from factscope.grounding.presence import PRESENCE_MODELS

    monkeypatch.setenv("COLUMNS", str(WIDTH))
    ran = run_factscope(monkeypatch, capsys, "checkers")
    assert ran.code == 0, ran.err
    for registry in (CHECKERS, EXTRACTORS, PRESENCE_MODELS):
        for name in registry.names():
            entry = registry.get(name)
            assert entry.usage in ran.out
            assert entry.help.split()[0] in ran.out
    assert "MiniCheck" in ran.out
    assert [line for line in ran.out.splitlines() if len(line) > WIDTH or "…" in line] == []
