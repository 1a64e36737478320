"""Every LLM role with a local model run in-process (``llm="local:NAME"``): no server, no HTTP.

``InProcessLLMClient`` is an ``LLMClient`` whose requests are answered by a ``ChatModel`` in this process instead
of an endpoint, so everything else is the client's own: the SQLite cache keyed by model, messages and settings;
the usage counts (prompt and completion tokens) and the summary rows; failed calls kept with their error; and the
roles' strict parsers reading each reply (an unparseable one is kept raw and marked failed, as an endpoint's
is). ``chat_many`` has the calls it is given decoded in batches first (``prepare_chats``). A role's ``reply_format``
enters the request (and so the cache key) and constrains the decoding, unless ``constrained=False``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from factscope.core.errors import BackendError, ConfigError
from factscope.hf.chat_model import ChatModel, Decoding, Generated, shared_chat_model
from factscope.llm.cache import cache_key
from factscope.llm.client import Attempt, CompletionReply, LLMClient, Message
from factscope.llm.config import LLMConfig
from factscope.llm.reply_format import ReplyFormat
from factscope.llm.retry import Delivery

LOCAL_PREFIX = "local:"
"""An ``llm`` setting that starts with it names an in-process model: ``local:PATH_OR_NAME``."""
IN_PROCESS_URL = "http://in-process.invalid/v1"
"""The base URL the client's settings carry: a reserved name that never resolves, since nothing is sent."""
DEFAULT_REPLY_TOKENS = 512
"""Reply tokens when neither the call nor the settings bound them."""
DECODING_PARAMS = frozenset({"max_tokens", "temperature", "top_p", "stop", "seed"})
"""The request parameters an in-process model honours."""


def local_model_name(setting: str) -> str:
    """The model of a ``local:PATH_OR_NAME`` setting; ConfigError for any other setting."""
    if not setting.startswith(LOCAL_PREFIX) or not setting.removeprefix(LOCAL_PREFIX).strip():
        raise ConfigError(
            f"llm must be local:PATH_OR_NAME (a Hugging Face folder, a .gguf file, a hub name in the local cache, "
            f"or local:embedded), got {setting!r}"
        )
    return setting.removeprefix(LOCAL_PREFIX).strip()


