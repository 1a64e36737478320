"""Progress off a terminal: plain lines with counts, rate, time left and time taken (for logs, CI, nohup)."""

import pytest

from factscope.core.display import progress as report


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(report.time, "monotonic", fake)
    return fake


def test_a_stage_writes_start_progress_and_end_lines(clock, capsys):
    assert not report.console.is_terminal  # pytest captures stderr
    with report.progress("fine-tuning", 1000) as bar:
        clock.now += 10
        bar.advance(100)  # within the 30 s interval: no line
        clock.now += 30
        bar.advance(300)  # 400 done after 40 s: 10 a second, 600 left -> 60 s
        clock.now += 20
        bar.advance(600)
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "fine-tuning: started, 1,000 to do",
        "fine-tuning: 400/1,000 (40%) in 0:40, 10.0/s, about 1:00 left",
        "fine-tuning: 1,000/1,000 (100%) done in 1:00",
    ]


def test_a_stage_without_a_total_counts_and_can_learn_its_total(clock, capsys):
    with report.progress("LLM calls", None) as bar:
        bar.advance(3)
        clock.now += 3725
        bar.advance(2)
        bar.total(10)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "LLM calls: started"
    assert lines[1] == "LLM calls: 5 in 1:02:05, 1.9/h"  # 2 calls after the first step, in 3,725 s
    assert lines[2] == "LLM calls: 5/10 (50%) done in 1:02:05"


def test_a_failed_stage_writes_no_end_line(clock, capsys):
    with pytest.raises(RuntimeError), report.progress("scoring", 5) as bar:
        bar.advance(2)
        raise RuntimeError("model failed")
    assert capsys.readouterr().err.splitlines() == ["scoring: started, 5 to do"]


def test_time_left_leaves_out_start_up_and_says_estimating_until_it_can_measure(clock, capsys):
    with report.progress("checking", 100) as bar:
        clock.now += 300  # loading a model
        bar.advance(10)  # a line is due, but one step gives no rate yet
        clock.now += 5
        bar.advance(10)  # within the interval: no line
        clock.now += 30
        bar.advance(0)  # 10 items in the 35 s since the first step -> 17.1/min, 80 left -> 4:40
    lines = capsys.readouterr().err.splitlines()
    assert lines[1:3] == [
        "checking: 10/100 (10%) in 5:00, time left: estimating",
        "checking: 20/100 (20%) in 5:35, 17.1/min, about 4:40 left",
    ]
