"""An OpenAI-compatible LLM client: chat and completions with bounded concurrency, retries and a cache.

It talks to any server that speaks the OpenAI HTTP API (OpenAI, vLLM, Ollama, llama.cpp server, TGI, a LiteLLM
proxy). Settings come from flags, the environment or a TOML config file (``LLMConfig.resolve``). Calls that
still fail after the retries come back as replies marked ``failed`` with the error, never as exceptions, so
one bad call does not sink a batch; only settings that make every call fail (a rejected key, an unknown
route or model) raise BackendError.
"""

from __future__ import annotations

import email.utils
import json
import os
import random
import threading
import time
import tomllib
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Self

import httpx

from factscope.core.errors import BackendError, ConfigError
from factscope.llm.cache import ResponseCache, cache_key

Message = dict[str, str]

CHAT_ROUTE = "chat/completions"
COMPLETIONS_ROUTE = "completions"

RETRYABLE_STATUS = frozenset({408, 409, 429})
"""HTTP statuses worth retrying besides every 5xx: timeouts, conflicts and rate limits."""

FATAL_STATUS = frozenset({401, 403, 404})
"""HTTP statuses that mean the settings are wrong (key, base URL or model), so every call would fail."""


def default_config_path() -> Path:
    """``$XDG_CONFIG_HOME/factscope/config.toml`` (``~/.config/factscope/config.toml``)."""
    root = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(root) / "factscope" / "config.toml"


def default_cache_path() -> Path:
    """``$XDG_CACHE_HOME/factscope/llm-cache.sqlite`` (``~/.cache/factscope/llm-cache.sqlite``)."""
    root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root) / "factscope" / "llm-cache.sqlite"


@dataclass
class LLMConfig:
    """Where and how to call an LLM.

    ``max_retries`` counts retries after the first attempt. Backoff before retry n (0-based) is
    ``min(backoff_max, backoff_base * 2**n)`` scaled by a random factor in [0.5, 1]; a Retry-After header
    replaces it (capped at ``backoff_max``). ``cache_path`` None disables the cache. Prices (per 1,000
    tokens, in whatever currency you give) only feed the cost line of the usage summary.
    """

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 60.0
    max_retries: int = 4
    concurrency: int = 8
    temperature: float = 0.0
    max_tokens: int | None = None
    cache_path: Path | None = None
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    price_prompt_per_1k: float | None = None
    price_completion_per_1k: float | None = None

    def __post_init__(self) -> None:
        problems = []
        if self.concurrency < 1:
            problems.append(f"concurrency must be at least 1 (got {self.concurrency})")
        if self.max_retries < 0:
            problems.append(f"max_retries must be 0 or more (got {self.max_retries})")
        if self.timeout <= 0:
            problems.append(f"timeout must be positive seconds (got {self.timeout})")
        if problems:
            raise ConfigError("bad LLM settings: " + "; ".join(problems))
        if self.cache_path is not None:
            self.cache_path = Path(self.cache_path).expanduser()

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

        Environment: FACTSCOPE_LLM_BASE_URL, FACTSCOPE_LLM_MODEL, FACTSCOPE_LLM_API_KEY (or OPENAI_API_KEY),
        FACTSCOPE_LLM_CACHE. Config file: ``config_path`` or ~/.config/factscope/config.toml, table ``[llm]``
        with any LLMConfig field. A cache path of "" or "off" disables the cache. Raises ConfigError naming
        the missing setting.
        """
        file_settings = _read_config_file(config_path)
        known = {item.name for item in fields(cls)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ConfigError(f"unknown LLM setting(s): {', '.join(unknown)}")

        def pick(flag: Any, env_names: tuple[str, ...], key: str) -> Any:
            if flag is not None:
                return flag
            for name in env_names:
                if os.environ.get(name):
                    return os.environ[name]
            return file_settings.get(key)

        settings: dict[str, Any] = {
            key: value for key, value in file_settings.items() if key not in {"base_url", "model", "api_key"}
        }
        settings.update({key: value for key, value in overrides.items() if value is not None})
        settings["base_url"] = pick(base_url, ("FACTSCOPE_LLM_BASE_URL",), "base_url")
        settings["model"] = pick(model, ("FACTSCOPE_LLM_MODEL",), "model")
        settings["api_key"] = pick(api_key, ("FACTSCOPE_LLM_API_KEY", "OPENAI_API_KEY"), "api_key")
        cache = pick(cache_path, ("FACTSCOPE_LLM_CACHE",), "cache_path")
        where = f"[llm] in {config_path or default_config_path()}"
        if not settings["base_url"]:
            raise ConfigError(
                "no LLM endpoint: pass --llm-base-url (e.g. https://api.openai.com/v1 or http://localhost:8000/v1), "
                f"set FACTSCOPE_LLM_BASE_URL, or set base_url under {where}"
            )
        if not settings["model"]:
            raise ConfigError(
                f"no LLM model: pass --llm-model, set FACTSCOPE_LLM_MODEL, or set model under {where}"
            )
        if cache is None:
            settings["cache_path"] = default_cache_path()
        elif str(cache).strip().lower() in {"", "off", "none"}:
            settings["cache_path"] = None
        else:
            settings["cache_path"] = Path(cache).expanduser()
        try:
            return cls(**settings)
        except TypeError as error:
            raise ConfigError(f"bad LLM settings in {where}: {error}") from error


def _read_config_file(config_path: str | Path | None) -> dict[str, Any]:
    """The ``[llm]`` table of the config file; {} when the default file does not exist."""
    path = Path(config_path).expanduser() if config_path is not None else default_config_path()
    if not path.exists():
        if config_path is not None:
            raise ConfigError(f"LLM config file not found: {path}")
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"cannot read the LLM config file {path}: {error}") from error
    table = data.get("llm", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [llm] must be a table of settings")
    known = {item.name for item in fields(LLMConfig)}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s) under [llm]: {', '.join(unknown)}")
    return table


@dataclass
class ChatReply:
    """One chat call's outcome: the assistant text, or ``failed=True`` with the error (and raw body if any)."""

    text: str | None
    failed: bool = False
    error: str | None = None
    cached: bool = False
    usage: dict[str, int] = field(default_factory=dict)
    raw: str | None = None
    attempts: int = 0
    finish_reason: str | None = None

    @property
    def truncated(self) -> bool:
        """True when the server stopped the reply at the token limit (finish_reason "length")."""
        return self.finish_reason == "length"


