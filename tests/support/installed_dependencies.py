"""factscope's dependency closure as CI installs it, read from the installed metadata, and the licence each
distribution declares.

The roots are the `pip install` commands of `.ci/run`: `-e '.[all]'` stands for factscope's own requirements with
those extras (read from pyproject.toml), and the distributions installed with `--no-deps` are roots whose declared
requirements are not followed, as pip does not install them.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

LICENCE_CATEGORIES = {"License :: OSI Approved", "License :: DFSG approved"}
"""Licence classifiers that name a kind of licence, not a licence."""


@dataclass
class InstallCommand:
    """What one `pip install` of a CI script asks for."""

    requirements: list[Requirement]
    no_deps: bool
    only_binary: bool
    """Whether pip may install wheels only (``--only-binary=:all:``): nothing is built on the machine."""


@dataclass
class Closure:
    """The installed distributions a set of install commands brings in, and the required ones not installed."""

    installed: dict[str, metadata.Distribution] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    """Canonical name of a required distribution that is not installed -> who requires it."""


def install_commands(script: Path) -> list[InstallCommand]:
    """The `pip install` commands of a shell script, in order (pip's own options dropped)."""
    commands = []
    for part in re.split(r"&&|;|\n", script.read_text(encoding="utf-8")):
        words = shlex.split(part, comments=True)
        if words[:2] != ["pip", "install"]:
            continue
        names = [word for word in words[2:] if not word.startswith("-")]
        requirements = [Requirement(_project_name(name)) for name in names]
        commands.append(InstallCommand(requirements, "--no-deps" in words, "--only-binary=:all:" in words))
    return commands


def _project_name(word: str) -> str:
    """``.[all]`` (the checkout) as the requirement ``factscope[all]``; any other word as it is."""
    return re.sub(r"^\.(?=\[|$)", "factscope", word)


def own_requirements(pyproject: Path, extras: set[str]) -> list[Requirement]:
    """factscope's declared requirements with ``extras``, from its pyproject.toml."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    lines = list(project["dependencies"])
    for extra in sorted(extras):
        lines += project["optional-dependencies"][extra]
    return [Requirement(line) for line in lines]


def closure(commands: list[InstallCommand], pyproject: Path) -> Closure:
    """Every distribution the commands install, following declared requirements (with their extras and markers)
    except those of a `--no-deps` root; factscope itself is not a member."""
    found = Closure()
    extras_seen: dict[str, set[str]] = {}
    todo: list[tuple[Requirement, str, bool]] = [
        (requirement, "the CI script", command.no_deps) for command in commands for requirement in command.requirements
    ]
    while todo:
        requirement, parent, no_deps = todo.pop()
        name = canonicalize_name(requirement.name)
        if name == "factscope":
            todo += [(own, "factscope", False) for own in own_requirements(pyproject, set(requirement.extras))]
            continue
        extras = set(requirement.extras)
        if name in extras_seen and extras <= extras_seen[name]:
            continue
        extras_seen.setdefault(name, set()).update(extras)
        try:
            distribution = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            found.missing[name] = parent
            continue
        found.installed[name] = distribution
        if no_deps:
            continue
        for line in distribution.requires or []:
            needed = Requirement(line)
            if needed.marker is None or any(needed.marker.evaluate({"extra": extra}) for extra in extras or {""}):
                todo.append((needed, name, False))
    return found


def declared_licence(distribution: metadata.Distribution) -> str | None:
    """The licence a distribution's metadata declares, as written: its License-Expression; else a one-line License
    field; else its licence classifiers (joined with OR); else the first line of a License field that holds a whole
    licence text. None when it declares none."""
    fields = distribution.metadata
    if expression := (fields.get("License-Expression") or "").strip():
        return expression
    text = (fields.get("License") or "").strip()
    if text.upper() == "UNKNOWN":
        text = ""
    if text and "\n" not in text:
        return text
    classifiers = sorted(
        line.split("::")[-1].strip()
        for line in fields.get_all("Classifier") or []
        if line.startswith("License ::") and line not in LICENCE_CATEGORIES
    )
    if classifiers:
        return " OR ".join(classifiers)
    return text.splitlines()[0].strip() if text else None


def licence_expression(declared: str, aliases: dict[str, str]) -> str:
    """A declared licence as an SPDX expression: the whole text through ``aliases``, else each OR-alternative."""
    if declared in aliases:
        return aliases[declared]
    return " OR ".join(aliases.get(alternative, alternative) for alternative in declared.split(" OR "))


def is_allowed(expression: str, allowed: set[str]) -> bool:
    """Whether one OR-alternative of an SPDX expression (without parentheses) is made only of allowed licences."""
    return any(set(alternative.split(" AND ")) <= allowed for alternative in expression.split(" OR "))
