"""Named components of one kind (extractors, checkers, presence models, retrievers), built from component specs.

A component spec is a string, ``name`` or ``name:argument``, split at the first colon (``parse_spec`` gives its
``SpecParts``): ``nli:nli:MODEL`` is the entry ``nli`` with
the argument ``nli:MODEL``. An entry says what it is (one line of help), whether it takes an argument and what
the argument means, whether it needs an LLM, and how to build it.

A factory is called as ``factory(argument, **options)``: ``argument`` is the text after the colon (None when
there is none) and ``options`` are the keyword options of the kind's ``make_*`` function, always including
``llm`` for the kinds that can use one. A factory takes the options it uses and ignores the rest (``**_``).
An entry that needs an LLM is never called with ``llm=None``: :meth:`Registry.build` raises a ConfigError that
names the settings that supply one.

Plugins: a distribution adds entries through the entry-point group of the kind (``factscope.extractors``,
``factscope.checkers``, ``factscope.presence``, ``factscope.retrievers``). The entry point's name is the spec
name; its object is an :class:`Entry` (with help, argument and ``needs_llm``) or a bare factory, which then
takes an optional argument, needs no LLM and has the first line of its docstring as help. Plugins are listed on
the first lookup of a name that is not built in (or of the whole list) and imported when first used; one that
fails to import gives a ConfigError naming it and the error. A plugin cannot replace a built-in name.
"""

from __future__ import annotations

import importlib.metadata
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, TypeVar, cast

from factscope.core.errors import ConfigError

T = TypeVar("T")

LLM_SETTINGS = "pass `llm`"

CATALOGUE_COMMAND = "`factscope checkers`"
"""The command that describes every entry of every kind, plugins included."""


class SpecParts(NamedTuple):
    """A component spec string split: the entry's name and the argument after the colon (None when absent or
    empty)."""

    name: str
    argument: str | None


def parse_spec(spec: str) -> SpecParts:
    """Split ``name:argument`` at the first colon; ``name`` and ``name:`` have no argument."""
    name, _, argument = spec.strip().partition(":")
    return SpecParts(name, argument or None)


@dataclass(frozen=True)
class Argument:
    """What an entry takes after the colon: ``metavar`` names it in help, ``meaning`` says what it is."""

    metavar: str
    meaning: str
    required: bool = True


@dataclass(frozen=True)
class Entry(Generic[T]):
    """One named component: help text, its argument (None: takes none), whether it needs an LLM, its factory.

    ``needs_llm`` is a flag or, when it depends on the argument, a function of the argument.
    """

    name: str
    help: str
    factory: Callable[..., T]
    argument: Argument | None = None
    needs_llm: bool | Callable[[str | None], bool] = False

    @property
    def usage(self) -> str:
        """How a spec names this entry: ``name``, ``name:ARG`` or ``name[:ARG]``."""
        if self.argument is None:
            return self.name
        if self.argument.required:
            return f"{self.name}:{self.argument.metavar}"
        return f"{self.name}[:{self.argument.metavar}]"

    def llm_needed(self, argument: str | None) -> bool:
        """Whether building this entry with ``argument`` needs an LLM."""
        return self.needs_llm(argument) if callable(self.needs_llm) else self.needs_llm

    def description(self) -> str:
        """``help; ARG: meaning; needs an LLM``: what the entry is, what its argument means, whether it always
        needs an LLM."""
        details = [self.help]
        if self.argument is not None:
            details.append(f"{self.argument.metavar}: {self.argument.meaning}")
        if self.needs_llm is True:
            details.append("needs an LLM")
        return "; ".join(details)

    def help_line(self) -> str:
        """``usage (help; ARG: meaning; needs an LLM)``."""
        return f"{self.usage} ({self.description()})"


