"""The --llm-* options every command shares, and building an LLM client from them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

PANEL = "LLM endpoint (OpenAI-compatible: OpenAI, vLLM, Ollama, llama.cpp, TGI, LiteLLM)"

BaseUrl = Annotated[
    str | None,
    typer.Option("--llm-base-url", help="e.g. http://localhost:8000/v1 [env FACTSCOPE_LLM_BASE_URL]", rich_help_panel=PANEL),
]
Model = Annotated[str | None, typer.Option("--llm-model", help="model name [env FACTSCOPE_LLM_MODEL]", rich_help_panel=PANEL)]
ApiKey = Annotated[
    str | None,
    typer.Option("--llm-api-key", help="[env FACTSCOPE_LLM_API_KEY or OPENAI_API_KEY]", rich_help_panel=PANEL),
]
ConfigFile = Annotated[
    Path | None,
    typer.Option("--llm-config", help="TOML file with an [llm] table (default ~/.config/factscope/config.toml)", rich_help_panel=PANEL),
]
Concurrency = Annotated[int, typer.Option("--llm-concurrency", help="parallel requests", rich_help_panel=PANEL)]
Cache = Annotated[
    str | None,
    typer.Option("--llm-cache", help="SQLite response cache file, or 'off' [env FACTSCOPE_LLM_CACHE]", rich_help_panel=PANEL),
]

PricePrompt = Annotated[
    float | None,
    typer.Option(
        "--llm-price-prompt",
        min=0.0,
        help="price per 1,000 prompt tokens, for the cost line of the summary (e.g. 0.00015)",
        rich_help_panel=PANEL,
    ),
]
PriceCompletion = Annotated[
    float | None,
    typer.Option(
        "--llm-price-completion",
        min=0.0,
        help="price per 1,000 completion tokens, for the cost line of the summary (e.g. 0.0006)",
        rich_help_panel=PANEL,
    ),
]


def build_llm(
    base_url: str | None,
    model: str | None,
    api_key: str | None,
    config: Path | None,
    concurrency: int,
    cache: str | None,
    *,
    price_prompt: float | None = None,
    price_completion: float | None = None,
) -> Any:
    """An LLMClient from the shared options; raises ConfigError naming what is missing.

    Prices (per 1,000 tokens) given here override those of the config file; None keeps the file's.
    """
    from factscope.llm.client import LLMClient, LLMConfig

    settings = LLMConfig.resolve(
        base_url,
        model,
        api_key,
        config_path=config,
        cache_path=cache,
        concurrency=concurrency,
        price_prompt_per_1k=price_prompt,
        price_completion_per_1k=price_completion,
    )
    return LLMClient(settings)


def llm_configured(base_url: str | None, model: str | None, config: Path | None) -> bool:
    """True when flags, environment or a config file name an endpoint (used for optional LLM parts)."""
    from factscope.core.errors import ConfigError
    from factscope.llm.client import LLMConfig

    try:
        LLMConfig.resolve(base_url, model, config_path=config, cache_path="off")
    except ConfigError:
        return False
    return True


def usage_rows(llm: Any) -> list[tuple[str, object]]:
    """Summary-table rows of an LLM client's calls, tokens and cost; none when no LLM was used."""
    return llm.usage_rows() if llm is not None else []
