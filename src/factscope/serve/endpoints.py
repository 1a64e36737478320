"""Where a system is served: its synchronous endpoint is named after its command (`factscope check`: /v1/check,
`factscope attribute score`: /v1/attribute/score)."""

from __future__ import annotations

from typing import Any

from factscope.engines.system import System


def endpoint_path(system: System[Any, Any, Any, Any, Any]) -> str:
    """The path of ``system``'s synchronous endpoint: /v1/ and its command's words after `factscope`."""
    return "/v1/" + "/".join(system.command.split()[1:])
