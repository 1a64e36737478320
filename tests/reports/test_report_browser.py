"""The page `factscope report` writes, opened from disk in a real browser (Debian's chromium through Playwright):
a real `factscope check` run's spans are coloured as the legend says, hovering one names its claims, clicking it
keeps them shown, and its number leads to the claim's row. No script runs: the page has none.

Screenshots are kept in ``build/test-artifacts/report`` (or ``$FACTSCOPE_TEST_ARTIFACTS``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import repo_paths

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(600),
    pytest.mark.skipif(
        (shutil.which("chromium") or shutil.which("chromium-browser")) is None,
        reason="Debian's chromium is not installed (.ci/run installs it as root)",
    ),
]

ARTIFACTS = (
    Path(os.environ.get("FACTSCOPE_TEST_ARTIFACTS", repo_paths.ROOT / "build" / "test-artifacts")) / "report"
)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
RECORD = {
    "id": "curie",
    "question": "Where was Marie Curie born?",
    "response": "Marie Curie was born in Paris. She won the Nobel Prize in Physics.",
    "references": ["Marie Curie was born in Warsaw in 1867. She shared the 1903 Nobel Prize in Physics."],
}


def _factscope(*arguments: str) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "factscope", *arguments],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=500,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def report_page(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    (folder / "answers.jsonl").write_text(json.dumps(RECORD) + "\n", encoding="utf-8")
    _factscope("check", str(folder / "answers.jsonl"), "-o", str(folder / "checked.jsonl"))
    _factscope("report", str(folder / "checked.jsonl"), "-o", str(folder / "report.html"))
    return folder / "report.html"


def test_the_report_shows_a_spans_claims_on_hover_and_click(report_page):
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (the dev extra)"
    )
    assert "<script" not in report_page.read_text(encoding="utf-8")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=shutil.which("chromium") or shutil.which("chromium-browser"), args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1100, "height": 800})
        page.goto(report_page.as_uri())
        record = page.locator("section.record").first
        marks = record.locator(".response mark[data-claims]")
        assert marks.count() >= 2
        texts = [marks.nth(i).inner_text() for i in range(marks.count())]
        assert "Paris" in " ".join(texts) and not any(text.endswith(".") for text in texts), (
            "the claims' words"
        )

        def background(locator) -> str:
            return locator.evaluate("element => getComputedStyle(element).backgroundColor")

        legend = page.locator(".legend mark")
        colour = {
            legend.nth(i).get_attribute("class"): background(legend.nth(i)) for i in range(legend.count())
        }
        assert len(set(colour.values())) == len(colour) == 4, "one colour a label"
        for i in range(marks.count()):
            assert background(marks.nth(i)) == colour[marks.nth(i).get_attribute("class")]

        paris = record.locator(".response mark", has_text="Paris")
        said = paris.get_attribute("title")
        label = {"entailment": "Entailment", "neutral": "Neutral", "contradiction": "Contradiction"}
        assert said.startswith("claim 1: Marie Curie was born in Paris") and "evidence: " in said
        assert f"\u2192 {label[paris.get_attribute('class')]} (P=0." in said

        def popup(locator) -> str:
            return locator.evaluate("element => getComputedStyle(element, '::after').content")

        paris.hover()
        assert popup(paris) == "none", "hovering leaves the text to the browser's own tooltip"
        paris.click()
        assert popup(paris) == json.dumps(said, ensure_ascii=False), (
            "a click keeps the claim, its label, P and evidence shown"
        )
        page.screenshot(path=str(ARTIFACTS / "spans.png"), clip=record.bounding_box())
        page.locator("body").click(position={"x": 5, "y": 5})
        assert popup(paris) == "none"

        number = record.locator(".response sup.claims a").first
        row = page.locator(f"#r1-c{number.inner_text()}")
        unmarked = background(row.locator("td").nth(1))
        number.click()
        assert row.evaluate("row => row.matches(':target')")
        assert background(row.locator("td").nth(1)) != unmarked, "the claim's row is marked"
        box, view = row.bounding_box(), page.viewport_size
        assert box is not None and 0 <= box["y"] < view["height"], "the claim's row is scrolled into view"
        browser.close()
    assert (ARTIFACTS / "spans.png").stat().st_size > 0