@dataclass
class CompletionReply:
    """One /completions call's outcome; with ``echo=True`` the prompt's tokens and their log-probabilities."""

    text: str | None
    tokens: list[str] = field(default_factory=list)
    token_logprobs: list[float | None] = field(default_factory=list)
    text_offset: list[int] = field(default_factory=list)
    failed: bool = False
    error: str | None = None
    cached: bool = False
    usage: dict[str, int] = field(default_factory=dict)
    raw: str | None = None
    attempts: int = 0


@dataclass
class LLMUsage:
    """Running totals for a run summary. ``calls`` counts chat/complete calls, cached ones included;
    ``requests`` counts HTTP requests sent (retries included); tokens count only uncached replies."""

    calls: int = 0
    cache_hits: int = 0
    requests: int = 0
    retries: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def cost(self, price_prompt_per_1k: float | None, price_completion_per_1k: float | None) -> float | None:
        """Tokens times the given prices per 1,000 tokens; None when no price is given."""
        if price_prompt_per_1k is None and price_completion_per_1k is None:
            return None
        return self.prompt_tokens / 1000 * (price_prompt_per_1k or 0.0) + self.completion_tokens / 1000 * (
            price_completion_per_1k or 0.0
        )


@dataclass
class _Attempt:
    """One HTTP request's result: a decoded body, or an error and whether (and when) to retry."""

    body: dict[str, Any] | None = None
    error: str | None = None
    retry: bool = False
    wait: float | None = None
    raw: str | None = None


@dataclass
class _Outcome:
    """One call's result after retries: the value read from the body, or the final error."""

    body: dict[str, Any] = field(default_factory=dict)
    value: Any = None
    cached: bool = False
    error: str | None = None
    raw: str | None = None
    attempts: int = 0


