"""Help texts flow to the terminal's width: prose lines join, examples and list items keep their own lines."""

import typer
from typer.testing import CliRunner

from factscope.cli.help_layout import lay_out, reflow

SOURCE = """Check claims.

Input: records with a response
and references, wrapped in the source
at 115 columns.

- claims: one row per claim,
  with its verdict.
- facts: one row per fact.

Examples:

  factscope check a.jsonl
  factscope check b.jsonl -o out.jsonl
"""


def test_prose_joins_and_examples_and_items_keep_their_lines():
    assert reflow(SOURCE) == (
        "Check claims.\n\n"
        "Input: records with a response and references, wrapped in the source at 115 columns.\n\n"
        "- claims: one row per claim, with its verdict.\n- facts: one row per fact.\n\n"
        "Examples:\n\n"
        "  factscope check a.jsonl\n  factscope check b.jsonl -o out.jsonl\n"
    )
    assert reflow(reflow(SOURCE)) == reflow(SOURCE)


def test_every_command_and_group_of_an_app_is_reflowed():
    app = typer.Typer(help="Top.\n\nOne\ntwo.")
    group = typer.Typer(help="Group.\n\nThree\nfour.")
    group.command("leaf", help="Leaf.\n\nFive\nsix.")(lambda: None)
    app.add_typer(group, name="group")
    app.command("other", help="Other.\n\nSeven\neight.")(lambda: None)
    lay_out(app)
    runner = CliRunner()
    assert "Seven eight." in runner.invoke(app, ["other", "--help"]).output
    assert "Five six." in runner.invoke(app, ["group", "leaf", "--help"]).output
    assert "Three four." in runner.invoke(app, ["group", "--help"]).output
    assert "One two." in runner.invoke(app, ["--help"]).output
