"""The --llm-* options, declared once in the fields of ``LLMEndpoint``: ``@llm_options`` adds them to a
command and hands it one ``LLMOptions``."""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import dataclass, fields

import typer

from factscope.cli.option_groups import Command, add_field_options, given, option_flag
from factscope.cli.output_paths import running_command
from factscope.cli.parameter_flags import in_context, with_flags
from factscope.core.errors import ConfigError
from factscope.core.options.panels import LLM
from factscope.hf.llm_endpoint import LLMEndpoint

if typing.TYPE_CHECKING:
    from factscope.llm.client import LLMClient

SETTING_FLAGS = {item.name: option_flag(item) for item in fields(LLMEndpoint)}
"""Each setting of ``LLMEndpoint`` (which its errors name, as ``LLMConfig.resolve``'s do) -> its option's flag
(`base_url` -> --llm-base-url)."""


@dataclass(frozen=True)
class LLMOptions(LLMEndpoint):
    """The endpoint settings given on the command line; its errors name the options that give them."""

    def build(self) -> LLMClient:
        """An LLM client from these settings; raises ConfigError naming the option that is missing or bad."""
        try:
            return super().build()
        except ConfigError as error:
            raise ConfigError(with_flags(str(error), SETTING_FLAGS)) from None

    def refuse_if_unused(self, unused: str | None) -> None:
        """Refuse (a usage error of the first) the options of these settings given on the command line when the
        run would call no LLM: ``unused`` says why (``System.unused_llm``), None when it calls one."""
        context = running_command()
        if unused is None or context is None:
            return
        for flag in SETTING_FLAGS.values():
            if given(context, flag):
                raise typer.BadParameter(in_context(unused.replace("`llm`", flag, 1)), param_hint=f"'{flag}'")


def llm_options(command: Command, *, after: str | None = None) -> Command:
    """Give ``command`` the --llm-* options (listed after its parameter ``after``, else after all of them); it
    receives them as one keyword argument ``endpoint: LLMOptions``."""
    return add_field_options(command, LLMOptions, "endpoint", panel=LLM, after=after)


def summed_usage(endpoint: LLMOptions, needed: bool, usage: Mapping[str, int]) -> list[tuple[str, object]]:
    """Summary-table rows of the usage a run's workers reported (``ShardedRun.llm_usage``, summed over the Ray
    actors), as a client of the run's endpoint shows it; none when the run needed no LLM."""
    from factscope.llm.client import LLMUsage

    client = endpoint.build_if(needed)
    if client is None:
        return []
    client.usage = LLMUsage(**usage)
    return client.usage_rows()