class Registry(Generic[T]):
    """The entries of one kind of component: built-ins, those added by :meth:`register`, and plugins."""

    def __init__(self, kind: str, group: str, entries: list[Entry[T]]) -> None:
        self.kind = kind
        self.group = group
        self._own: dict[str, Entry[T]] = {}
        self._loaded: dict[str, Entry[T]] = {}
        self._plugins: dict[str, importlib.metadata.EntryPoint] | None = None
        for entry in entries:
            self.register(entry)

    def register(self, entry: Entry[T]) -> None:
        """Add an entry in code (no entry point needed); its name must be new."""
        if entry.name in self._own or not entry.name or ":" in entry.name:
            raise ConfigError(f"cannot register the {self.kind} '{entry.name}': the name is empty, has a colon or is taken")
        self._own[entry.name] = entry

    def rescan(self) -> None:
        """Forget the plugins found so far: the next lookup reads the entry points again."""
        self._plugins = None
        self._loaded.clear()

    def own_names(self) -> list[str]:
        """The names built in or registered in code: those a plugin cannot take."""
        return list(self._own)

    def names(self) -> list[str]:
        """Every name a spec can use: entries in registration order, then plugins (not imported)."""
        return [*self._own, *self._discover()]

    def get(self, name: str) -> Entry[T]:
        """The entry called ``name``; a ConfigError listing the known names when there is none."""
        if name in self._own:
            return self._own[name]
        if name in self._loaded:
            return self._loaded[name]
        point = self._discover().get(name)
        if point is None:
            raise ConfigError(
                f"unknown {self.kind} '{name}'; known {self.kind}s: {', '.join(self.names())}. Use one of these, "
                f"or install a plugin that registers '{name}' in the entry-point group '{self.group}'"
            )
        return self._load(point)

    def needs_llm(self, spec: str) -> bool:
        """Whether building ``spec`` needs an LLM client (raises a ConfigError for an unknown name)."""
        name, argument = parse_spec(spec)
        return self.get(name).llm_needed(argument)

    def build(self, spec: str, **options: Any) -> T:
        """The component named by ``spec``, its factory called as ``factory(argument, **options)``."""
        name, argument = parse_spec(spec)
        entry = self.get(name)
        if entry.argument is None and argument is not None:
            raise ConfigError(f"the {name} {self.kind} takes no argument after ':'; use '{name}', not '{spec}'")
        if entry.argument is not None and entry.argument.required and argument is None:
            raise ConfigError(
                f"the {name} {self.kind} needs an argument: {entry.usage} "
                f"({entry.argument.metavar}: {entry.argument.meaning})"
            )
        if entry.llm_needed(argument) and options.get("llm") is None:
            raise ConfigError(f"the {spec} {self.kind} needs a chat model: {LLM_SETTINGS}")
        return entry.factory(argument, **options)

    def help_text(self) -> str:
        """One line per entry, ``usage (help; ...)``, lines ending with ';' so that they also read as one line."""
        return ";\n".join(entry if isinstance(entry, str) else entry.help_line() for entry in self.entries())

    def usages(self) -> str:
        """How a spec names each entry, in one line, those that always need an LLM last: ``rules, facts; with an
        LLM: llm``."""
        entries = [entry for entry in self.entries() if isinstance(entry, Entry)]
        plain = [entry.usage for entry in entries if entry.needs_llm is not True]
        with_llm = [entry.usage for entry in entries if entry.needs_llm is True]
        return ", ".join(plain) + (f"; with an LLM: {', '.join(with_llm)}" if with_llm else "")

    def catalogue(self) -> str:
        """``usages`` and where each entry is described: the end of a help text that offers the entries."""
        return f"{self.usages()} ({CATALOGUE_COMMAND} describes each)"

    def entries(self) -> list[Entry[T] | str]:
        """Every entry, plugins loaded; a plugin that fails to load as a line that says so."""
        found: list[Entry[T] | str] = list(self._own.values())
        for name, point in self._discover().items():
            try:
                found.append(self._load(point))
            except ConfigError as error:
                found.append(f"{name} (a broken plugin: {error})")
        return found

    def _discover(self) -> dict[str, importlib.metadata.EntryPoint]:
        if self._plugins is None:
            found: dict[str, importlib.metadata.EntryPoint] = {}
            for point in importlib.metadata.entry_points(group=self.group):
                if point.name in self._own or point.name in found:
                    warnings.warn(
                        f"ignoring the {self.kind} plugin '{point.name}' ({point.value}): the name is taken",
                        stacklevel=2,
                    )
                    continue
                found[point.name] = point
            self._plugins = found
        return self._plugins

    def _load(self, point: importlib.metadata.EntryPoint) -> Entry[T]:
        if point.name in self._loaded:
            return self._loaded[point.name]
        origin = f"{point.value}, from {point.dist.name}" if point.dist is not None else point.value
        try:
            loaded = point.load()
        except Exception as error:
            raise ConfigError(
                f"the {self.kind} plugin '{point.name}' ({origin}) failed to load: {type(error).__name__}: {error}. "
                "Fix or uninstall that plugin"
            ) from error
        entry = self._entry_of(point.name, origin, loaded)
        self._loaded[point.name] = entry
        return entry

    def _entry_of(self, name: str, origin: str, loaded: object) -> Entry[T]:
        if isinstance(loaded, Entry):
            if loaded.name != name:
                raise ConfigError(
                    f"the {self.kind} plugin '{name}' ({origin}) holds an Entry named '{loaded.name}'; "
                    "the entry point and the Entry must have the same name"
                )
            return cast(Entry[T], loaded)
        if callable(loaded):
            summary = (loaded.__doc__ or "").strip().splitlines()
            return Entry(
                name,
                summary[0] if summary else f"plugin {origin}",
                cast(Callable[..., T], loaded),
                Argument("ARG", "passed to the plugin", required=False),
            )
        raise ConfigError(
            f"the {self.kind} plugin '{name}' ({origin}) is neither a factscope Entry nor a callable factory"
        )
