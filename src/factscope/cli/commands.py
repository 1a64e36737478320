"""The list of command modules; each exposes ``register(app)``."""

from __future__ import annotations

from factscope.cli import agree, attribute, check, ground, knowledge, report, train_checker

MODULES: list = [check, agree, ground, attribute, knowledge, train_checker, report]
