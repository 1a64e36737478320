"""Tests of an optional extra skip where it is not installed, except in CI, which installs every extra: there a
missing extra is a broken install and fails the test instead of hiding it."""

from __future__ import annotations

import os

import pytest


def require_extra(available: bool, extra: str) -> None:
    """Skip (fail when the CI variable is set) unless the optional ``extra`` is ``available``."""
    if available:
        return
    message = f"the {extra} extra is not installed: pip install 'factscope[{extra}]'"
    if os.environ.get("CI"):
        pytest.fail(f"{message}; CI installs every extra (.[all]), so its install is broken")
    pytest.skip(message)


def needs_extra(available: bool, extra: str) -> pytest.MarkDecorator:
    """A mark that skips a test when the optional ``extra`` is not ``available``, outside CI only: in CI the test
    runs, and fails on the missing extra."""
    return pytest.mark.skipif(
        not available and not os.environ.get("CI"),
        reason=f"the {extra} extra is not installed: pip install 'factscope[{extra}]'",
    )
