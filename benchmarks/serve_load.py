"""Load on `factscope serve` over loopback: micro-batching, then N concurrent clients for a fixed time.

1. Batching: 32 concurrent clients sending one record each, against one client sending the same 32 records in one
   request (``POST /v1/check``); each repeated ``--repeats`` times, interleaved, median wall time reported, with
   the number of model batches the server ran (from ``/v1/health``).
2. Load: ``--clients`` concurrent clients, each sending single-record requests back to back for ``--seconds``;
   throughput (requests / s), p50 / p99 latency, errors (any non-200 or transport error; 0 expected), and the
   server's resident memory before and after.

The server is started as a subprocess on 127.0.0.1 with a temporary data folder (or pass ``--url`` of a running
one; memory is then not measured). Records are short synthetic RefChecker-style records. ``--batch-records 1``
starts a server that runs every request alone: the baseline of micro-batching.

    HF_HUB_OFFLINE=1 python benchmarks/serve_load.py --clients 16 --seconds 30
    HF_HUB_OFFLINE=1 python benchmarks/serve_load.py --clients 16 --seconds 30 --batch-records 1 \
        --out benchmarks/results/serve_load_unbatched.json
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from results_file import add_out_option, load_average, write_results
from serve_process import rss_mib, serving

CITIES = ("Paris", "Rome", "Madrid", "Berlin", "Vienna", "Lisbon", "Prague", "Warsaw")


def record(n: int) -> dict[str, Any]:
    """A short check record; ``n`` varies the facts so that records differ."""
    city, other = CITIES[n % len(CITIES)], CITIES[(n + 3) % len(CITIES)]
    year = 1850 + n % 100
    return {
        "id": f"r{n}",
        "question": f"Where was the painter number {n} born?",
        "response": f"The painter was born in {city} in {year}. He later moved to {other}.",
        "references": [f"The painter was born in {city} in {year + n % 2}. He spent his last years in {city}."],
    }


async def batches(client: httpx.AsyncClient) -> int:
    """Model batches the server's check batcher has run so far."""
    reply = await client.get("/v1/health")
    return int(reply.json()["batching"]["check"]["batches"])


async def concurrent_singles(client: httpx.AsyncClient, records: list[dict[str, Any]]) -> tuple[float, int]:
    """Seconds for one request per record, all at once, and the model batches they took."""
    before = await batches(client)
    started = time.perf_counter()
    replies = await asyncio.gather(*(client.post("/v1/check", json={"records": [r]}) for r in records))
    seconds = time.perf_counter() - started
    if any(reply.status_code != 200 for reply in replies):
        raise SystemExit(f"a request failed: {[r.status_code for r in replies]}")
    return seconds, await batches(client) - before


async def one_request(client: httpx.AsyncClient, records: list[dict[str, Any]]) -> tuple[float, int]:
    """Seconds for all records in one request, and the model batches it took."""
    before = await batches(client)
    started = time.perf_counter()
    reply = await client.post("/v1/check", json={"records": records})
    seconds = time.perf_counter() - started
    if reply.status_code != 200:
        raise SystemExit(f"the request failed: {reply.status_code} {reply.text[:200]}")
    return seconds, await batches(client) - before


async def load(client: httpx.AsyncClient, clients: int, seconds: float) -> dict[str, Any]:
    """``clients`` clients sending single-record requests back to back for ``seconds``."""
    latencies: list[float] = []
    errors: list[str] = []
    stop = time.perf_counter() + seconds

    async def one_client(number: int) -> None:
        n = number * 100_000
        while time.perf_counter() < stop:
            n += 1
            started = time.perf_counter()
            try:
                reply = await client.post("/v1/check", json={"records": [record(n)]})
                if reply.status_code != 200:
                    errors.append(f"HTTP {reply.status_code}")
                    continue
            except httpx.HTTPError as error:
                errors.append(type(error).__name__)
                continue
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(one_client(number) for number in range(clients)))
    elapsed = time.perf_counter() - started
    ordered = sorted(latencies)
    return {
        "clients": clients,
        "seconds": round(elapsed, 2),
        "requests": len(latencies),
        "throughput_requests_per_s": round(len(latencies) / elapsed, 2),
        "latency_p50_s": round(ordered[len(ordered) // 2], 3) if ordered else None,
        "latency_p99_s": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 3) if ordered else None,
        "errors": len(errors),
        "error_kinds": sorted(set(errors)),
    }


async def measure(url: str, args: argparse.Namespace, pid: int | None) -> dict[str, Any]:
    records = [record(n) for n in range(args.batch)]
    limits = httpx.Limits(max_connections=max(args.clients, args.batch) + 4)
    async with httpx.AsyncClient(base_url=url, timeout=600, limits=limits) as client:
        await client.post("/v1/check", json={"records": records[:2]})
        singles, together = [], []
        for _ in range(args.repeats):
            singles.append(await concurrent_singles(client, records))
            together.append(await one_request(client, records))
        memory_before = rss_mib(pid) if pid else None
        loaded = await load(client, args.clients, args.seconds)
        memory_after = rss_mib(pid) if pid else None
    return {
        "batching": {
            "records": args.batch,
            "concurrent_single_record_clients_s": round(statistics.median(s for s, _ in singles), 3),
            "concurrent_single_record_model_batches": [b for _, b in singles],
            "one_request_of_all_records_s": round(statistics.median(s for s, _ in together), 3),
            "one_request_model_batches": [b for _, b in together],
            "repeats": args.repeats,
        },
        "load": loaded,
        "server_rss_mib_before_load": None if memory_before is None else round(memory_before, 1),
        "server_rss_mib_after_load": None if memory_after is None else round(memory_after, 1),
        "load_average_1min": load_average(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running server (default: start one on loopback)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients of the load phase")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the load phase")
    parser.add_argument("--batch", type=int, default=32, help="records of the batching comparison")
    parser.add_argument("--repeats", type=int, default=3, help="repeats of the batching comparison")
    parser.add_argument("--batch-wait-ms", type=float, default=5.0, help="the started server's --batch-wait-ms")
    parser.add_argument("--batch-records", type=int, default=32,
                        help="the started server's --batch-records (1: no micro-batching, the baseline)")
    add_out_option(parser)
    args = parser.parse_args()
    if args.url:
        figures = asyncio.run(measure(args.url, args, None))
    else:
        with tempfile.TemporaryDirectory() as folder:
            options = ["--batch-wait-ms", str(args.batch_wait_ms), "--batch-records", str(args.batch_records)]
            with serving(Path(folder), options) as (process, url):
                figures = asyncio.run(measure(url, args, process.pid))
    print(figures)
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
