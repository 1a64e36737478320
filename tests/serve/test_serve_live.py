"""`factscope serve` as a real uvicorn process on 127.0.0.1: requests over the network stack, micro-batching of
concurrent clients, a browser driving the web app (Debian's chromium through Playwright), and a job that
survives the server being killed.

Screenshots are kept in ``build/test-artifacts/serve`` (or ``$FACTSCOPE_TEST_ARTIFACTS``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

import repo_paths

pytest.importorskip("fastapi")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

ROOT = repo_paths.ROOT
ARTIFACTS = Path(os.environ.get("FACTSCOPE_TEST_ARTIFACTS", ROOT / "build" / "test-artifacts")) / "serve"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
RECORD = {
    "question": "Where was Marie Curie born?",
    "response": "Marie Curie was born in Paris. She won the Nobel Prize in Physics.",
    "references": ["Marie Curie was born in Warsaw in 1867. She shared the 1903 Nobel Prize in Physics."],
}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Served:
    """One `factscope serve` process and its base URL."""

    def __init__(self, data_dir: Path, *extra: str) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        env.pop("FACTSCOPE_API_KEY", None)
        self.log = (data_dir.parent / f"serve-{self.port}.log").open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "factscope", "serve", "--port", str(self.port), "--data-dir", str(data_dir),
             *extra],
            stdout=self.log, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
        )
        deadline = time.time() + 300
        while time.time() < deadline:
            assert self.process.poll() is None, "the server exited; see its log"
            try:
                if httpx.get(f"{self.url}/v1/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise AssertionError("the server did not come up")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(30)
        self.log.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    server = Served(tmp_path_factory.mktemp("live") / "data")
    yield server
    server.stop()


def test_a_real_server_answers_and_batches_concurrent_clients(served):
    one = httpx.post(f"{served.url}/v1/check", json={"records": [RECORD]}, timeout=120)
    assert one.status_code == 200
    labels = [claim["verdict"]["label"] for claim in one.json()["results"][0]["claims"]]
    before = httpx.get(f"{served.url}/v1/health").json()["batching"]["check"]

    def ask(n: int) -> httpx.Response:
        return httpx.post(f"{served.url}/v1/check", json={"records": [{**RECORD, "id": f"c{n}"}]}, timeout=120)

    with ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(ask, range(8)))
    assert all(reply.status_code == 200 for reply in replies)
    assert [r.json()["results"][0]["id"] for r in replies] == [f"c{n}" for n in range(8)]
    assert all([c["verdict"]["label"] for c in r.json()["results"][0]["claims"]] == labels for r in replies)
    after = httpx.get(f"{served.url}/v1/health").json()["batching"]["check"]
    assert after["requests"] - before["requests"] == 8
    assert after["batches"] - before["batches"] < 8


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it as root)")
def test_a_browser_runs_a_check_and_opens_a_report(served, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the dev extra)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    upload = tmp_path / "two.jsonl"
    upload.write_text("".join(json.dumps({**RECORD, "id": f"u{n}"}) + "\n" for n in range(2)), encoding="utf-8")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{served.url}/?system=check")
        page.fill("#f-question", RECORD["question"])
        page.fill("#f-response", RECORD["response"])
        page.fill("#f-references", RECORD["references"][0])
        page.click("button:has-text('Run check')")
        page.wait_for_selector("section.results", timeout=120_000)
        marks = page.locator("section.results .response mark[data-claims]")
        assert marks.count() >= 2
        classes = {marks.nth(i).get_attribute("class") for i in range(marks.count())}
        badges = page.locator("table.claims .badge").all_inner_texts()
        assert badges and set(badges) <= {"Entailment", "Neutral", "Contradiction", "failed"}
        assert classes <= {badge.lower() for badge in badges}
        assert page.locator("section.results .reference mark[data-claims]").count() >= 1
        texts = [marks.nth(i).inner_text() for i in range(marks.count())]
        assert "Paris" in " ".join(texts) and not any(text.endswith(".") for text in texts), "the claims' words"
        first = marks.first
        first.hover()
        tip = page.locator(".fs-tip")
        said = tip.inner_text()
        assert tip.is_visible() and "P(E)" in said and "claim 1: Marie Curie was born in Paris" in said and "evidence: " in said
        assert page.locator("table.claims tr.linked").count() >= 1
        record = page.locator("section.results .record").first
        record.scroll_into_view_if_needed()
        first.hover()
        page.screenshot(path=str(ARTIFACTS / "spans.png"), clip=record.bounding_box())
        page.screenshot(path=str(ARTIFACTS / "check.png"), full_page=True)
        first.click()
        popup = first.evaluate("mark => getComputedStyle(mark, '::after').content")
        assert popup == "none", "the script's tip shows the claims; the report's click popup stays off"

        page.goto(f"{served.url}/?system=check")
        page.set_input_files("#upload", str(upload))
        page.click("button:has-text('Start a job')")
        page.wait_for_selector(".status.done", timeout=120_000)
        assert "2 / 2" in page.inner_text(".job")
        page.screenshot(path=str(ARTIFACTS / "job.png"), full_page=True)
        page.click("a:has-text('report')")
        page.wait_for_selector("section.record")
        assert page.locator("section.record").count() == 2
        assert page.locator("section.record mark[data-claims]").count() >= 2
        page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)
        browser.close()
    assert (ARTIFACTS / "check.png").stat().st_size > 0


def test_a_killed_server_resumes_its_job_with_every_record_once(tmp_path):
    data = tmp_path / "data"
    first = Served(data, "--job-batch-size", "1", "--no-warm", "--job-lease-seconds", "2")
    records = [{**RECORD, "id": f"k{n}"} for n in range(24)]
    body = "".join(json.dumps(r) + "\n" for r in records)
    try:
        job = httpx.post(f"{first.url}/v1/jobs", params={"system": "check", "name": "forty.jsonl"}, content=body)
        assert job.status_code == 202
        job_id = job.json()["id"]
        deadline = time.time() + 300
        while httpx.get(f"{first.url}/v1/jobs/{job_id}").json()["done"] < 3:
            assert time.time() < deadline
            time.sleep(0.05)
    finally:
        first.kill()
    results = data / "results" / f"{job_id}.jsonl"
    before = [line for line in results.read_text().splitlines() if line.strip()]
    assert 3 <= len(before) < len(records), "the job finished before the kill; the test needs a slower job"

    second = Served(data, "--job-batch-size", "8", "--no-warm", "--job-lease-seconds", "2")
    try:
        deadline = time.time() + 300
        while (state := httpx.get(f"{second.url}/v1/jobs/{job_id}").json())["status"] != "done":
            assert state["status"] in ("queued", "running") and time.time() < deadline, state
            time.sleep(0.2)
        streamed = httpx.get(f"{second.url}/v1/jobs/{job_id}/results").text.splitlines()
    finally:
        second.stop()
    ids = [json.loads(line)["id"] for line in streamed]
    assert sorted(ids) == sorted(r["id"] for r in records)
    assert len(ids) == len(set(ids))
