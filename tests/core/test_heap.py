"""Handing freed heap memory back between batches: at most once an interval, and nothing where the C library
cannot."""

from __future__ import annotations

import platform

import pytest

from factscope.core.runs import heap
from factscope.core.runs.heap import HeapTrimmer


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_heap_is_trimmed_at_most_once_an_interval(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(heap.time, "monotonic", clock)
    calls: list[int] = []
    trimmer = HeapTrimmer(every=1.0)
    monkeypatch.setattr(trimmer, "_trim", lambda pad: calls.append(pad) or 1)
    for now in (100.5, 101.2, 101.9, 102.3, 102.4):
        clock.now = now
        trimmer()
    assert calls == [0, 0], "trimmed at 101.2 and 102.3 only"


def test_without_malloc_trim_nothing_is_called(monkeypatch):
    monkeypatch.setattr(heap, "_malloc_trim", lambda: None)
    trimmer = HeapTrimmer(every=0.0)
    trimmer()
    assert trimmer._trim is None


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc_trim")
def test_glibc_malloc_trim_is_found_and_runs():
    trim = heap._malloc_trim()
    assert trim is not None and trim(0) in (0, 1)
