"""Where a front-end's LLM calls go (``LLMEndpoint``): an OpenAI-compatible endpoint or a model run
in-process, each setting declared once with its help, range and flag (the command line's --llm-* options are
built from it).

A setting left None comes from the environment, the config file or the default (``LLMConfig.resolve``). Light
to import: the client classes load when a client is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from factscope.core.errors import ConfigError
from factscope.core.options.metadata import about
from factscope.core.options.validation import ValidatedOptions

if TYPE_CHECKING:
    from factscope.llm.client import LLMClient
    from factscope.llm.config import LLMConfig


def _price(kind: str, example: str) -> Mapping[str, Any]:
    """The metadata of the price per 1,000 ``kind`` tokens."""
    return about(
        f"cost of 1,000 {kind} tokens, e.g. {example}",
        flag=f"--llm-price-{kind}", min=0.0,
    )


@dataclass(frozen=True)
class LLMEndpoint(ValidatedOptions):
    """The LLM settings of a run: ``local`` names an in-process model (``local:PATH_OR_NAME``) instead of an
    endpoint at ``base_url``; ``model``, ``api_key``, ``config_path`` (a TOML file with an ``[llm]`` table),
    ``concurrency`` (parallel requests), ``timeout`` (seconds a call may take), ``cache_path`` (SQLite response cache, or 'off') and the prices per
    1,000 tokens go to ``LLMConfig.resolve``."""

    local: str | None = field(default=None, metadata=about(
        "a model run in-process: local:PATH_OR_NAME (a Hugging Face folder, a .gguf file or a cached hub "
        "name; local:embedded: SmolLM2-135M)", flag="--llm",
    ))
    base_url: str | None = field(default=None, metadata=about(
        "e.g. http://localhost:8000/v1; OpenAI's when only OPENAI_API_KEY is set \\[env FACTSCOPE_LLM_BASE_URL, "
        "OPENAI_BASE_URL]", flag="--llm-base-url"
    ))
    model: str | None = field(default=None, metadata=about(
        "model name \\[env FACTSCOPE_LLM_MODEL]", flag="--llm-model"
    ))
    api_key: str | None = field(default=None, metadata=about(
        "\\[env FACTSCOPE_LLM_API_KEY or OPENAI_API_KEY]", flag="--llm-api-key"
    ))
    config_path: Path | None = field(default=None, metadata=about(
        "TOML file with an \\[llm] table (default ~/.config/factscope/config.toml)", flag="--llm-config"
    ))
    concurrency: int = field(default=8, metadata=about("parallel requests", flag="--llm-concurrency", min=1))
    timeout: float | None = field(default=None, metadata=about(
        "seconds per call (default: 60; none in-process) "
        "\\[env FACTSCOPE_LLM_TIMEOUT]", flag="--llm-timeout",
        min=0.0, min_open=True,
    ))
    cache_path: str | None = field(default=None, metadata=about(
        "SQLite response cache file, or 'off' \\[env FACTSCOPE_LLM_CACHE]", flag="--llm-cache"
    ))
    price_prompt_per_1k: float | None = field(default=None, metadata=_price("prompt", "0.00015"))
    price_completion_per_1k: float | None = field(default=None, metadata=_price("completion", "0.0006"))

    def build(self) -> LLMClient:
        """An LLM client from these settings; raises ConfigError naming the setting that is missing or bad."""
        from factscope.llm.client import LLMClient

        if self.local is None:
            from factscope.llm.config import MissingEndpoint

            try:
                return LLMClient(self._config(
                    self.base_url, self.model, concurrency=self.concurrency, timeout=self.timeout
                ))
            except MissingEndpoint as error:
                raise ConfigError(
                    f"{error}; or pass `local` to run a model in-process (local:embedded, or local:PATH_OR_NAME)"
                ) from None
        from factscope.hf.in_process_llm import IN_PROCESS_URL, InProcessLLMClient, local_model_name

        if self.base_url is not None:
            raise ConfigError("`local` runs a model in-process: leave `base_url` out, or leave `local` out")
        name = local_model_name(self.local)
        return InProcessLLMClient.load(name, self._config(IN_PROCESS_URL, name), seconds=self.timeout)

    def _config(self, base_url: str | None, model: str | None, **more: object) -> LLMConfig:
        """The resolved settings of an endpoint at ``base_url`` serving ``model`` (the in-process model's
        cache, reply limit, temperature and prices come from these settings, the environment and the config
        file as for an endpoint)."""
        from factscope.llm.config import LLMConfig

        api_key = self.api_key if self.local is None else None
        return LLMConfig.resolve(
            base_url, model, api_key, config_path=self.config_path, cache_path=self.cache_path,
            price_prompt_per_1k=self.price_prompt_per_1k,
            price_completion_per_1k=self.price_completion_per_1k,
            **more,
        )

    def build_if(self, needed: bool) -> LLMClient | None:
        """``build()`` when an LLM is ``needed``, else None."""
        return self.build() if needed else None

    def configured(self) -> bool:
        """True when the settings, the environment or a config file name an endpoint (for optional LLM
        parts)."""
        from factscope.llm.config import LLMConfig

        if self.local is not None:
            return True
        try:
            LLMConfig.resolve(self.base_url, self.model, config_path=self.config_path, cache_path="off")
        except ConfigError:
            return False
        return True


@dataclass
class ClientOnce:
    """The client of ``endpoint``, made on the first call and kept (a run's summary reads its usage): the
    picklable function that makes an LLM client which ``engine='ray'`` takes, pickled without the client, so
    that each Ray worker makes its own."""

    endpoint: LLMEndpoint
    client: LLMClient | None = None

    def __call__(self) -> LLMClient:
        if self.client is None:
            self.client = self.endpoint.build()
        return self.client

    def __getstate__(self) -> dict[str, object]:
        return {"endpoint": self.endpoint, "client": None}

    def usage_rows(self) -> list[tuple[str, object]]:
        """Summary-table rows of the client's calls, tokens and cost; none when it was never made."""
        return self.client.usage_rows() if self.client is not None else []
