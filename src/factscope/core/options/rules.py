"""An option's rule, declared with the option (``about(..., counts_when=CountsWhen(...))``): the values of the
run's other parameters it needs to count. Given where its rule does not hold, the option would be ignored
(`retrieve_k` without `corpus`) or misused (`min_window` over `window`), so a front-end refuses it; a rule that
only warns lets the run go on without it (the Ray engine's options on the local engine)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import Field, dataclass
from typing import Any


@dataclass(frozen=True)
class CountsWhen:
    """A field's option counts only when ``holds`` is true of the run's parameters (their values by name, each
    read as ``values[name]``); ``condition`` says when, naming parameters in backticks (`corpus`,
    `engine='ray'`) so that each front-end shows them its way. ``warn``: the option is only warned about."""

    holds: Callable[[Mapping[str, Any]], bool]
    condition: str
    warn: bool = False


class NotOffered(KeyError):
    """A rule read a parameter that the front-end does not offer: it cannot tell whether the rule holds."""


class _Offered(dict[str, Any]):
    """The values of the parameters a front-end offers; reading any other raises NotOffered."""

    def __missing__(self, name: str) -> Any:
        raise NotOffered(name)


def field_rules(item: Field[Any]) -> tuple[CountsWhen, ...]:
    """The rules declared on the field ``item``: its metadata's ``counts_when``, one rule or a tuple of them."""
    declared = item.metadata.get("counts_when", ())
    return declared if isinstance(declared, tuple) else (declared,)


def broken_rule(rules: Iterable[CountsWhen], values: Mapping[str, Any]) -> CountsWhen | None:
    """The first of ``rules`` that does not hold for the parameter ``values``, or None. A rule that reads a
    parameter ``values`` lacks is passed over: where a front-end does not offer it, there is nothing to tell by."""
    offered = _Offered(values)
    for rule in rules:
        try:
            if not rule.holds(offered):
                return rule
        except NotOffered:
            continue
    return None
