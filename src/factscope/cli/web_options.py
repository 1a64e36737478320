"""The options of web and Wikipedia retrieval: the fields of the library's ``WebSettings``."""

from __future__ import annotations

from factscope.cli.help_panels import EVIDENCE
from factscope.cli.option_groups import Command, add_field_options
from factscope.retrieve.web_settings import WebSettings


def web_options(command: Command) -> Command:
    """Give ``command`` the web retrieval options; it receives them as one keyword argument ``web: WebSettings``."""
    return add_field_options(command, WebSettings, "web", panel=EVIDENCE)
