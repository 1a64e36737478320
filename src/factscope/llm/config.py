"""Where and how to call an LLM: the settings, validated by pydantic, from flags, environment and file.

``LLMConfig(...)`` takes exactly the values it is given (what library code and tests want: nothing leaks in
from the shell). ``LLMConfig.resolve(...)`` layers them as a command does: flags, then the environment
(``FACTSCOPE_LLM_*``, read by pydantic-settings), then the ``[llm]`` table of a TOML config file, then
defaults.
Every bad value, file or missing setting is a ConfigError that names the setting or the file and what to do.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
from pydantic import AliasChoices, Field, ValidationError, ValidationInfo, field_validator
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict

from factscope.core.errors import ConfigError
from factscope.core.files.user_dirs import cache_home, config_home

ENV_PREFIX = "FACTSCOPE_LLM_"
ENVIRONMENT = "the environment"
OPENAI_URL = "https://api.openai.com/v1"
"""The endpoint when no base URL is set anywhere and OPENAI_API_KEY is, as the openai SDK chooses it."""
CACHE_OFF = frozenset({"", "off", "none"})
"""Cache paths that mean "no cache"."""

_RANGES: dict[str, tuple[float, bool, str]] = {
    "concurrency": (1, True, "must be at least 1"),
    "max_retries": (0, True, "must be 0 or more"),
    "timeout": (0, False, "must be positive seconds"),
    "max_tokens": (1, True, "must be at least 1"),
    "backoff_base": (0, True, "must be 0 or more seconds"),
    "backoff_max": (0, True, "must be 0 or more seconds"),
    "price_prompt_per_1k": (0, True, "must be 0 or more"),
    "price_completion_per_1k": (0, True, "must be 0 or more"),
}
"""Numeric settings: (bound, whether the bound itself is allowed, what the message says)."""


def default_config_path() -> Path:
    """``$XDG_CONFIG_HOME/factscope/config.toml`` (``~/.config/factscope/config.toml``)."""
    return config_home() / "config.toml"


def default_cache_path() -> Path:
    """``$XDG_CACHE_HOME/factscope/llm-cache.sqlite`` (``~/.cache/factscope/llm-cache.sqlite``)."""
    return cache_home() / "llm-cache.sqlite"


class LLMConfig(BaseSettings):
    """Where and how to call an LLM.

    ``max_retries`` counts retries after the first attempt; ``backoff_base`` and ``backoff_max`` shape the
    waits between them (see ``factscope.llm.retry``). ``cache_path`` None (or "off") disables the cache.
    Prices (per 1,000 tokens, in whatever currency you give) only feed the cost line of the usage summary.
    """

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_ignore_empty=True, extra="forbid", populate_by_name=True
    )

    base_url: str = Field(validation_alias=AliasChoices(f"{ENV_PREFIX}BASE_URL", "OPENAI_BASE_URL"))
    model: str
    api_key: str | None = Field(
        None, validation_alias=AliasChoices(f"{ENV_PREFIX}API_KEY", "OPENAI_API_KEY"), repr=False
    )
    concurrency: int = 8
    max_retries: int = 4
    timeout: float = 60.0
    temperature: float = 0.0
    max_tokens: int | None = None
    cache_path: Path | None = Field(None, validation_alias=AliasChoices(f"{ENV_PREFIX}CACHE"))
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    price_prompt_per_1k: float | None = None
    price_completion_per_1k: float | None = None

    def __init__(self, *, _origins: Mapping[str, str] | None = None, **values: Any) -> None:
        """Validate ``values``; ``_origins`` (setting -> where it was set) only enriches error messages."""
        try:
            super().__init__(**values)
        except ValidationError as error:
            raise ConfigError(f"bad LLM settings: {_describe(error.errors(), _origins)}") from None

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Direct construction reads only its arguments; ``resolve`` adds the environment and the file."""
        return (init_settings,)

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        try:
            url = httpx.URL(value.strip())
        except httpx.InvalidURL:
            url = httpx.URL("")
        if url.scheme not in {"http", "https"} or not url.host:
            raise ValueError(
                "base_url must be an http:// or https:// URL such as http://localhost:8000/v1 "
                f"(got {value!r})"
            )
        return value.strip()

    @field_validator(*_RANGES)
    @classmethod
    def _in_range(cls, value: float | None, info: ValidationInfo) -> float | None:
        bound, inclusive, rule = _RANGES[str(info.field_name)]
        if value is not None and (value < bound if inclusive else value <= bound):
            raise ValueError(f"{info.field_name} {rule} (got {value:g})")
        return value

    @field_validator("cache_path", mode="before")
    @classmethod
    def _cache_or_off(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().lower() in CACHE_OFF:
            return None
        return Path(value).expanduser() if isinstance(value, (str, Path)) else value

    @classmethod
    def resolve(
        cls,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        config_path: str | Path | None = None,
        cache_path: str | Path | None = None,
        **overrides: Any,
    ) -> LLMConfig:
        """Settings from flags, then the environment, then the config file, then defaults.

        Flags are the arguments (None means "not given"). Environment: ``FACTSCOPE_LLM_<SETTING>`` for any
        setting (e.g. FACTSCOPE_LLM_BASE_URL, FACTSCOPE_LLM_TIMEOUT), the base URL also from OPENAI_BASE_URL and
        the key from OPENAI_API_KEY (as the openai SDK reads them), the cache from FACTSCOPE_LLM_CACHE. With no
        base URL anywhere, OPENAI_API_KEY alone means OpenAI's endpoint (``OPENAI_URL``). Config file: ``config_path`` or ~/.config/factscope/config.toml, table
        ``[llm]`` with any setting. The cache defaults to ~/.cache/factscope/llm-cache.sqlite; "" or "off"
        disables it. Raises ConfigError naming the missing or bad setting and where it came from.
        """
        unknown = sorted(set(overrides) - set(cls.model_fields))
        if unknown:
            raise ConfigError(f"unknown LLM setting(s): {', '.join(unknown)}")
        path = Path(config_path).expanduser() if config_path is not None else default_config_path()
        where = f"[llm] in {path}"
        flags = dict(base_url=base_url, model=model, api_key=api_key, cache_path=cache_path, **overrides)
        layers = {
            where: read_config_file(path, required=config_path is not None),
            ENVIRONMENT: _by_field_name(EnvSettingsSource(cls)()),
            "an argument": {key: value for key, value in flags.items() if value is not None},
        }
        values: dict[str, Any] = {"cache_path": default_cache_path()}
        origins: dict[str, str] = {}
        for origin, layer in layers.items():
            values.update(layer)
            origins.update({key: _env_variable(key) if origin == ENVIRONMENT else origin for key in layer})
        if not values.get("base_url") and os.environ.get("OPENAI_API_KEY"):
            values["base_url"], origins["base_url"] = OPENAI_URL, "OPENAI_API_KEY in the environment"
        if not values.get("base_url"):
            raise MissingEndpoint(
                "no LLM endpoint: pass `base_url` (e.g. http://localhost:8000/v1), set FACTSCOPE_LLM_BASE_URL "
                f"or OPENAI_BASE_URL, set OPENAI_API_KEY for OpenAI's endpoint, or set base_url under {where}"
            )
        if not values.get("model"):
            raise ConfigError(
                f"no LLM model: pass `model`, set FACTSCOPE_LLM_MODEL, or set model under {where}"
            )
        return cls(_origins=origins, **values)


class MissingEndpoint(ConfigError):
    """No base URL in the arguments, the environment or the config file (a front-end may name more ways)."""


def read_config_file(path: Path, *, required: bool) -> dict[str, Any]:
    """The ``[llm]`` table of a TOML config file; {} when ``path`` does not exist and is not ``required``.

    Raises ConfigError naming the file and what to do when it is missing (and required), a folder,
    unreadable, not UTF-8, not TOML, or has settings that do not exist.
    """
    if not path.exists():
        if required:
            raise ConfigError(
                f"LLM config file not found: {path}; pass the path of an existing TOML file "
                f"or leave `config_path` out to use {default_config_path()}"
            )
        return {}
    if path.is_dir():
        raise ConfigError(
            f"the LLM config file {path} is a folder; pass the path of a TOML file "
            f"(e.g. {path / 'config.toml'})"
        )
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as error:
        raise ConfigError(
            f"cannot read the LLM config file {path}: {error.strerror}; check its permissions"
        ) from None
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"the LLM config file {path} is not UTF-8 text (byte {error.start}: {error.reason}); "
            "save it as UTF-8"
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(
            f"the LLM config file {path} is not valid TOML ({error}); fix it: settings go under an "
            '[llm] table, one per line, e.g. base_url = "http://localhost:8000/v1"'
        ) from None
    table = data.get("llm", {})
    if not isinstance(table, dict):
        raise ConfigError(f'{path}: [llm] must be a table of settings, e.g. [llm] then model = "gpt-4o-mini"')
    unknown = sorted(set(table) - set(LLMConfig.model_fields))
    if unknown:
        raise ConfigError(
            f"{path}: unknown setting(s) under [llm]: {', '.join(unknown)}; "
            f"known: {', '.join(LLMConfig.model_fields)}"
        )
    return table


def _by_field_name(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with environment names (FACTSCOPE_LLM_CACHE) turned into setting names (cache_path)."""
    renamed: dict[str, Any] = {}
    for key, value in values.items():
        name = next(
            (
                field
                for field, info in LLMConfig.model_fields.items()
                if isinstance(info.validation_alias, AliasChoices) and key in info.validation_alias.choices
            ),
            key,
        )
        renamed[name] = value
    return renamed


def _env_variable(name: str) -> str:
    """Where the environment set setting ``name``: the first of its variables that is set, for messages."""
    alias = LLMConfig.model_fields[name].validation_alias
    choices = [str(choice) for choice in alias.choices] if isinstance(alias, AliasChoices) else []
    variable = next((choice for choice in choices if os.environ.get(choice)), f"{ENV_PREFIX}{name.upper()}")
    return f"{variable} in {ENVIRONMENT}"


def _describe(errors: list[ErrorDetails], origins: Mapping[str, str] | None) -> str:
    """One part per bad setting: our message for value errors, else pydantic's after the setting's name."""
    lines = []
    for error in errors:
        name = str(error["loc"][0]) if error["loc"] else "settings"
        if error["type"] == "value_error":
            text = str(error.get("ctx", {}).get("error", error["msg"]))
        elif error["type"] == "missing":
            text = f"{name} is required"
        elif error["type"] == "extra_forbidden":
            text = f"unknown setting {name} (known: {', '.join(LLMConfig.model_fields)})"
        else:
            text = f"{name}: {error['msg'][:1].lower()}{error['msg'][1:]} (got {error.get('input')!r})"
        if origins and name in origins:
            text += f" (from {origins[name]})"
        lines.append(text)
    return "; ".join(lines)