class InProcessLLMClient(LLMClient):
    """The LLM roles' client for a model in this process (see the module's description)."""

    def __init__(
        self,
        model: ChatModel,
        config: LLMConfig | None = None,
        *,
        constrained: bool = True,
        seconds: float | None = None,
    ) -> None:
        """``config`` gives the cache, reply limit, temperature and prices (default: no cache, greedy, the calls'
        own limits); its base URL and model are replaced by the model's, and failures are not retried. ``seconds``
        is each call's time budget (None: none): a reply not written by then fails."""
        settings = config or LLMConfig(base_url=IN_PROCESS_URL, model=model.spec)
        settings = settings.model_copy(
            update={
                "base_url": IN_PROCESS_URL,
                "model": f"{LOCAL_PREFIX}{model.spec}",
                "max_retries": 0,
                "concurrency": 1,
            }
        )
        super().__init__(settings)
        self.chat_model = model
        self.constrained = constrained
        self.seconds = seconds
        self._ready: dict[str, tuple[int, dict[str, Any]]] = {}

    @classmethod
    def load(
        cls,
        setting: str,
        config: LLMConfig | None = None,
        *,
        device: str | None = None,
        batch_size: int = 8,
        constrained: bool = True,
        seconds: float | None = None,
    ) -> InProcessLLMClient:
        """The client of ``setting`` (``local:PATH_OR_NAME``, or just the name), its model loaded once per process;
        the rest as for the class and ``ChatModel``."""
        name = local_model_name(setting if setting.startswith(LOCAL_PREFIX) else LOCAL_PREFIX + setting)
        return cls(
            shared_chat_model(name, device, batch_size), config, constrained=constrained, seconds=seconds
        )

    def result_settings(self) -> dict[str, str | float | int | None]:
        """The settings that change replies (for a results file's manifest)."""
        return {
            "model": self.config.model,
            "backend": "in-process",
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
            "constrained": int(self.constrained),
        }

    def usage_rows(self) -> list[tuple[str, object]]:
        """The usage totals as summary rows; "LLM HTTP requests" reads "LLM generations" here."""
        return [
            ("LLM generations" if name == "LLM HTTP requests" else name, value)
            for name, value in super().usage_rows()
        ]

    def prepare_chats(self, requests: dict[str, dict[str, Any]], ready: Callable[[str], None]) -> None:
        """The requests of a ``chat_many`` not in the cache, decoded together in batches; ``ready`` is told the key
        of each as soon as its answer is."""
        waiting = {
            key: request
            for key, request in requests.items()
            if key not in self._ready and (self.cache is None or self.cache.get(key) is None)
        }
        keys = list(waiting)

        def answered(index: int, answer: tuple[int, dict[str, Any]]) -> None:
            self._ready[keys[index]] = answer
            ready(keys[index])

        self._answer(list(waiting.values()), answered)

    def complete(
        self, prompt: str, max_tokens: int = 0, echo: bool = True, logprobs: int = 0, **params: Any
    ) -> CompletionReply:
        """Not offered: an in-process model gives prompt log-probabilities as a causal LM (``HFCausalLM``)."""
        raise BackendError(
            f"an in-process model ({self.config.model}) has no completions endpoint: for log-probabilities "
            "name the same model as the causal LM (lm) instead of 'endpoint'"
        )

    def _chat_request(
        self, messages: Sequence[Message], params: dict[str, Any], reply_format: ReplyFormat | None = None
    ) -> dict[str, Any]:
        request = super()._chat_request(messages, params, reply_format)
        if reply_format is not None and self.constrained:
            request["reply_format"] = reply_format.spec()
        return request

    def _post(self, route: str, request: dict[str, Any]) -> httpx.Response:
        """The model's answer to ``request`` as the HTTP response an endpoint would give (decoded now unless
        ``chat_many`` decoded it already)."""
        self._count(requests=1)
        ready = self._ready.pop(cache_key(route, self.config.model, request), None)
        if ready is None:
            answers: list[tuple[int, dict[str, Any]]] = []
            self._answer([request], lambda _, answer: answers.append(answer))
            ready = answers[0]
        status, body = ready
        return httpx.Response(status, json=body, request=httpx.Request("POST", f"{IN_PROCESS_URL}/{route}"))

    def _read(self, delivery: Delivery) -> Attempt:
        """As an endpoint's, but a refused request says why without an HTTP status (nothing was sent)."""
        response = delivery.response
        if response is not None and response.status_code >= 400:
            return Attempt(error=str(response.json()["error"]["message"]), raw=response.text)
        return super()._read(delivery)

    def _answer(
        self, requests: list[dict[str, Any]], answered: Callable[[int, tuple[int, dict[str, Any]]], None]
    ) -> None:
        """Tell ``answered`` the (status, body) of each chat request as soon as it is decoded (in batches of equal
        decoding settings but their token limits)."""
        groups: dict[str, list[int]] = {}
        for index, request in enumerate(requests):
            unknown = sorted(set(request) - DECODING_PARAMS - {"model", "messages", "reply_format"})
            if unknown:
                answered(index, _error(400, f"an in-process model does not take {', '.join(unknown)}"))
                continue
            settings = {name: request.get(name) for name in DECODING_PARAMS - {"max_tokens"}}
            groups.setdefault(json.dumps(settings, sort_keys=True), []).append(index)
        for settings_text, indices in groups.items():
            settings = json.loads(settings_text)
            stop = settings["stop"]
            limits = [int(requests[i].get("max_tokens") or DEFAULT_REPLY_TOKENS) for i in indices]
            decoding = Decoding(
                max_tokens=max(limits),
                temperature=float(settings["temperature"] or 0.0),
                top_p=float(settings["top_p"] if settings["top_p"] is not None else 1.0),
                stop=(stop,) if isinstance(stop, str) else tuple(stop or ()),
                seed=settings["seed"],
                seconds=self.seconds,
            )
            formats = [
                ReplyFormat.from_spec(requests[i]["reply_format"]) if "reply_format" in requests[i] else None
                for i in indices
            ]

            def told(position: int, reply: Generated, indices: list[int] = indices) -> None:
                answered(indices[position], _body(reply, self.config.model))

            try:
                self.chat_model.generate(
                    [requests[i]["messages"] for i in indices], decoding, formats, told, limits
                )
            except ConfigError as error:
                for position in range(len(indices)):
                    told(position, Generated(None, error=str(error)))


def _body(reply: Generated, model: str) -> tuple[int, dict[str, Any]]:
    """The OpenAI-style chat completion body (and status) of one reply."""
    if reply.error is not None or reply.text is None:
        return _error(400, reply.error or "no reply")
    return 200, {
        "object": "chat.completion",
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.text},
                "finish_reason": reply.finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
    }


def _error(status: int, message: str) -> tuple[int, dict[str, Any]]:
    return status, {"error": {"message": message}}
