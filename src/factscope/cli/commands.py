"""The list of command modules; each exposes ``register(app)``."""

from __future__ import annotations

from types import ModuleType

from factscope.cli import (
    agree,
    attribute,
    check,
    eval_checker,
    examples,
    export,
    ground,
    knowledge,
    package_checker,
    report,
    serve,
    train_checker,
)

MODULES: list[ModuleType] = [check, agree, ground, attribute, knowledge, train_checker, eval_checker, package_checker, report, export, examples, serve]
