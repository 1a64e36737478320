"""The rule for tests of optional extras: skipped where the extra is missing, failed in CI, which installs them all."""

from __future__ import annotations

import pytest

from optional_extras import needs_extra, require_extra


def test_an_installed_extra_runs_its_test(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    require_extra(True, "lm")
    assert not needs_extra(True, "lm").args[0]


def test_a_missing_extra_skips_outside_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"pip install 'factscope\[lm\]'"):
        require_extra(False, "lm")
    assert needs_extra(False, "lm").args[0]


def test_a_missing_extra_fails_in_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="its install is broken"):
        require_extra(False, "lm")
    assert not needs_extra(False, "lm").args[0]
