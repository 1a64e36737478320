"""Handing memory a run has freed back to the operating system as the run goes.

glibc's allocator keeps what a process frees for later reuse, in one heap per thread that allocated. A run that
allocates and frees buffers of many sizes in several threads (a model's inputs and outputs, batch after batch) ends
up with free pages scattered through those heaps, and its resident set climbs with the records done although what
it holds does not: ``ground score`` with a small bi-encoder grew by about 34 MB over 2,500 records on two cores,
and by 13 MB (its embedding cache filling) once the freed pages were handed back after every batch.
``malloc_trim(0)`` hands them back; ``HeapTrimmer`` calls it between batches, at most once a second, so its cost
(a walk over the heaps) stays far below a batch's. Where the C library has no ``malloc_trim`` (macOS, musl) it does
nothing.
"""

from __future__ import annotations

import ctypes
import sys
import time
from collections.abc import Callable
from functools import cache

TRIM_EVERY_SECONDS = 1.0
"""The shortest time between two trims."""


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the process's C library has none."""
    if not sys.platform.startswith("linux"):
        return None
    trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    if trim is None:
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


class HeapTrimmer:
    """Hands freed heap memory back when called, at most once every ``every`` seconds."""

    def __init__(self, every: float = TRIM_EVERY_SECONDS) -> None:
        self.every = every
        self._trim = _malloc_trim()
        self._last = time.monotonic()

    def __call__(self) -> None:
        if self._trim is None:
            return
        now = time.monotonic()
        if now - self._last >= self.every:
            self._trim(0)
            self._last = now
