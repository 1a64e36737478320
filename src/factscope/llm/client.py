"""An OpenAI-compatible LLM client: chat and completions with bounded concurrency, retries and a cache.

It talks to any server that speaks the OpenAI HTTP API (OpenAI, vLLM, Ollama, llama.cpp server, TGI, a LiteLLM
proxy). Settings come from flags, the environment or a TOML config file (``LLMConfig.resolve`` in
``factscope.llm.config``); transient failures are retried by ``factscope.llm.retry``. Calls that still fail
come back as replies marked ``failed`` with the error and the raw body, never as exceptions, because a batch
of thousands of calls must keep its good replies and record each bad one next to its input (an SDK's
exceptions would abort the batch or lose the raw text); only settings that make every call fail (a rejected
key, an unknown route or model) raise BackendError.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Self

import httpx

from factscope.core.errors import BackendError
from factscope.llm.cache import ResponseCache, cache_key
from factscope.llm.config import LLMConfig
from factscope.llm.reply_format import ReplyFormat
from factscope.llm.retry import Delivery, RetryPolicy

__all__ = ["ChatReply", "CompletionReply", "LLMClient", "LLMConfig", "LLMReply", "LLMUsage", "Message"]

Message = dict[str, str]

CHAT_ROUTE = "chat/completions"
COMPLETIONS_ROUTE = "completions"

FATAL_STATUS = frozenset({401, 403, 404})
"""HTTP statuses that mean the settings are wrong (key, base URL or model), so every call would fail."""


@dataclass
class LLMReply:
    """One call's outcome: the text, or ``failed=True`` with the error (and raw body if any); whether the cache
    gave it, the server's token usage and the attempts it took."""

    text: str | None
    failed: bool = False
    error: str | None = None
    cached: bool = False
    usage: dict[str, int] = field(default_factory=dict)
    raw: str | None = None
    attempts: int = 0


@dataclass
class ChatReply(LLMReply):
    """One chat call's outcome (``LLMReply``): the assistant text, and why the server stopped."""

    finish_reason: str | None = None

    @property
    def truncated(self) -> bool:
        """True when the server stopped the reply at the token limit (finish_reason "length")."""
        return self.finish_reason == "length"