class LLMClient:
    """Calls an OpenAI-compatible endpoint; thread-safe, at most ``config.concurrency`` requests at a time."""

    def __init__(self, config: LLMConfig, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self.usage = LLMUsage()
        self.cache = ResponseCache(config.cache_path) if config.cache_path is not None else None
        headers = {"Content-Type": "application/json"}
        if config.api_key:
            headers["Authorization"] = f"Bearer {config.api_key}"
        self._http = httpx.Client(
            base_url=config.base_url.rstrip("/") + "/",
            headers=headers,
            timeout=httpx.Timeout(config.timeout),
            limits=httpx.Limits(max_connections=max(1, config.concurrency)),
        )
        self._slots = threading.BoundedSemaphore(max(1, config.concurrency))
        self._lock = threading.Lock()
        self._sleep = sleep

    @property
    def name(self) -> str:
        """The model name, as shown in summaries."""
        return self.config.model

    def chat(self, messages: Sequence[Message], **params: Any) -> ChatReply:
        """One chat completion. ``params`` (max_tokens, stop, seed, ...) go into the request body."""
        outcome = self._call(CHAT_ROUTE, self._chat_request(messages, params), _chat_text)
        if outcome.error is not None:
            return ChatReply(
                None, failed=True, error=outcome.error, raw=outcome.raw, attempts=outcome.attempts
            )
        choice = outcome.body["choices"][0]
        return ChatReply(
            outcome.value,
            cached=outcome.cached,
            usage=_usage_of(outcome.body),
            attempts=outcome.attempts,
            finish_reason=choice.get("finish_reason") if isinstance(choice, dict) else None,
        )

    def chat_many(
        self,
        conversations: Sequence[Sequence[Message]],
        *,
        on_done: Callable[[], None] | None = None,
        **params: Any,
    ) -> list[ChatReply]:
        """Many chat calls in parallel (at most ``concurrency`` at once), identical ones sent once.

        Returns one reply per conversation, in order; failures are replies with ``failed=True``.
        ``on_done`` is called once per conversation as its reply arrives (e.g. to advance a progress bar).
        """
        keys = [
            cache_key(CHAT_ROUTE, self.config.model, self._chat_request(c, params)) for c in conversations
        ]
        first_index: dict[str, int] = {}
        for index, key in enumerate(keys):
            first_index.setdefault(key, index)
        unique = list(first_index.values())
        copies = Counter(keys)
        results: dict[str, ChatReply] = {}

        def run(index: int) -> None:
            reply = self.chat(conversations[index], **params)
            results[keys[index]] = reply
            if on_done is not None:
                for _ in range(copies[keys[index]]):
                    on_done()

        with ThreadPoolExecutor(max_workers=max(1, self.config.concurrency)) as pool:
            futures = [pool.submit(run, index) for index in unique]
            try:
                for future in futures:
                    future.result()
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)  # a fatal error: send no more requests
                raise
        return [results[key] for key in keys]

    def complete(
        self, prompt: str, max_tokens: int = 0, echo: bool = True, logprobs: int = 0, **params: Any
    ) -> CompletionReply:
        """A /completions call; with the defaults it scores the prompt: its tokens and their log-probabilities.

        Servers differ on ``max_tokens=0`` (OpenAI's legacy API and vLLM accept it); pass 1 if yours refuses.
        """
        request = {
            "model": self.config.model,
            "prompt": prompt,
            "max_tokens": max_tokens,
            "echo": echo,
            "logprobs": logprobs,
            "temperature": params.pop("temperature", self.config.temperature),
            **params,
        }
        outcome = self._call(COMPLETIONS_ROUTE, request, _completion_logprobs)
        if outcome.error is not None:
            return CompletionReply(
                None, failed=True, error=outcome.error, raw=outcome.raw, attempts=outcome.attempts
            )
        text, tokens, token_logprobs, text_offset = outcome.value
        return CompletionReply(
            text,
            tokens=tokens,
            token_logprobs=token_logprobs,
            text_offset=text_offset,
            cached=outcome.cached,
            usage=_usage_of(outcome.body),
            attempts=outcome.attempts,
        )

    def usage_rows(self) -> list[tuple[str, object]]:
        """The usage totals as (name, value) rows for a summary table, with cost when prices are set."""
        usage = self.usage
        rows: list[tuple[str, object]] = [
            ("LLM model", self.config.model),
            ("LLM calls", usage.calls),
            ("LLM cache hits", usage.cache_hits),
            ("LLM HTTP requests", usage.requests),
            ("LLM retries", usage.retries),
            ("LLM failed calls", usage.failures),
            ("LLM prompt tokens", usage.prompt_tokens),
            ("LLM completion tokens", usage.completion_tokens),
        ]
        cost = usage.cost(self.config.price_prompt_per_1k, self.config.price_completion_per_1k)
        if cost is not None:
            rows.append(("LLM cost", round(cost, 6)))
        return rows

    def close(self) -> None:
        """Close the HTTP connections and the cache."""
        self._http.close()
        if self.cache is not None:
            self.cache.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _chat_request(self, messages: Sequence[Message], params: dict[str, Any]) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.config.model,
            "messages": [dict(message) for message in messages],
            "temperature": params.get("temperature", self.config.temperature),
        }
        if self.config.max_tokens is not None:
            request["max_tokens"] = self.config.max_tokens
        request.update({key: value for key, value in params.items() if key != "temperature"})
        return request

    def _count(self, **amounts: int) -> None:
        with self._lock:
            for name, amount in amounts.items():
                setattr(self.usage, name, getattr(self.usage, name) + amount)

    def _call(self, route: str, request: dict[str, Any], read: Callable[[dict[str, Any]], Any]) -> _Outcome:
        """Answer ``request`` from the cache or the endpoint; ``read`` extracts the value from a body and
        raises ValueError or TypeError when the body lacks it. Only bodies that ``read`` accepts are cached."""
        self._count(calls=1)
        key = cache_key(route, self.config.model, request)
        if self.cache is not None:
            cached = self.cache.get(key)
            if cached is not None:
                self._count(cache_hits=1)
                return _Outcome(body=cached, value=read(cached), cached=True)
        attempts = 0
        while True:
            attempts += 1
            with self._slots:
                attempt = self._request(route, request)
            if attempt.body is not None:
                usage = _usage_of(attempt.body)
                self._count(
                    prompt_tokens=usage.get("prompt_tokens", 0),
                    completion_tokens=usage.get("completion_tokens", 0),
                )
                try:
                    value = read(attempt.body)
                except (ValueError, TypeError) as error:
                    attempt = _Attempt(error=f"unexpected reply: {error}", raw=json.dumps(attempt.body))
                else:
                    if self.cache is not None:
                        self.cache.put(key, attempt.body)
                    return _Outcome(body=attempt.body, value=value, attempts=attempts)
            if not attempt.retry or attempts > self.config.max_retries:
                self._count(failures=1)
                tried = f" (after {attempts} attempts)" if attempts > 1 else ""
                return _Outcome(error=f"{attempt.error}{tried}", raw=attempt.raw, attempts=attempts)
            self._count(retries=1)
            self._sleep(self._backoff(attempts - 1, attempt.wait))

    def _backoff(self, retry: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.config.backoff_max)
        ceiling = min(self.config.backoff_max, self.config.backoff_base * 2**retry)
        return ceiling * random.uniform(0.5, 1.0)

    def _request(self, route: str, request: dict[str, Any]) -> _Attempt:
        self._count(requests=1)
        try:
            response = self._http.post(route, json=request)
        except httpx.TimeoutException as error:
            return _Attempt(
                error=f"timed out after {self.config.timeout:g}s ({type(error).__name__})", retry=True
            )
        except httpx.TransportError as error:
            return _Attempt(error=f"cannot reach {self.config.base_url}: {error}", retry=True)
        status = response.status_code
        if status in FATAL_STATUS:
            raise BackendError(
                f"{self.config.base_url} answered {status} for model {self.config.model!r}: "
                f"{_error_message(response)}; check the base URL, the model name and the API key "
                "(--llm-base-url / --llm-model / FACTSCOPE_LLM_API_KEY)"
            )
        if status >= 400:
            retry = status >= 500 or status in RETRYABLE_STATUS
            return _Attempt(
                error=f"HTTP {status}: {_error_message(response)}",
                retry=retry,
                wait=_retry_after(response),
                raw=response.text,
            )
        try:
            body = response.json()
        except ValueError:
            return _Attempt(error="the reply body is not JSON", raw=response.text)
        if not isinstance(body, dict):
            return _Attempt(error="the reply body is not a JSON object", raw=response.text)
        return _Attempt(body=body)


