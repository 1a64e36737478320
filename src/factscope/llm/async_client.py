"""The LLM client for asyncio code: the calls, cache, retries and accounting of ``LLMClient``, with every HTTP request
awaited on the event loop the client was made in.

``achat``, ``achat_many`` and ``acomplete`` are coroutines: the blocking parts of a call (the SQLite cache, the
waits between retries) run in a worker thread and the request itself is sent by httpx's async transport on the
loop. The synchronous methods work from any other thread, which is how the components of a run started by
``factscope.acheck`` (in a worker thread) reach the endpoint; on the loop's own thread they raise instead of
blocking it. At most ``config.concurrency`` requests are in flight at once, across every run sharing the client.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from factscope.llm.client import ChatReply, CompletionReply, LLMClient, Message
from factscope.llm.config import LLMConfig
from factscope.llm.reply_format import ReplyFormat

__all__ = ["AsyncLLMClient"]


class _LoopTransport(httpx.BaseTransport):
    """Sends a synchronous client's requests through an async transport on an event loop, from other threads."""

    def __init__(self, loop: asyncio.AbstractEventLoop, transport: httpx.AsyncBaseTransport) -> None:
        self.loop = loop
        self.transport = transport

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            raise RuntimeError(
                "a synchronous LLM call on the event loop's own thread would block it: "
                "await achat / achat_many / acomplete instead"
            )
        if not self.loop.is_running():
            raise RuntimeError(
                "the event loop this AsyncLLMClient was made in is not running; make the client in the running loop"
            )
        return asyncio.run_coroutine_threadsafe(self._send(request), self.loop).result()

    async def _send(self, request: httpx.Request) -> httpx.Response:
        response = await self.transport.handle_async_request(request)
        try:
            body = b"".join([chunk async for chunk in response.aiter_raw()])
        finally:
            await response.aclose()
        return httpx.Response(response.status_code, headers=response.headers, content=body, request=request)


class AsyncLLMClient(LLMClient):
    """An ``LLMClient`` for asyncio code (see the module's description); make it inside the running event loop,
    e.g. in a server's startup, and ``await client.aclose()`` when done."""

    def __init__(self, config: LLMConfig, *, sleep: Callable[[float], None] = time.sleep) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError as error:
            raise RuntimeError(
                "an AsyncLLMClient sends its requests on the event loop it is made in: make it inside a coroutine "
                "(use LLMClient outside asyncio)"
            ) from error
        self._loop_transport = _LoopTransport(
            loop, httpx.AsyncHTTPTransport(limits=httpx.Limits(max_connections=max(1, config.concurrency)))
        )
        super().__init__(config, sleep=sleep, transport=self._loop_transport)

    async def achat(
        self, messages: Sequence[Message], *, reply_format: ReplyFormat | None = None, **params: Any
    ) -> ChatReply:
        """``chat``, awaited."""
        return await asyncio.to_thread(self.chat, messages, reply_format=reply_format, **params)

    async def achat_many(
        self,
        conversations: Sequence[Sequence[Message]],
        *,
        on_done: Callable[[], None] | None = None,
        reply_format: ReplyFormat | None = None,
        **params: Any,
    ) -> list[ChatReply]:
        """``chat_many``, awaited (``on_done`` is called in a worker thread)."""
        return await asyncio.to_thread(
            self.chat_many, conversations, on_done=on_done, reply_format=reply_format, **params
        )

    async def acomplete(
        self, prompt: str, max_tokens: int = 0, echo: bool = True, logprobs: int = 0, **params: Any
    ) -> CompletionReply:
        """``complete``, awaited."""
        return await asyncio.to_thread(self.complete, prompt, max_tokens, echo, logprobs, **params)

    async def aclose(self) -> None:
        """Close the connections and the cache."""
        await asyncio.to_thread(self.close)
        await self._loop_transport.transport.aclose()
