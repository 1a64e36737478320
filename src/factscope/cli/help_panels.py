"""The panels `factscope --help` groups the commands in, the four systems first (a command's own options are
grouped in those of ``factscope.core.options.panels``)."""

from __future__ import annotations

from typing import Any

SYSTEMS = "The systems"
RESULTS = "Results"
CHECKERS = "Checkers"
MORE = "Examples and the server"

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