def _chat_text(body: dict[str, Any]) -> str:
    try:
        text = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as error:
        raise ValueError(f"no choices[0].message.content ({error!r})") from error
    if not isinstance(text, str):
        raise TypeError("choices[0].message.content is not a string")
    return text


def _completion_logprobs(body: dict[str, Any]) -> tuple[str | None, list[str], list[float | None], list[int]]:
    try:
        choice = body["choices"][0]
        block = choice.get("logprobs") or {}
        tokens = [str(token) for token in block.get("tokens") or []]
        logprobs = [None if value is None else float(value) for value in block.get("token_logprobs") or []]
        offsets = [int(value) for value in block.get("text_offset") or []]
    except (KeyError, IndexError, TypeError, AttributeError) as error:
        raise ValueError(f"no choices[0] with text and logprobs ({error!r})") from error
    if len(tokens) != len(logprobs) or (offsets and len(offsets) != len(tokens)):
        raise ValueError("logprobs.tokens, token_logprobs and text_offset differ in length")
    return choice.get("text"), tokens, logprobs, offsets


def _usage_of(body: dict[str, Any]) -> dict[str, int]:
    usage = body.get("usage") or {}
    if not isinstance(usage, dict):
        return {}
    return {key: int(value) for key, value in usage.items() if isinstance(value, (int, float))}


def _error_message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200] or response.reason_phrase
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("message", body["error"]))
    return str(body)[:200]


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds from a Retry-After header (a number or an HTTP date), or None."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())
