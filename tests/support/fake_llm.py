"""A fake OpenAI-compatible server on 127.0.0.1 for tests that need an LLM.

It answers POST ``/v1/chat/completions`` and ``/v1/completions`` on a random free port. Each request takes the
next item of the scripted queue; when the queue is empty, ``responder(request_json)`` is called if set, otherwise
the server answers 500 with a message saying no reply was scripted (so a test that under-scripts fails loudly).

A reply item is one of:

- a plain string: the assistant message (chat) or the completion text (completions);
- ``Fail(status, message="...", retry_after=None)``: an HTTP error with an OpenAI-style error body and an
  optional Retry-After header;
- ``Hang(seconds, then="...")``: waits ``seconds`` (longer than the client's timeout) and then answers ``then``;
- ``Raw(body, status=200)``: the body as given, e.g. not JSON at all;
- ``Logprobs(tokens, token_logprobs, text_offset=None)``: a /v1/completions reply that echoes the prompt as these
  tokens with these log-probabilities (the first is usually None) and, if given, these character offsets.

Usage::

    with FakeLLMServer() as server:          # or the `fake_llm` fixture from tests/conftest.py
        server.script(["Entailment", Fail(429, retry_after=0), "Neutral"])
        client = LLMClient(LLMConfig(base_url=server.base_url, model="fake"))
        ...
        assert len(server.requests) == 3      # each request: {"path": ..., "json": ...}

Token usage in replies is the whitespace word count of the prompt and of the reply, so tests can check totals.
``delay`` (seconds) slows every reply; ``max_in_flight`` records the most requests served at once.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from loopback import LoopbackHTTPServer, QuietHandler


@dataclass(frozen=True)
class Fail:
    """An HTTP error reply."""

    status: int
    message: str = "scripted failure"
    retry_after: float | None = None


@dataclass(frozen=True)
class Hang:
    """A reply that arrives only after ``seconds``."""

    seconds: float
    then: str = "late reply"


@dataclass(frozen=True)
class Raw:
    """A reply body sent verbatim."""

    body: str
    status: int = 200


@dataclass(frozen=True)
class Logprobs:
    """A /v1/completions reply carrying the prompt's tokens and their log-probabilities."""

    tokens: list[str]
    token_logprobs: list[float | None]
    text: str | None = None
    text_offset: list[int] | None = None


Reply = str | Fail | Hang | Raw | Logprobs


@dataclass
class _State:
    queue: deque = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0


class FakeLLMServer(LoopbackHTTPServer):
    """An OpenAI-compatible HTTP server with scripted replies (see the module docstring)."""

    def __init__(self) -> None:
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        self.delay: float = 0.0
        self._state = _State()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        super().__init__()

    @property
    def base_url(self) -> str:
        """The API root to give a client, e.g. ``http://127.0.0.1:PORT/v1``."""
        return f"{self.origin}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every request received so far: ``{"path": str, "json": dict | None, "headers": dict}``."""
        with self._lock:
            return list(self._state.requests)

    @property
    def max_in_flight(self) -> int:
        """The largest number of requests that were being served at the same time."""
        return self._state.max_in_flight

    def script(self, replies: Iterable[Reply]) -> None:
        """Append replies to the queue; each request takes the next one."""
        with self._lock:
            self._state.queue.extend(replies)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        super().__exit__(*exc)

    def _next_reply(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            if self._state.queue:
                return self._state.queue.popleft()
        if self.responder is not None:
            try:
                return self.responder(request)
            except Exception as error:  # noqa: BLE001 - a broken responder becomes a 500 naming the error
                return Fail(500, f"FakeLLMServer responder raised {error!r}")
        return Fail(500, "FakeLLMServer: no scripted reply left and no responder set")

    def handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8")
                try:
                    payload = json.loads(body)
                except json.JSONDecodeError:
                    payload = None
                with server._lock:
                    server._state.requests.append(
                        {"path": self.path, "json": payload, "headers": dict(self.headers.items())}
                    )
                    server._state.in_flight += 1
                    server._state.max_in_flight = max(server._state.max_in_flight, server._state.in_flight)
                try:
                    if server.delay:
                        server._stop.wait(server.delay)
                    reply = server._next_reply(payload or {})
                    if isinstance(reply, Hang):
                        server._stop.wait(reply.seconds)
                        reply = reply.then
                finally:
                    with server._lock:  # before replying, so a client's next request never overlaps this one
                        server._state.in_flight -= 1
                try:
                    self._send(reply, payload or {})
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _send(self, reply: Reply, request: dict[str, Any]) -> None:
                if isinstance(reply, Fail):
                    body = json.dumps({"error": {"message": reply.message, "type": "fake_error"}})
                    headers = {} if reply.retry_after is None else {"Retry-After": f"{reply.retry_after:g}"}
                    self._write(reply.status, body, headers)
                elif isinstance(reply, Raw):
                    self._write(reply.status, reply.body, {})
                elif self.path.rstrip("/").endswith("/chat/completions"):
                    self._write(200, json.dumps(_chat_body(request, str(reply))), {})
                elif self.path.rstrip("/").endswith("/completions"):
                    self._write(200, json.dumps(_completion_body(request, reply)), {})
                else:
                    self._write(404, json.dumps({"error": {"message": f"no route {self.path}"}}), {})

            def _write(self, status: int, body: str, headers: dict[str, str]) -> None:
                data = body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _words(text: str) -> int:
    return len(text.split())


def _chat_body(request: dict[str, Any], text: str) -> dict[str, Any]:
    prompt = " ".join(str(message.get("content", "")) for message in request.get("messages", []))
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": request.get("model", "fake"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": _words(prompt),
            "completion_tokens": _words(text),
            "total_tokens": _words(prompt) + _words(text),
        },
    }


def _completion_body(request: dict[str, Any], reply: str | Logprobs) -> dict[str, Any]:
    prompt = str(request.get("prompt", ""))
    if isinstance(reply, Logprobs):
        text = reply.text if reply.text is not None else "".join(reply.tokens)
        logprobs: dict[str, Any] | None = {"tokens": reply.tokens, "token_logprobs": reply.token_logprobs}
        if reply.text_offset is not None:
            logprobs["text_offset"] = reply.text_offset
    else:
        text, logprobs = reply, None
    return {
        "id": "cmpl-fake",
        "object": "text_completion",
        "model": request.get("model", "fake"),
        "choices": [{"index": 0, "text": text, "logprobs": logprobs, "finish_reason": "length"}],
        "usage": {"prompt_tokens": _words(prompt), "completion_tokens": 0, "total_tokens": _words(prompt)},
    }
