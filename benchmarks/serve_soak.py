"""Soak of `factscope serve` over loopback: many concurrent clients sending a mixed load for minutes.

``--clients`` clients (default 32) each send, back to back until ``--seconds`` have passed (default 600) or
``--max-requests`` were sent in all, one request at a time drawn from this mix (seeded, ``--seed``):

- ``single``: a valid ``POST /v1/check`` of one record (200 expected);
- ``batch``: a valid ``POST /v1/check`` of 4 to 8 records (200);
- ``malformed``: a ``POST /v1/check`` whose body is broken JSON (422);
- ``over_limit``: a ``POST /v1/check`` whose body is over the server's ``--max-body-bytes`` (413);
- ``job``: a ``POST /v1/jobs`` upload of 6 to 12 records (202), followed, for some of them, by a cancel sent
  while the job runs or waits (``POST /v1/jobs/ID/cancel``, 200); at most ``--open-jobs`` unfinished jobs at
  a time (a client draws a ``single`` instead);
- ``disconnect``: a valid ``POST /v1/check`` the client gives up on before the answer (closes the connection);
- ``cut_body``: a request whose body stops halfway, the connection then closed.

Reported: p50 / p95 latency of each kind of answered request, the statuses each kind got (any 5xx is a
failure), the server process's resident memory (sampled every 2 s: peak, at the end of the first minute, at
the end; the target is the end within 10% of the first minute), and what became of every accepted job: each
must end exactly once (one final status, never changed once seen), a done job's results file holding every
record of its input exactly once, a cancelled one's holding no record twice, and no job left unfinished
``--drain-seconds`` after the load stops.

The server is started as a subprocess on 127.0.0.1 with a temporary data folder (its results files are read
there to count rows). Its check components are light by default (``--check-checker similarity``) so that the
load measures the server rather than the model; the command line is in the results.

    HF_HUB_OFFLINE=1 python benchmarks/serve_soak.py --seconds 600
    HF_HUB_OFFLINE=1 python benchmarks/serve_soak.py --seconds 120 --out /tmp/soak.json   # a shorter run
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import httpx
from results_file import add_out_option, load_average, write_results
from serve_load import record
from serve_process import rss_mib, serving

FINISHED = ("done", "failed", "cancelled")
EXPECTED = {"single": 200, "batch": 200, "malformed": 422, "over_limit": 413, "job": 202, "cancel": 200}
MIX = {"single": 40, "batch": 15, "malformed": 10, "over_limit": 5, "job": 12, "disconnect": 12, "cut_body": 6}


class Soak:
    """The shared state of one soak: what was sent and answered, and the jobs accepted."""

    def __init__(self, args: argparse.Namespace, url: str, pid: int) -> None:
        self.args = args
        self.url = url
        self.pid = pid
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.statuses: dict[str, Counter[str]] = defaultdict(Counter)
        self.sent = 0
        self.jobs: dict[str, list[str]] = {}
        """Accepted job id -> the ids of its input records."""
        self.cancel_asked: dict[str, str] = {}
        """Job id -> its status when the cancel was sent."""
        self.final_seen: dict[str, set[str]] = defaultdict(set)
        self.memory: list[tuple[float, float]] = []
        self.stop_at = 0.0
        self.started = 0.0

    def open_jobs(self) -> int:
        return sum(1 for job in self.jobs if not self.final_seen[job])

    def note(self, kind: str, status: str, seconds: float | None = None) -> None:
        self.statuses[kind][status] += 1
        if seconds is not None and status == str(EXPECTED.get(kind)):
            self.latencies[kind].append(seconds)

    def running(self) -> bool:
        return time.perf_counter() < self.stop_at and self.sent < self.args.max_requests


async def one_client(soak: Soak, client: httpx.AsyncClient, number: int) -> None:
    """One client's requests, back to back, until the soak ends."""
    rng = random.Random(soak.args.seed * 1000 + number)
    kinds, weights = list(MIX), list(MIX.values())
    n = number * 1_000_000
    while soak.running():
        soak.sent += 1
        kind = rng.choices(kinds, weights)[0]
        if kind == "job" and soak.open_jobs() >= soak.args.open_jobs:
            kind = "single"
        n += 100
        try:
            if kind == "single":
                await timed(soak, kind, client.post("/v1/check", json={"records": [record(n)]}))
            elif kind == "batch":
                records = [record(n + i) for i in range(rng.randint(4, 8))]
                await timed(soak, kind, client.post("/v1/check", json={"records": records}))
            elif kind == "malformed":
                body = rng.choice(['{"records": [', "not json", '{"records": [{"id": "a",}]}', "\xff\xfe"])
                await timed(soak, kind, client.post("/v1/check", content=body.encode("utf-8", "replace"),
                                                     headers={"content-type": "application/json"}))
            elif kind == "over_limit":
                filler = "x" * (soak.args.max_body_bytes + 1000)
                body = json.dumps({"records": [{**record(n), "response": filler}]})
                await timed(soak, kind, client.post("/v1/check", content=body,
                                                     headers={"content-type": "application/json"}))
            elif kind == "job":
                await job(soak, client, rng, n)
            elif kind == "disconnect":
                await disconnect(soak, n, rng)
            else:
                await cut_body(soak, n)
        except httpx.HTTPError as error:
            soak.note(kind, type(error).__name__)


