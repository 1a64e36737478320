"""The list of command modules; each exposes ``register(app)``."""

from __future__ import annotations

from factscope.cli import train_checker

MODULES: list = [train_checker]
