"""Every dependency is chosen: the distributions that CI's install brings in (read offline from their installed
metadata) are on the allow-list in allowed_dependencies.toml, with the licence they declare, and every licence is
an allowed one; nothing in the install is built from source."""

from __future__ import annotations

import re
import tomllib

import pytest

import repo_paths
from installed_dependencies import closure, declared_licence, install_commands, is_allowed, licence_expression
from optional_extras import require_extra

ROOT = repo_paths.ROOT
CI_SCRIPT = ROOT / ".ci" / "run"
ALLOW_LIST = ROOT / "tests" / "codebase" / "allowed_dependencies.toml"


@pytest.fixture(scope="module")
def allow_list():
    return tomllib.loads(ALLOW_LIST.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def installed():
    return closure(install_commands(CI_SCRIPT), ROOT / "pyproject.toml")


def test_the_ci_install_is_whole(installed):
    """In CI every required distribution is installed, so that the checks below see the whole closure."""
    missing = [f"{name} (required by {parent})" for name, parent in sorted(installed.missing.items())]
    require_extra(not missing, "all")
    assert installed.installed


def test_every_installed_dependency_is_on_the_allow_list_with_the_licence_it_declares(installed, allow_list):
    recorded, aliases, undeclared = allow_list["distributions"], allow_list["aliases"], allow_list["undeclared"]
    problems = []
    for name, distribution in sorted(installed.installed.items()):
        declared = declared_licence(distribution)
        expression = None if declared is None else licence_expression(declared, aliases)
        if name not in recorded:
            problems.append(f"{name} {distribution.version} is not on the allow-list (it declares {declared!r})")
        elif declared is None and name not in undeclared:
            problems.append(f"{name} declares no licence: record its real licence and where it was read in [undeclared]")
        elif declared is not None and name in undeclared:
            problems.append(f"{name} now declares {declared!r}: remove it from [undeclared]")
        elif expression is not None and expression != recorded[name]:
            problems.append(f"{name} {distribution.version} declares {declared!r} ({expression}), not {recorded[name]!r}")
    assert not problems, f"review and update {ALLOW_LIST.name}:\n" + "\n".join(problems)


def test_every_recorded_licence_is_allowed(allow_list):
    allowed = set(allow_list["licences"]["allowed"])
    refused = {name: licence for name, licence in allow_list["distributions"].items() if not is_allowed(licence, allowed)}
    assert not refused, f"licences outside the allowed set: {refused}"


def test_no_gpl_licence_is_allowed(allow_list):
    """LGPL may be allowed where a dependency needs it, by name; GPL and AGPL never are."""
    gpl = [licence for licence in allow_list["licences"]["allowed"] if re.match(r"A?GPL", licence)]
    assert not gpl


def test_an_alternative_is_allowed_only_when_all_its_licences_are():
    allowed = {"MIT", "MPL-1.1"}
    assert is_allowed("MPL-1.1 OR GPL-2.0-only OR LGPL-2.1-or-later", allowed)
    assert not is_allowed("MIT AND GPL-3.0-only", allowed)
    assert not is_allowed("AGPL-3.0-only", allowed)


def test_a_licence_in_words_becomes_its_spdx_expression():
    aliases = {"MIT License": "MIT", "Dual License": "Apache-2.0 OR BSD-3-Clause"}
    assert licence_expression("MIT License OR Apache-2.0", aliases) == "MIT OR Apache-2.0"
    assert licence_expression("Dual License", aliases) == "Apache-2.0 OR BSD-3-Clause"
    assert licence_expression("GPL-3.0-only", aliases) == "GPL-3.0-only"


def test_every_install_of_the_ci_script_takes_wheels_only():
    commands = install_commands(CI_SCRIPT)
    assert commands
    assert all(command.only_binary for command in commands), "a pip install in .ci/run may build from source"


def test_the_readme_gives_the_ci_install_command():
    """.ci/run runs the README's second command as it is written there."""
    command = CI_SCRIPT.read_text(encoding="utf-8").strip().splitlines()[-1]
    assert command in (ROOT / "README.md").read_text(encoding="utf-8")
