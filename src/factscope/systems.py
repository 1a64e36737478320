"""The one list of factscope's systems, in the order every front-end shows them: the command line's commands,
`factscope report`'s dispatch and the server's endpoints, components, request options and web forms all read it.

Each entry is a ``System`` (``factscope.engines.system``), which says everything a front-end needs of it: how its
records are read, its spec (options, defaults, the components a server chooses), its report hooks and its web
form, and its command (``command_form``). A new system is added here, with its own package (and a module
``factscope.cli.<name>`` that registers its command).
"""

from __future__ import annotations

from typing import Any

from factscope.conner.system import KNOWLEDGE
from factscope.engines.system import System
from factscope.grounding.system import GROUND
from factscope.kalma.system import ATTRIBUTE
from factscope.refchecker.system import CHECK

AnySystem = System[Any, Any, Any, Any, Any]
"""A system of any spec, record, row, totals and run type."""

SYSTEMS: tuple[AnySystem, ...] = (CHECK, GROUND, ATTRIBUTE, KNOWLEDGE)
"""Every system, in the order front-ends list them."""

BY_NAME: dict[str, AnySystem] = {system.name: system for system in SYSTEMS}
"""Every system by its short name: check, ground, attribute, knowledge."""
