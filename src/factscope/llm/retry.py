"""The one retry policy for HTTP calls to models and knowledge services, built on tenacity.

What retries: timeouts and connection errors, every 5xx, and 408 / 409 / 425 / 429. The wait before retry n
(1-based) is ``min(backoff_max, backoff_base * 2**(n-1))`` times a random factor in [0.5, 1] ("equal jitter":
spread out like full jitter, yet never an instant retry against a server that asked us to slow down); a
Retry-After header (seconds or an HTTP date) replaces it, capped at ``backoff_max``. At most ``max_retries``
retries follow the first attempt. The last attempt comes back as a value (a response or a transport error),
never as tenacity's RetryError, so each client decides what a final failure means for its callers.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, retry_if_result, stop_after_attempt
from tenacity.wait import wait_exponential

from factscope.core.errors import ConfigError

RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
"""HTTP statuses worth retrying besides every 5xx: request timeout, conflict, too early, rate limited."""


def is_transient(response: httpx.Response) -> bool:
    """True for a status that may succeed when asked again: any 5xx or one of RETRYABLE_STATUS."""
    return response.status_code >= 500 or response.status_code in RETRYABLE_STATUS


def retry_after_seconds(response: httpx.Response) -> float | None:
    """Seconds from a Retry-After header (a number or an HTTP date, never negative), or None."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


@dataclass(frozen=True)
class Delivery:
    """How a request ended after its retries: the last response, or the last transport error."""

    response: httpx.Response | None
    error: httpx.TransportError | None
    attempts: int


@dataclass(frozen=True)
class RetryPolicy:
    """Retries an HTTP request on transient failures; ``sleep`` is injectable so tests never really wait."""

    max_retries: int = 4
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    sleep: Callable[[float], None] = time.sleep

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ConfigError(f"max_retries must be 0 or more (got {self.max_retries})")
        if self.backoff_base < 0 or self.backoff_max < 0:
            raise ConfigError(
                "backoff_base and backoff_max must be 0 or more seconds "
                f"(got {self.backoff_base:g} and {self.backoff_max:g})"
            )

    def send(self, request: Callable[[], httpx.Response]) -> Delivery:
        """Call ``request`` until it gives a response that is not transient or the retries run out.

        Transport errors (timeouts, refused or dropped connections) are retried and, when they persist,
        returned in ``Delivery.error``; any other exception propagates at once.
        """
        attempts = 0

        def attempt() -> httpx.Response:
            nonlocal attempts
            attempts += 1
            return request()

        retrying = Retrying(
            stop=stop_after_attempt(self.max_retries + 1),
            wait=self.wait,
            retry=retry_if_exception_type(httpx.TransportError) | retry_if_result(is_transient),
            sleep=self.sleep,
            retry_error_callback=_last_outcome,
        )
        try:
            response = retrying(attempt)
        except httpx.TransportError as error:
            return Delivery(None, error, attempts)
        return Delivery(response, None, attempts)

    def wait(self, state: RetryCallState) -> float:
        """Seconds before the next attempt: the server's Retry-After (capped), else jittered backoff."""
        outcome = state.outcome
        if outcome is not None and not outcome.failed:
            asked = retry_after_seconds(outcome.result())
            if asked is not None:
                return min(asked, self.backoff_max)
        ceiling = wait_exponential(multiplier=self.backoff_base, max=self.backoff_max)(state)
        return ceiling * random.uniform(0.5, 1.0)


def _last_outcome(state: RetryCallState) -> httpx.Response:
    """The final attempt's response (or its exception, raised again) once the attempts are spent."""
    if state.outcome is None:
        raise RuntimeError("tenacity gave up before any attempt")
    response: httpx.Response = state.outcome.result()
    return response
