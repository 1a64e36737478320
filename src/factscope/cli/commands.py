"""The list of command modules; each exposes ``register(app)``."""

from __future__ import annotations

from factscope.cli import check, ground, train_checker

MODULES: list = [check, ground, train_checker]
