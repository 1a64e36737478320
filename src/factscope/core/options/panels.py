"""The panels a command's --help groups its options in, by what they are for, in the order a page shows them; a
system names them where it declares its command's options (``factscope.engines.command_form``)."""

from __future__ import annotations

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

PANELS = (ARGUMENTS, INPUT, CLAIMS, CHECKING, OPTIONS, EVIDENCE, LLM, OUTPUT, ENGINE)
"""The panels of a command's parameters in the order a --help page shows them: its arguments, what it reads and
does, its own options (those of no panel, then those of a panel not named here), and the settings commands
share."""
