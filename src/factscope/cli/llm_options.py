"""The --llm-* options, declared once: ``@llm_options`` adds them to a command and hands it one ``LLMOptions``."""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.option_groups import Command, add_option_group
from factscope.cli.option_ranges import finite
from factscope.core.errors import ConfigError

if typing.TYPE_CHECKING:
    from factscope.llm.client import LLMClient

PANEL = "LLM endpoint (OpenAI-compatible: OpenAI, vLLM, Ollama, llama.cpp, TGI, LiteLLM)"


@dataclass(frozen=True)
class LLMOptions:
    """The endpoint settings given on the command line (None: take the environment, the config file or the
    default); ``llm`` names an in-process model instead of an endpoint."""

    llm: Annotated[
        str | None,
        typer.Option(
            "--llm",
            help="run a local model in-process instead of calling an endpoint: local:PATH_OR_NAME (a Hugging Face "
            "folder, a .gguf file, a hub name in the local cache; local:embedded for SmolLM2-135M)",
            rich_help_panel=PANEL,
        ),
    ] = None

    llm_base_url: Annotated[
        str | None,
        typer.Option(
            "--llm-base-url", help="e.g. http://localhost:8000/v1 \\[env FACTSCOPE_LLM_BASE_URL]", rich_help_panel=PANEL
        ),
    ] = None
    llm_model: Annotated[
        str | None, typer.Option("--llm-model", help="model name \\[env FACTSCOPE_LLM_MODEL]", rich_help_panel=PANEL)
    ] = None
    llm_api_key: Annotated[
        str | None,
        typer.Option("--llm-api-key", help="\\[env FACTSCOPE_LLM_API_KEY or OPENAI_API_KEY]", rich_help_panel=PANEL),
    ] = None
    llm_config: Annotated[
        Path | None,
        typer.Option(
            "--llm-config",
            help="TOML file with an \\[llm] table (default ~/.config/factscope/config.toml)",
            rich_help_panel=PANEL,
        ),
    ] = None
    llm_concurrency: Annotated[
        int, typer.Option("--llm-concurrency", min=1, help="parallel requests", rich_help_panel=PANEL)
    ] = 8
    llm_cache: Annotated[
        str | None,
        typer.Option(
            "--llm-cache", help="SQLite response cache file, or 'off' \\[env FACTSCOPE_LLM_CACHE]", rich_help_panel=PANEL
        ),
    ] = None
    llm_price_prompt: Annotated[
        float | None,
        typer.Option(
            "--llm-price-prompt",
            min=0.0,
            callback=finite,
            help="price per 1,000 prompt tokens, for the cost line of the summary (e.g. 0.00015)",
            rich_help_panel=PANEL,
        ),
    ] = None
    llm_price_completion: Annotated[
        float | None,
        typer.Option(
            "--llm-price-completion",
            min=0.0,
            callback=finite,
            help="price per 1,000 completion tokens, for the cost line of the summary (e.g. 0.0006)",
            rich_help_panel=PANEL,
        ),
    ] = None

    def build(self) -> LLMClient:
        """An LLM client from these settings; raises ConfigError naming the option that is missing."""
        try:
            return self._built()
        except ConfigError as error:
            raise ConfigError(as_options(str(error))) from None

    def _built(self) -> LLMClient:
        from factscope.llm.client import LLMClient, LLMConfig

        if self.llm is not None:
            return self._in_process()

        settings = LLMConfig.resolve(
            self.llm_base_url,
            self.llm_model,
            self.llm_api_key,
            config_path=self.llm_config,
            cache_path=self.llm_cache,
            concurrency=self.llm_concurrency,
            price_prompt_per_1k=self.llm_price_prompt,
            price_completion_per_1k=self.llm_price_completion,
        )
        return LLMClient(settings)

    def _in_process(self) -> LLMClient:
        """The client of the in-process model ``--llm`` names; the cache, reply limit, temperature and prices come
        from the flags, the environment and the config file as for an endpoint."""
        from factscope.hf.in_process_llm import IN_PROCESS_URL, InProcessLLMClient, local_model_name
        from factscope.llm.config import LLMConfig

        if self.llm_base_url is not None:
            raise ConfigError("--llm runs a model in-process: leave --llm-base-url out, or leave --llm out")
        name = local_model_name(self.llm or "")
        settings = LLMConfig.resolve(
            IN_PROCESS_URL,
            name,
            config_path=self.llm_config,
            cache_path=self.llm_cache,
            price_prompt_per_1k=self.llm_price_prompt,
            price_completion_per_1k=self.llm_price_completion,
        )
        return InProcessLLMClient.load(name, settings)

    def build_if(self, needed: bool) -> LLMClient | None:
        """``build()`` when an LLM is ``needed``, else None."""
        return self.build() if needed else None

    def configured(self) -> bool:
        """True when flags, environment or a config file name an endpoint (for optional LLM parts)."""
        from factscope.llm.client import LLMConfig

        if self.llm is not None:
            return True
        try:
            LLMConfig.resolve(self.llm_base_url, self.llm_model, config_path=self.llm_config, cache_path="off")
        except ConfigError:
            return False
        return True


SETTING_OPTIONS = {
    "base_url": "llm_base_url", "model": "llm_model", "api_key": "llm_api_key", "config_path": "llm_config",
    "cache_path": "llm_cache",
}
"""Each LLM setting that ``LLMConfig.resolve`` names in its errors -> the option of ``LLMOptions`` that gives it."""


def as_options(message: str) -> str:
    """An LLM settings error's ``message`` with each setting it names (`base_url`) named as its option
    (`llm_base_url`), which the CLI then shows as a flag."""
    for setting, option in SETTING_OPTIONS.items():
        message = message.replace(f"`{setting}`", f"`{option}`")
    return message


def llm_options(command: Command) -> Command:
    """Give ``command`` the --llm-* options; it receives them as one keyword argument ``endpoint: LLMOptions``."""
    return add_option_group(command, LLMOptions, "endpoint")


@dataclass
class ClientOnce:
    """The command's LLM client, made on the first call and kept (its usage goes into the summary); picklable
    without it, so that each Ray worker makes its own."""

    endpoint: LLMOptions
    client: LLMClient | None = None

    def __call__(self) -> LLMClient:
        if self.client is None:
            self.client = self.endpoint.build()
        return self.client

    def __getstate__(self) -> dict[str, object]:
        return {"endpoint": self.endpoint, "client": None}


def summed_usage(endpoint: LLMOptions, needed: bool, usage: Mapping[str, int]) -> LLMClient | None:
    """A client of the run's endpoint holding the usage its workers reported (``ShardedRun.llm_usage``, summed
    over the Ray actors), for ``usage_rows``; None when the run needed no LLM."""
    from factscope.llm.client import LLMUsage

    client = endpoint.build_if(needed)
    if client is not None:
        client.usage = LLMUsage(**usage)
    return client


def usage_rows(llm: LLMClient | None) -> list[tuple[str, object]]:
    """Summary-table rows of an LLM client's calls, tokens and cost; none when no LLM was used."""
    return llm.usage_rows() if llm is not None else []
