"""What a server makes of a system's spec: the fields it chooses once, at start-up (``ServedField``: the
components it builds and what they are built from), and the spec it runs with (``served_spec``): those fields as
chosen, the server-wide check mode, and every other field at the spec's default, so that a server's defaults are
the library's."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ServedField:
    """A field of a system's spec that a server chooses at start-up. `factscope serve` offers it as the option
    ``<system>_<name>`` unless ``flag`` names another; ``option_type`` is the type of the values a server takes,
    and ``help`` what they mean, where they are fewer than the spec's (by default the spec field's own)."""

    name: str
    flag: str | None = None
    option_type: Any = None
    help: str | None = None


def served_spec(spec_type: type[Any], chosen: Mapping[str, Any], *, mode: str) -> Any:
    """The spec ``spec_type`` with the fields ``chosen`` and the check ``mode`` of every model check (its field
    ``mode``, or else the ``mode`` of its ``checker_settings``), its other fields at their defaults."""
    names = {item.name for item in dataclasses.fields(spec_type)}
    values = dict(chosen)
    if "mode" in names:
        values["mode"] = mode
    elif "checker_settings" in names:
        values["checker_settings"] = {"mode": mode}
    return spec_type(**values)
