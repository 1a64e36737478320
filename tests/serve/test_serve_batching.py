"""The micro-batcher: concurrent requests share one model batch, each gets its own rows back under its own ids."""

import asyncio
import threading
import time

import pytest

pytest.importorskip("fastapi")

from factscope.serve.batching import FairLock, MicroBatcher, ModelWorker, run_requests
from serve_fakes import FakeItem, FakeSystem


def test_run_requests_gives_each_request_its_rows_even_when_ids_clash():
    system = FakeSystem()
    first = [FakeItem(id="a", text="xx"), FakeItem(id="b", text="yyy")]
    second = [FakeItem(id="a", text="z")]
    runs = run_requests(system, [first, second])
    assert len(system.batches) == 1 and len(system.batches[0]) == 3
    assert [(row.id, row.length) for row in runs[0].results] == [("a", 2), ("b", 3)]
    assert [(row.id, row.length) for row in runs[1].results] == [("a", 1)]


def test_concurrent_single_record_requests_run_as_one_batch():
    system = FakeSystem()
    worker = ModelWorker()

    async def main() -> list:
        batcher = MicroBatcher(system, worker, max_records=32, wait=0.2)
        runs = await asyncio.gather(
            *(batcher.submit([FakeItem(id="same", text="x" * n)]) for n in range(1, 9))
        )
        await batcher.close()
        return runs

    runs = asyncio.run(main())
    worker.close()
    assert len(system.batches) == 1 and len(system.batches[0]) == 8
    assert [run.results[0].length for run in runs] == list(range(1, 9))
    assert all(run.results[0].id == "same" for run in runs)


def test_a_batch_never_exceeds_max_records():
    system = FakeSystem()
    worker = ModelWorker()

    async def main() -> None:
        batcher = MicroBatcher(system, worker, max_records=3, wait=0.2)
        await asyncio.gather(*(batcher.submit([FakeItem(id=str(n), text="x")]) for n in range(7)))
        await batcher.close()

    asyncio.run(main())
    worker.close()
    assert sorted(len(batch) for batch in system.batches) == [1, 3, 3]


def test_a_failed_batch_fails_each_of_its_requests():
    system = FakeSystem()

    def broken(*args):
        raise RuntimeError("model down")

    system.process = broken
    worker = ModelWorker()

    async def main() -> list:
        batcher = MicroBatcher(system, worker, wait=0.05)
        results = await asyncio.gather(
            *(batcher.submit([FakeItem(id=str(n), text="x")]) for n in range(3)), return_exceptions=True
        )
        await batcher.close()
        return results

    results = asyncio.run(main())
    worker.close()
    assert all(isinstance(result, RuntimeError) for result in results)


def test_fair_lock_serves_waiters_in_order():
    lock = FairLock()
    order = []
    lock.acquire()
    threads = []
    for n in range(4):
        thread = threading.Thread(target=lambda n=n: (lock.acquire(), order.append(n), lock.release()))
        thread.start()
        threads.append(thread)
        time.sleep(0.05)
    lock.release()
    for thread in threads:
        thread.join(5)
    assert order == [0, 1, 2, 3]
