"""The panels a command's --help groups its options in, by what they are for, in the order a page shows them;
and those `factscope --help` groups the commands in, the four systems first."""

from __future__ import annotations

from typing import Any

ARGUMENTS = "Arguments"
INPUT = "Input"
CLAIMS = "Claims"
CHECKING = "Checking: the checker, and how model checkers read the references"
EVIDENCE = "Evidence: passages retrieved from a corpus, the web or Wikipedia"
LLM = "LLM: an OpenAI-compatible endpoint, or a local model"
OUTPUT = "Output"
ENGINE = "Engine: where and how the run goes"
OPTIONS = "Options"
SCORING = "Scoring (CONNER metrics)"

SYSTEMS = "The systems"
RESULTS = "Results"
CHECKERS = "Checkers"
MORE = "Examples and the server"

PANELS = (ARGUMENTS, INPUT, CLAIMS, CHECKING, OPTIONS, EVIDENCE, LLM, OUTPUT, ENGINE)
"""The panels of a command's parameters in the order a --help page shows them: its arguments, what it reads and
does, its own options (those of no panel, then those of a panel not named here), and the settings commands
share."""

COMMAND_PANELS = {
    "report": RESULTS, "export": RESULTS, "agree": RESULTS, "eval-spans": RESULTS,
    "checkers": CHECKERS, "train-checker": CHECKERS, "eval-checker": CHECKERS, "package-checker": CHECKERS,
    "examples": MORE, "serve": MORE,
}
"""The panel of each command of `factscope --help` but the systems' (``command_panel``), listed in this order."""


def command_panel(name: str, default: Any) -> Any:
    """The panel of the command (or command group) ``name`` of `factscope --help`: the systems' panel for a
    system's command (``factscope.systems``), else its panel in ``COMMAND_PANELS``, else ``default``."""
    from factscope.systems import SYSTEMS as SYSTEM_LIST

    if any(system.command.split()[1] == name for system in SYSTEM_LIST):
        return SYSTEMS
    return COMMAND_PANELS.get(name, default)
