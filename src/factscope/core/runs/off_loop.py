"""Running an entry point from asyncio code: the blocking run goes to a worker thread, so the event loop keeps
serving while models load and score, and cancelling the awaiting task stops the run at its next step.

A run reports progress after every batch (and its LLM components after every call); the runner hands the run a
progress callback that raises ``RunCancelled`` once the awaiting task is cancelled. The run loop then stops
between two rows and closes the results file, holding only whole rows of finished batches, so the same call
resumes from it with each record once. The task's ``CancelledError`` is raised only after the worker thread has
stopped, so a caller that catches it may rerun at once.

Runs take turns: one at a time in a process, as the models they share are not safe to call from two threads at
once (spaCy's pipeline, cached for the process, fails on concurrent use). A run waits for its turn on the event
loop, holding no thread, and one cancelled while it waits never starts. An ``AsyncLLMClient``'s own calls
(``achat``, ...) do not wait for a run's turn.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import threading
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar, cast
from weakref import WeakKeyDictionary

from factscope.core.runs.loop import ProgressCallback, ProgressEvent

P = ParamSpec("P")
R = TypeVar("R")

_TURNS: WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = WeakKeyDictionary()
"""The runs of each event loop wait for their turn on its lock, holding no thread."""
_RUNNING = threading.Lock()
"""Held by the run in progress, for runs awaited on different event loops."""


class RunCancelled(BaseException):
    """Raised inside a run's worker thread when the task awaiting it was cancelled.

    A ``BaseException``, as ``asyncio.CancelledError`` is, so that no ``except Exception`` of a component turns the
    cancellation into a failed record."""


def off_the_loop(entry: Callable[P, R]) -> Callable[P, Coroutine[Any, Any, R]]:
    """The coroutine-function form of an entry point that takes a ``progress`` callback: each call runs ``entry``
    in a worker thread (``asyncio.to_thread``) and can be cancelled between steps (see the module's description).
    The caller's own ``progress`` callback, if any, is called in the worker thread."""

    @functools.wraps(entry)
    async def run(*args: P.args, **kwargs: P.kwargs) -> R:
        stop = threading.Event()
        given = cast("ProgressCallback | None", kwargs.get("progress"))

        def progress(event: ProgressEvent) -> None:
            if stop.is_set():
                raise RunCancelled(f"{entry.__name__} was cancelled")
            if given is not None:
                given(event)

        def turn() -> R:
            with _RUNNING:
                return entry(*args, **kwargs)

        kwargs["progress"] = progress
        async with _TURNS.setdefault(asyncio.get_running_loop(), asyncio.Lock()):
            worker = asyncio.ensure_future(asyncio.to_thread(turn))
            try:
                return await asyncio.shield(worker)
            except asyncio.CancelledError:
                stop.set()
                await asyncio.wait([worker])
                if not worker.cancelled():
                    worker.exception()  # retrieved: a run that ended while being cancelled is not reported as lost
                raise

    own = inspect.cleandoc(entry.__doc__ or "")
    run.__doc__ = f"``await``-able ``{entry.__name__}``, run in a worker thread (one run at a time, cancellable between steps).\n\n{own}"
    return run
