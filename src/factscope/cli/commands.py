"""The list of command modules; each exposes ``register(app)``."""

from __future__ import annotations

from factscope.cli import check, ground, train_checker, knowledge

MODULES: list = [check, ground, train_checker, knowledge]
