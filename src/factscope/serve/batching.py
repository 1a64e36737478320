"""Micro-batching: concurrent requests of one system run as one model batch, on one model thread.

Models are not safe to call from several threads at once, so every model call of the server runs under one
fair (first come, first served) lock: synchronous requests on the single model-worker thread, jobs on their
own thread, one batch at a time (a job gives the lock up between its batches, so requests are not starved).

Each system has an asyncio queue. Its collector takes the first waiting request, then keeps taking requests
for up to ``wait`` seconds or until ``max_records`` records are gathered, runs them as one batch and resolves
each request's future with its own typed run result. Records of different requests are renamed for the batch
(their ids may clash) and get their own ids back in their rows; requests that set different options run as one
model batch per set of options.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Self, TypeVar

from pydantic import BaseModel

from factscope.serve.systems import ServedSystem, timed

Result = TypeVar("Result")


class FairLock:
    """A lock granted in the order it was asked for (a ticket lock)."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._next_ticket = 0
        self._serving = 0

    def acquire(self) -> None:
        """Wait for this caller's turn."""
        with self._condition:
            ticket = self._next_ticket
            self._next_ticket += 1
            while self._serving != ticket:
                self._condition.wait()

    def release(self) -> None:
        """Hand the lock to the next caller in line."""
        with self._condition:
            self._serving += 1
            self._condition.notify_all()

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class ModelWorker:
    """The one thread that runs the model batches of synchronous requests, and the lock jobs share with it."""

    def __init__(self) -> None:
        self.lock = FairLock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="factscope-model")

    async def run(self, work: Callable[[], Result]) -> Result:
        """Run ``work`` on the model thread, under the model lock."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._locked, work)

    def _locked(self, work: Callable[[], Result]) -> Result:
        with self.lock:
            return work()

    def close(self) -> None:
        """Stop the model thread once its work is done."""
        self._executor.shutdown(wait=False, cancel_futures=True)


@dataclass
class Pending:
    """One request waiting in a queue: its parsed items, its options and the future of its run result."""

    items: Sequence[Any]
    future: asyncio.Future[BaseModel] = field(repr=False)
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class BatchStats:
    """What a batcher has done: batches run and records in them."""

    batches: int = 0
    records: int = 0
    requests: int = 0


class MicroBatcher:
    """Collects one system's requests into model batches (see the module docstring)."""

    def __init__(self, system: ServedSystem[Any, Any], worker: ModelWorker, *, max_records: int = 32,
                 wait: float = 0.005) -> None:
        self.system = system
        self.worker = worker
        self.max_records = max_records
        self.wait = wait
        self.stats = BatchStats()
        self._queue: asyncio.Queue[Pending] | None = None
        self._task: asyncio.Task[None] | None = None

    async def submit(self, items: Sequence[Any], options: Mapping[str, Any] | None = None) -> BaseModel:
        """The run result of ``items`` (one request's parsed records) with the request's ``options``, computed in a
        shared batch."""
        if self._queue is None or self._task is None or self._task.done():
            self._queue = asyncio.Queue()
            self._task = asyncio.create_task(self._collect(self._queue))
        future: asyncio.Future[BaseModel] = asyncio.get_running_loop().create_future()
        await self._queue.put(Pending(items, future, dict(options or {})))
        return await future

    async def _collect(self, queue: asyncio.Queue[Pending]) -> None:
        loop = asyncio.get_running_loop()
        while True:
            batch = [await queue.get()]
            count = len(batch[0].items)
            deadline = loop.time() + self.wait
            while self.system.mergeable and count < self.max_records:
                try:
                    batch.append(queue.get_nowait())
                except asyncio.QueueEmpty:
                    remaining = deadline - loop.time()
                    if remaining <= 0:
                        break
                    try:
                        batch.append(await asyncio.wait_for(queue.get(), remaining))
                    except TimeoutError:
                        break
                count += len(batch[-1].items)
            await self._run(batch)

    async def _run(self, batch: list[Pending]) -> None:
        try:
            runs = await self.worker.run(
                lambda: run_requests(self.system, [p.items for p in batch], [p.options for p in batch])
            )
        except Exception as error:  # noqa: BLE001 - every waiting request learns of the failure
            for pending in batch:
                if not pending.future.done():
                    pending.future.set_exception(error)
            return
        self.stats.batches += 1
        self.stats.requests += len(batch)
        self.stats.records += sum(len(p.items) for p in batch)
        for pending, run in zip(batch, runs):
            if not pending.future.done():
                pending.future.set_result(run)

    async def close(self) -> None:
        """Stop collecting."""
        if self._task is not None:
            self._task.cancel()


def run_requests(
    system: ServedSystem[Any, Any],
    requests: Sequence[Sequence[Any]],
    options: Sequence[Mapping[str, Any]] | None = None,
) -> list[BaseModel]:
    """Run the items of several requests as one batch per set of ``options`` (one per request; none by default)
    and return each request's run result.

    Items are renamed by position for the batch and their rows get the request's ids back; the seconds of
    each result are those of its whole batch.
    """
    groups: list[tuple[Mapping[str, Any], list[int]]] = []
    for number, settings in enumerate(options if options is not None else [{} for _ in requests]):
        group = next((numbers for chosen, numbers in groups if chosen == settings), None)
        if group is None:
            groups.append((settings, [number]))
        else:
            group.append(number)
    runs: dict[int, BaseModel] = {}
    for settings, numbers in groups:
        renamed = [
            system.with_id(item, f"{number}-{index}")
            for number in numbers
            for index, item in enumerate(requests[number])
        ]
        rows, seconds = timed(functools.partial(system.process, renamed, settings))
        by_id = {row.id: row for row in rows}
        for number in numbers:
            items = requests[number]
            mine = [
                by_id[f"{number}-{index}"].model_copy(update={"id": system.item_id(item)})
                for index, item in enumerate(items)
                if f"{number}-{index}" in by_id
            ]
            runs[number] = system.assemble(items, mine, seconds, settings)
    return [runs[number] for number in range(len(requests))]