@dataclass
class CompletionReply(LLMReply):
    """One /completions call's outcome (``LLMReply``); with ``echo=True`` the prompt's tokens and their
    log-probabilities."""

    tokens: list[str] = field(default_factory=list)
    token_logprobs: list[float | None] = field(default_factory=list)
    text_offset: list[int] = field(default_factory=list)


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
class Attempt:
    """The final HTTP result of a call: a decoded body, or an error with the raw body if any."""

    body: dict[str, Any] | None = None
    error: str | None = None
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

    def __init__(
        self,
        config: LLMConfig,
        *,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        """``transport`` sends the HTTP requests (default: httpx's own connections; see ``AsyncLLMClient``)."""
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
            transport=transport,
        )
        self._slots = threading.BoundedSemaphore(max(1, config.concurrency))
        self._lock = threading.Lock()
        self.retry = RetryPolicy(config.max_retries, config.backoff_base, config.backoff_max, sleep)

    @property
    def name(self) -> str:
        """The model name, as shown in summaries."""
        return self.config.model

    def result_settings(self) -> dict[str, str | float | int | None]:
        """The settings that change replies (for a results file's manifest; never the key)."""
        return {
            "base_url": self.config.base_url,
            "model": self.config.model,
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
        }

    def chat(
        self, messages: Sequence[Message], *, reply_format: ReplyFormat | None = None, **params: Any
    ) -> ChatReply:
        """One chat completion. ``params`` (max_tokens, stop, seed, ...) go into the request body;
        ``reply_format`` is what the caller's parser expects (an endpoint is not sent it; an in-process model
        decodes to it)."""
        outcome = self._call(CHAT_ROUTE, self._chat_request(messages, params, reply_format), _chat_text)
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
        reply_format: ReplyFormat | Sequence[ReplyFormat | None] | None = None,
        max_tokens: int | Sequence[int] | None = None,
        **params: Any,
    ) -> list[ChatReply]:
        """Many chat calls in parallel (at most ``concurrency`` at once), identical ones sent once.

        Returns one reply per conversation, in order; failures are replies with ``failed=True``.
        ``on_done`` is called once per conversation as its reply arrives (e.g. to advance a progress bar);
        ``reply_format`` is as for ``chat``, and it and ``max_tokens`` may be one per conversation.
        """
        formats = _each(reply_format, len(conversations), "reply_format")
        limits = _each(max_tokens, len(conversations), "max_tokens")

        def call_params(index: int) -> dict[str, Any]:
            return params if limits[index] is None else {**params, "max_tokens": limits[index]}

        requests = [
            self._chat_request(c, call_params(index), formats[index]) for index, c in enumerate(conversations)
        ]
        keys = [cache_key(CHAT_ROUTE, self.config.model, request) for request in requests]
        first_index: dict[str, int] = {}
        for index, key in enumerate(keys):
            first_index.setdefault(key, index)
        copies = Counter(keys)
        results: dict[str, ChatReply] = {}

        def run(index: int) -> None:
            reply = self.chat(conversations[index], reply_format=formats[index], **call_params(index))
            results[keys[index]] = reply
            if on_done is not None:
                for _ in range(copies[keys[index]]):
                    on_done()

        self.prepare_chats(dict(zip(keys, requests)), lambda key: run(first_index[key]))
        unique = [index for key, index in first_index.items() if key not in results]
        with ThreadPoolExecutor(max_workers=max(1, self.config.concurrency)) as pool:
            futures = [pool.submit(run, index) for index in unique]
            try:
                for future in futures:
                    future.result()
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)  # a fatal error: send no more requests
                raise
        return [results[key] for key in keys]

    def prepare_chats(self, requests: dict[str, dict[str, Any]], ready: Callable[[str], None]) -> None:
        """What ``chat_many`` does with its distinct requests (by cache key) before it sends the rest one by one;
        ``ready`` sends one at once (by its key). Nothing for an endpoint."""

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

    def _chat_request(
        self, messages: Sequence[Message], params: dict[str, Any], reply_format: ReplyFormat | None = None
    ) -> dict[str, Any]:
        """The request body of a chat call (an endpoint is not sent ``reply_format``)."""
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
        delivery = self.retry.send(lambda: self._post(route, request))
        self._count(retries=delivery.attempts - 1)
        attempt = self._read(delivery)
        body = attempt.body
        if body is not None:
            usage = _usage_of(body)
            self._count(
                prompt_tokens=usage.get("prompt_tokens", 0),
                completion_tokens=usage.get("completion_tokens", 0),
            )
            try:
                value = read(body)
            except (ValueError, TypeError) as error:
                attempt = Attempt(error=f"unexpected reply: {error}", raw=json.dumps(body))
            else:
                if self.cache is not None:
                    self.cache.put(key, body)
                return _Outcome(body=body, value=value, attempts=delivery.attempts)
        self._count(failures=1)
        tried = f" (after {delivery.attempts} attempts)" if delivery.attempts > 1 else ""
        return _Outcome(error=f"{attempt.error}{tried}", raw=attempt.raw, attempts=delivery.attempts)

    def _post(self, route: str, request: dict[str, Any]) -> httpx.Response:
        """One HTTP request, holding one of the ``concurrency`` slots while it is in flight."""
        with self._slots:
            self._count(requests=1)
            return self._http.post(route, json=request)

    def _read(self, delivery: Delivery) -> Attempt:
        """The body of the final response, or what went wrong; raises BackendError for wrong settings."""
        if isinstance(delivery.error, httpx.TimeoutException):
            kind = type(delivery.error).__name__
            return Attempt(error=f"timed out after {self.config.timeout:g}s ({kind})")
        if delivery.error is not None or delivery.response is None:
            return Attempt(error=f"cannot reach {self.config.base_url}: {delivery.error}")
        response = delivery.response
        status = response.status_code
        if status in FATAL_STATUS:
            raise BackendError(
                f"{self.config.base_url} answered {status} for model {self.config.model!r}: "
                f"{_error_message(response)}; check the endpoint's base URL, "
                "model name and API key (FACTSCOPE_LLM_API_KEY)"
            )
        if status >= 400:
            return Attempt(error=f"HTTP {status}: {_error_message(response)}", raw=response.text)
        try:
            body = response.json()
        except ValueError:
            return Attempt(error="the reply body is not JSON", raw=response.text)
        if not isinstance(body, dict):
            return Attempt(error="the reply body is not a JSON object", raw=response.text)
        return Attempt(body=body)


def _each(value: Any, count: int, name: str) -> list[Any]:
    """``value`` once per conversation: as it is when a list or tuple of ``count``, else repeated."""
    if isinstance(value, (list, tuple)):
        if len(value) != count:
            raise ValueError(f"{count} conversations but {len(value)} values of `{name}`")
        return list(value)
    return [value] * count


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
