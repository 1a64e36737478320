"""The components a server runs each system with (``Components``), made from the systems themselves
(``factscope.systems``): a field ``<system>_<name>`` for each field of a system's spec that a server chooses at
start-up (``System.served``), with that field's type, default, range and help, so that a server's defaults are the
library's; and the settings every system shares (the check mode, the web retrieval settings, the LLM client).
`factscope serve` offers every field with a help text as an option."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import Field, dataclass, field
from typing import TYPE_CHECKING, Any

from factscope.checkers.defaults import DEFAULT_MODE
from factscope.core.options.metadata import about, declared_type
from factscope.core.options.validation import ValidatedOptions, default_of
from factscope.retrieve.web_settings import WebSettings
from factscope.serve.endpoints import endpoint_path
from factscope.systems import SYSTEMS, AnySystem

if TYPE_CHECKING:
    from factscope.checkers.options import CheckMode
    from factscope.engines.served import ServedField

LIMITS = ("min", "max", "min_open", "check", "parse")
"""The metadata of a spec field that its server option keeps: its range and its check (its rules read the spec's
other fields, so the spec applies them when the server builds it)."""


@dataclass(frozen=True)
class ServerComponents(ValidatedOptions):
    """The settings every system of a server shares; ``Components`` adds each system's own components."""

    mode: CheckMode = field(default=DEFAULT_MODE, metadata=about(
        "exact, or fast: every system's model checks read each claim or fact against its most relevant segments "
        "or windows only (check's and knowledge's checkers, ground's presence model, attribute's checker)"
    ))
    web: WebSettings = field(default_factory=WebSettings)
    llm: Any = None
    """An ``LLMClient`` for the components that need one (None: such components cannot be built)."""

    if TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            """A system's component (``<system>_<name>``), a field that ``Components`` adds."""

    def chosen(self, system: AnySystem) -> dict[str, Any]:
        """The fields of ``system``'s spec that this server chose, by their name in the spec."""
        return {served.name: getattr(self, component_name(system, served)) for served in system.served}

    def spec(self, system: AnySystem) -> Any:
        """The spec ``system`` runs with on this server (``System.served_spec``)."""
        return system.served_spec(self.chosen(system), mode=self.mode, web=self.web)

    def needs_llm(self) -> bool:
        """Whether a component of any system calls an LLM (an LLM extractor, checker or presence model, or the
        endpoint's completions as the causal LM)."""
        return any(system.needs_llm(self.spec(system)) for system in SYSTEMS)


def component_name(system: AnySystem, served: ServedField) -> str:
    """The name of the server's field of ``system``'s spec field ``served``: check_extractor, ground_presence."""
    return f"{system.name}_{served.name}"


def component_fields() -> list[tuple[str, Any, Field[Any]]]:
    """A field for each spec field a system serves (``System.served``): its type, its default, its range and its
    help (the spec's, with the endpoint it is for), in the order of the systems."""
    made: list[tuple[str, Any, Field[Any]]] = []
    for system in SYSTEMS:
        spec_fields = {item.name: item for item in dataclasses.fields(system.spec_type)}
        for served in system.served:
            item = spec_fields[served.name]
            meta = item.metadata
            kind = served.option_type or meta.get("option_type") or declared_type(system.spec_type, item)
            limits: dict[str, Any] = {name: meta[name] for name in LIMITS if name in meta}
            if served.flag is not None:
                limits["flag"] = served.flag
            metadata = about("", catalogue=_help(served, meta, endpoint_path(system)), **limits)
            made.append((component_name(system, served), kind, field(default=default_of(item), metadata=metadata)))
    return made


def _help(served: ServedField, meta: Mapping[str, Any], path: str) -> Any:
    """The help text of a server's component: the spec field's (made when read, as it may end in a catalogue),
    or the one ``served`` gives, and the endpoint it is for."""
    return lambda: f"{served.help or meta['help']} ({path})"


Components: type[ServerComponents] = dataclasses.make_dataclass(
    "Components", component_fields(), bases=(ServerComponents,), frozen=True,
    namespace={"__module__": __name__, "__doc__": "The components each system runs with, by spec (as the command "
                                                  "line names them), and the settings they share; built once, on "
                                                  "first use."},
)
"""The components of every system, one field each (``component_fields``), and the settings they share."""