async def timed(soak: Soak, kind: str, request: Any) -> httpx.Response:
    started = time.perf_counter()
    reply: httpx.Response = await request
    soak.note(kind, str(reply.status_code), time.perf_counter() - started)
    return reply


async def job(soak: Soak, client: httpx.AsyncClient, rng: random.Random, n: int) -> None:
    """Upload a small job; cancel some of them a moment later."""
    records = [record(n + i) for i in range(rng.randint(6, 12))]
    body = "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")
    reply = await timed(soak, "job", client.post("/v1/jobs", params={"system": "check", "name": "soak.jsonl"},
                                                 content=body))
    if reply.status_code != 202:
        return
    job_id = reply.json()["id"]
    soak.jobs[job_id] = [r["id"] for r in records]
    if rng.random() < soak.args.cancel_share:
        await asyncio.sleep(rng.uniform(0.0, 3.0))
        status = (await client.get(f"/v1/jobs/{job_id}")).json()["status"]
        cancelled = await timed(soak, "cancel", client.post(f"/v1/jobs/{job_id}/cancel"))
        if cancelled.status_code == 200:
            soak.cancel_asked[job_id] = status


async def disconnect(soak: Soak, n: int, rng: random.Random) -> None:
    """A valid check whose client closes the connection before the answer comes."""
    body = json.dumps({"records": [record(n + i) for i in range(rng.randint(1, 6))]}).encode("utf-8")
    _, writer = await asyncio.open_connection("127.0.0.1", int(soak.url.rsplit(":", 1)[1]))
    writer.write(b"POST /v1/check HTTP/1.1\r\nHost: soak\r\nContent-Type: application/json\r\n"
                 + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    await writer.drain()
    await asyncio.sleep(rng.uniform(0.0, 0.2))
    writer.close()
    await writer.wait_closed()
    soak.note("disconnect", "closed by the client")


async def cut_body(soak: Soak, n: int) -> None:
    """A request whose body stops halfway, then the connection closed."""
    body = json.dumps({"records": [record(n)]}).encode("utf-8")
    _, writer = await asyncio.open_connection("127.0.0.1", int(soak.url.rsplit(":", 1)[1]))
    writer.write(b"POST /v1/check HTTP/1.1\r\nHost: soak\r\nContent-Type: application/json\r\n"
                 + f"Content-Length: {len(body)}\r\n\r\n".encode() + body[: len(body) // 2])
    await writer.drain()
    await asyncio.sleep(0.05)
    writer.close()
    await writer.wait_closed()
    soak.note("cut_body", "closed by the client")


async def watch(soak: Soak, client: httpx.AsyncClient, until: asyncio.Event) -> None:
    """Sample the server's memory and every accepted job's status every 2 s."""
    while not until.is_set():
        memory = rss_mib(soak.pid)
        if memory is not None:
            soak.memory.append((time.perf_counter() - soak.started, memory))
        await poll_jobs(soak, client)
        try:
            await asyncio.wait_for(until.wait(), 2.0)
        except TimeoutError:
            pass


async def poll_jobs(soak: Soak, client: httpx.AsyncClient) -> None:
    """Record the final statuses seen of each job (from the jobs list, the server's newest first)."""
    try:
        listed = (await client.get("/v1/jobs")).json()
    except (httpx.HTTPError, ValueError):
        return
    for job in listed:
        if job["id"] in soak.jobs and job["status"] in FINISHED:
            soak.final_seen[job["id"]].add(job["status"])


async def drain(soak: Soak, client: httpx.AsyncClient) -> float:
    """Wait for every accepted job to finish (at most ``--drain-seconds``); the seconds it took."""
    started = time.perf_counter()
    while time.perf_counter() - started < soak.args.drain_seconds:
        for job_id in [j for j in soak.jobs if not soak.final_seen[j]]:
            status = (await client.get(f"/v1/jobs/{job_id}")).json()["status"]
            if status in FINISHED:
                soak.final_seen[job_id].add(status)
        if all(soak.final_seen[j] for j in soak.jobs):
            break
        await asyncio.sleep(1.0)
    return time.perf_counter() - started


async def job_outcomes(soak: Soak, client: httpx.AsyncClient, data_dir: Path) -> dict[str, Any]:
    """What became of every accepted job: final statuses, and its results file's rows against its input."""
    ended: Counter[str] = Counter()
    problems: list[str] = []
    cancelled_midway = 0
    for job_id, ids in soak.jobs.items():
        seen = soak.final_seen[job_id]
        job = (await client.get(f"/v1/jobs/{job_id}")).json()
        if job["status"] not in FINISHED:
            problems.append(f"{job_id}: still {job['status']} (lost)")
            continue
        if len(seen) != 1 or job["status"] not in seen:
            problems.append(f"{job_id}: final statuses seen {sorted(seen)}, now {job['status']}")
        ended[job["status"]] += 1
        path = data_dir / "results" / f"{job_id}.jsonl"
        rows = [json.loads(line)["id"] for line in path.read_text().splitlines()] if path.exists() else []
        repeated = len(rows) - len(set(rows))
        if repeated:
            problems.append(f"{job_id}: {repeated} records written twice (run twice)")
        if job["status"] == "done" and sorted(rows) != sorted(ids):
            problems.append(f"{job_id}: done with {len(set(rows))} of {len(ids)} records")
        if job["status"] == "done" and job["done"] != len(ids):
            problems.append(f"{job_id}: done counts {job['done']} of {len(ids)}")
        if job["status"] == "cancelled" and soak.cancel_asked.get(job_id) == "running" and 0 < len(rows) < len(ids):
            cancelled_midway += 1
        if job["status"] == "cancelled" and job_id not in soak.cancel_asked:
            problems.append(f"{job_id}: cancelled without a cancel")
        if job["status"] == "failed":
            problems.append(f"{job_id}: failed: {job['error']}")
    return {
        "accepted": len(soak.jobs),
        "ended": dict(ended),
        "cancels_sent": len(soak.cancel_asked),
        "cancelled_midway_with_rows_kept": cancelled_midway,
        "problems": problems[:20],
        "problem_count": len(problems),
        "every_job_ended_exactly_once": not problems,
    }


def percentile(values: list[float], share: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 3)


def memory_figures(samples: list[tuple[float, float]], final: float | None) -> dict[str, Any]:
    """Peak, first-minute and final resident memory, and whether the end is within 10% of the first minute."""
    if not samples or final is None:
        return {"measured": False}
    after_minute = next((mib for at, mib in samples if at >= 60.0), samples[-1][1])
    return {
        "measured": True,
        "samples": len(samples),
        "start_mib": round(samples[0][1], 1),
        "after_first_minute_mib": round(after_minute, 1),
        "peak_mib": round(max(mib for _, mib in samples), 1),
        "final_mib": round(final, 1),
        "final_over_first_minute": round(final / after_minute, 3),
        "final_within_10_percent": abs(final / after_minute - 1.0) <= 0.10,
    }


async def soak_server(args: argparse.Namespace, url: str, pid: int, data_dir: Path) -> dict[str, Any]:
    soak = Soak(args, url, pid)
    limits = httpx.Limits(max_connections=args.clients + 8)
    async with httpx.AsyncClient(base_url=url, timeout=args.request_timeout, limits=limits) as client:
        await client.post("/v1/check", json={"records": [record(0)]})
        soak.started = time.perf_counter()
        soak.stop_at = soak.started + args.seconds
        finished = asyncio.Event()
        watcher = asyncio.create_task(watch(soak, client, finished))
        await asyncio.gather(*(one_client(soak, client, number) for number in range(args.clients)))
        loaded = time.perf_counter() - soak.started
        drained = await drain(soak, client)
        finished.set()
        await watcher
        final = rss_mib(pid)
        jobs = await job_outcomes(soak, client, data_dir)
        health = (await client.get("/v1/health")).json()
    server_errors = {kind: sum(n for status, n in counts.items() if status.startswith("5"))
                     for kind, counts in soak.statuses.items()}
    unexpected = {kind: {status: n for status, n in counts.items()
                         if kind in EXPECTED and status != str(EXPECTED[kind])}
                  for kind, counts in soak.statuses.items()}
    return {
        "clients": args.clients,
        "load_seconds": round(loaded, 1),
        "drain_seconds": round(drained, 1),
        "requests_sent": soak.sent,
        "statuses_by_kind": {kind: dict(counts) for kind, counts in sorted(soak.statuses.items())},
        "unexpected_statuses_by_kind": {kind: found for kind, found in sorted(unexpected.items()) if found},
        "server_errors_5xx": sum(server_errors.values()),
        "latency_s": {
            kind: {"answered": len(values), "p50": percentile(values, 0.50), "p95": percentile(values, 0.95),
                   "mean": round(statistics.fmean(values), 3)}
            for kind, values in sorted(soak.latencies.items()) if values
        },
        "server_memory": memory_figures(soak.memory, final),
        "jobs": jobs,
        "model_batches": health["batching"].get("check"),
        "load_average_1min_at_end": load_average(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=32, help="concurrent clients")
    parser.add_argument("--seconds", type=float, default=600.0, help="length of the load (10 minutes)")
    parser.add_argument("--max-requests", type=int, default=200_000, help="most requests sent in all")
    parser.add_argument("--open-jobs", type=int, default=6, help="most unfinished jobs at a time")
    parser.add_argument("--cancel-share", type=float, default=0.4, help="share of jobs cancelled after upload")
    parser.add_argument("--drain-seconds", type=float, default=300.0, help="most seconds to wait for the jobs")
    parser.add_argument("--request-timeout", type=float, default=300.0, help="seconds a client waits for an answer")
    parser.add_argument("--max-body-bytes", type=int, default=200_000, help="the started server's --max-body-bytes")
    parser.add_argument("--check-checker", default="similarity", help="the started server's --check-checker")
    parser.add_argument("--seed", type=int, default=0)
    add_out_option(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data_dir = Path(folder) / "data"
        options = ["--check-checker", args.check_checker, "--attribute-checker", "similarity",
                   "--knowledge-checker", "similarity", "--lm", "none", "--max-body-bytes", str(args.max_body_bytes),
                   "--job-batch-size", "4"]
        with serving(data_dir, options, log=Path(folder) / "server.log") as (process, url):
            figures = asyncio.run(soak_server(args, url, process.pid, data_dir))
        log = (Path(folder) / "server.log").read_text(errors="replace").splitlines()
        figures["server_log_tracebacks"] = sum(1 for line in log if line.startswith("Traceback"))
    figures["targets_met"] = {
        "no_5xx": figures["server_errors_5xx"] == 0,
        "memory_end_within_10_percent_of_first_minute": figures["server_memory"].get("final_within_10_percent"),
        "every_job_ended_exactly_once": figures["jobs"]["every_job_ended_exactly_once"],
    }
    print(json.dumps(figures, indent=2))
    write_results(__file__, args, figures)


if __name__ == "__main__":
    main()
