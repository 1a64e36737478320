"""The list of command modules; each exposes ``register(app)``."""

from __future__ import annotations

from factscope.cli import attribute, check, ground, train_checker, knowledge

MODULES: list = [check, ground, train_checker, knowledge, attribute]
