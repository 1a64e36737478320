"""The async entry points: awaited runs leave the event loop free, LLM calls go through the AsyncLLMClient on the
loop, and a cancelled run leaves a results file that resumes with every record exactly once."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

import factscope
from doc_examples import python_blocks, run_block
from factscope.core.schema import Label
from factscope.llm.async_client import AsyncLLMClient
from factscope.llm.client import LLMConfig

RECORDS = [
    {"id": f"r{i}", "response": f"Item {i} is blue.", "references": [f"Item {i} is blue and round."]}
    for i in range(10)
]
CHEAP = {"extractor": "sentences", "checker": "llm", "abstention_detection": False}
"""One claim a record, checked by one LLM call (the joint prompt of the LLM checker)."""


def _entail(request: dict) -> str:
    return "1. Entailment"


def _rows(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _config(server) -> LLMConfig:
    return LLMConfig(base_url=server.base_url, model="fake", max_retries=0, concurrency=2)


def test_a_cancelled_run_resumes_with_every_record_once(fake_llm, tmp_path):
    fake_llm.responder = _entail
    fake_llm.delay = 0.1
    out = tmp_path / "out.jsonl"

    async def main() -> tuple[int, factscope.refchecker.task.CheckRun]:
        llm = AsyncLLMClient(_config(fake_llm))
        loop = asyncio.get_running_loop()
        first_batch = asyncio.Event()

        def progress(event):
            if event.stage == "checking" and event.done >= 2:
                loop.call_soon_threadsafe(first_batch.set)

        task = asyncio.create_task(
            factscope.acheck(RECORDS, **CHEAP, llm=llm, output=out, batch_size=2, progress=progress)
        )
        await first_batch.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        written = len(_rows(out))  # the worker has stopped: the file no longer changes
        again = await factscope.acheck(RECORDS, **CHEAP, llm=llm, output=out, batch_size=2)
        await llm.aclose()
        return written, again

    written, again = asyncio.run(main())
    assert 2 <= written < len(RECORDS) and written % 2 == 0, "only whole batches are written"
    assert (again.resumed_records, again.new_records) == (written, len(RECORDS) - written)
    ids = [row["id"] for row in _rows(out)]
    assert sorted(ids) == sorted(record["id"] for record in RECORDS), "each record exactly once"
    assert all(claim["verdict"]["label"] == "Entailment" for row in _rows(out) for claim in row["claims"])


def test_the_event_loop_keeps_running_during_a_run(fake_llm):
    """The run's first batch waits until a coroutine on the loop has ticked twice: a run that held the loop
    would never see the ticks, and the wait would end in its timeout and fail the test."""
    fake_llm.responder = _entail
    ticked = threading.Event()

    def progress(event):
        if event.stage == "checking" and event.done:
            assert ticked.wait(timeout=60), "the event loop did not run while the run was in progress"

    async def main():
        llm = AsyncLLMClient(_config(fake_llm))
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0)
                ticks += 1
                if ticks >= 2:
                    ticked.set()

        ticker = asyncio.create_task(tick())
        run = await factscope.acheck(RECORDS[:4], **CHEAP, llm=llm, batch_size=2, progress=progress)
        ticker.cancel()
        await llm.aclose()
        return run

    run = asyncio.run(main())
    assert run.new_records == 4 and run.rates.rates == {Label.ENTAILMENT: 1.0, Label.NEUTRAL: 0.0, Label.CONTRADICTION: 0.0}
    assert len(fake_llm.requests) == 4


def test_concurrent_runs_take_turns(fake_llm):
    """Run "a" waits a moment inside its first batch for run "b" to start: runs that took no turns would
    interleave their progress events, and the test would fail."""
    fake_llm.responder = _entail
    events: list[str] = []
    b_started = threading.Event()

    def progress_of(name: str):
        def progress(event):
            if event.stage != "checking":
                return
            events.append(name)
            if name == "b":
                b_started.set()
            elif event.done == 2 and not event.finished:
                b_started.wait(timeout=1)

        return progress

    async def main() -> None:
        llm = AsyncLLMClient(_config(fake_llm))
        first = asyncio.create_task(
            factscope.acheck(RECORDS[:4], **CHEAP, llm=llm, batch_size=2, progress=progress_of("a"))
        )
        await asyncio.sleep(0)  # "a" asks for its turn first
        await asyncio.gather(
            first, factscope.acheck(RECORDS[4:8], **CHEAP, llm=llm, batch_size=2, progress=progress_of("b"))
        )
        await llm.aclose()

    asyncio.run(main())
    assert events == sorted(events) and set(events) == {"a", "b"}


def test_async_client_calls_and_refuses_to_block_its_own_loop(fake_llm):
    fake_llm.script(["one", "two", "three"])

    async def main():
        llm = AsyncLLMClient(_config(fake_llm))
        single = await llm.achat([{"role": "user", "content": "a"}])
        many = await llm.achat_many([[{"role": "user", "content": "b"}], [{"role": "user", "content": "c"}]])
        with pytest.raises(RuntimeError, match="would block it"):
            llm.chat([{"role": "user", "content": "d"}])
        await llm.aclose()
        return single, many

    single, many = asyncio.run(main())
    assert single.text == "one" and sorted(reply.text for reply in many) == ["three", "two"]
    assert len(fake_llm.requests) == 3


def test_async_client_needs_a_running_loop(fake_llm):
    with pytest.raises(RuntimeError, match="inside a coroutine"):
        AsyncLLMClient(_config(fake_llm))


def test_the_example_of_the_guide_runs(capsys, tmp_path):
    run_block(python_blocks("guides/async.md")[0], tmp_path)
    assert capsys.readouterr().out.splitlines() == ["Entailment Marie Curie was born in Warsaw."]


@pytest.mark.parametrize("name", ["check", "ground", "attribute", "knowledge"])
def test_each_async_entry_point_takes_the_arguments_of_its_sibling(name):
    import inspect

    synchronous, awaited = getattr(factscope, name), getattr(factscope, f"a{name}")
    assert inspect.iscoroutinefunction(awaited) and f"a{name}" in factscope.__all__
    assert inspect.signature(awaited) == inspect.signature(synchronous)
    assert awaited.__doc__.endswith(inspect.cleandoc(synchronous.__doc__))
