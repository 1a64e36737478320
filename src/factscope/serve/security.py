"""The server's guards: the API key, request size limits, and file names that stay inside the data folder."""

from __future__ import annotations

import hmac
import ipaddress
import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from factscope.core.errors import ConfigError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

KEY_COOKIE = "factscope_key"
"""The cookie the sign-in page sets, so that a browser can use a server that requires a key."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def require_key_off_loopback(host: str, api_key: str | None) -> None:
    """Refuse to serve on any address but loopback without an API key."""
    if not is_loopback(host) and not api_key:
        raise ConfigError(
            f"binding {host} makes the server reachable from other machines, so it needs an API key: pass "
            "`api_key` or set FACTSCOPE_API_KEY (clients send `Authorization: Bearer KEY` or `X-API-Key: KEY`)"
        )


def key_matches(given: str | None, expected: str) -> bool:
    """Compare a presented key with the server's in constant time."""
    if not given:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def presented_key(headers: dict[str, str], cookies: dict[str, str]) -> str | None:
    """The key a request carries: ``Authorization: Bearer KEY``, ``X-API-Key: KEY`` or the sign-in cookie."""
    authorization = headers.get("authorization", "")
    if authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return headers.get("x-api-key") or cookies.get(KEY_COOKIE)


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: str, *, default: str = "input.jsonl", limit: int = 80) -> str:
    """A file name made only of letters, digits, '.', '_' and '-', never hidden or empty (path parts dropped)."""
    base = re.split(r"[\\/]", name)[-1]
    cleaned = _UNSAFE.sub("_", base).lstrip(".")[-limit:]
    return cleaned or default


def inside(folder: Path, name: str) -> Path:
    """``folder / name`` resolved, refused unless it lies inside ``folder``."""
    root = folder.resolve()
    target = (root / name).resolve()
    if target != root and root not in target.parents:
        raise ValueError(f"{name!r} is outside the data folder")
    return target


class BodyLimit:
    """ASGI middleware: a request body over the limit is answered 413 before the app reads it.

    ``limit_for(path)`` gives the limit of a path (uploads may be larger than JSON requests); the declared
    Content-Length is checked first, and the bytes actually received are counted as well.
    """

    def __init__(self, app: ASGIApp, limit_for: Callable[[str], int]) -> None:
        self.app = app
        self.limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope["path"])
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await _too_large(send, limit)
            return
        received = 0
        answered = False

        async def counting() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        async def sending(message: Message) -> None:
            nonlocal answered
            if message["type"] == "http.response.start":
                answered = True
            await send(message)

        try:
            await self.app(scope, counting, sending)
        except BodyTooLarge:
            if not answered:
                await _too_large(send, limit)


class BodyTooLarge(Exception):
    """Raised inside a request whose body grew over the limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"request body over {limit} bytes")
        self.limit = limit


async def _too_large(send: Send, limit: int) -> None:
    message = (
        f"request body is over the limit of {limit} bytes; send fewer records per request or use the jobs API "
        "for files"
    )
    body = json.dumps({"error": {"message": message, "field": "body", "record": None}}).encode("utf-8")
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
