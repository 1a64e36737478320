"""A command's options built from a dataclass's fields, which declare each option's help, range, flag and rule
(``factscope.core.options.metadata.about``); the command receives them as one instance."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Collection, Mapping
from dataclasses import MISSING, Field, fields
from typing import Annotated, Any, TypeVar

import typer

from factscope.cli.option_rules import RuledOption, enforce_field_rules
from factscope.cli.parameter_flags import MENTION, in_context, with_flags
from factscope.core.errors import ConfigError
from factscope.core.options.metadata import declared_type
from factscope.core.options.rules import field_rules
from factscope.core.options.validation import ValidatedOptions

Command = TypeVar("Command", bound=Callable[..., None])

FIELD_GROUPS = "factscope_field_groups"
"""The attribute of a command built by ``add_field_options`` that holds, per group of fields it offers, each
field's ``RuledOption``; a command wrapped again carries it on (``functools.wraps``)."""


def add_field_options(
    command: Command,
    group: type,
    keyword: str,
    *,
    names: Collection[str] | None = None,
    defaults: Mapping[str, Any] | None = None,
    panel: str | None = None,
    panels: Mapping[str, str] | None = None,
    after: str | None = None,
) -> Command:
    """``command`` with an option for each field of the dataclass ``group`` that has a help text (of those
    in ``names`` when given; default: the field's, or ``defaults``'), under ``panel`` (a field named in ``panels``:
    under the panel it gives; see ``factscope.cli.help_panels``), after the parameter
    ``after`` (else last). ``command`` gets them as one ``group`` instance under ``keyword``, once the
    options' rules are enforced (``factscope.cli.option_rules``); ``group`` validates its values itself
    (``ValidatedOptions``), and a ConfigError of the instance is a usage error of the first option it names."""
    offered = [item for item in fields(group) if "help" in item.metadata and (names is None or item.name in names)]
    if not issubclass(group, ValidatedOptions):
        raise TypeError(f"{group.__name__} does not validate itself: make it a ValidatedOptions")
    flags = {item.name: option_flags(item)[0].split("/")[0] for item in offered}
    chosen = defaults or {}
    added: dict[str, tuple[Field[Any], inspect.Parameter]] = {}
    for item in offered:
        name = flags[item.name][2:].replace("-", "_")
        read = _option_type(group, item)
        default = chosen.get(item.name, inspect.Parameter.empty if item.default is MISSING else item.default)
        added[name] = (item, inspect.Parameter(
            name, inspect.Parameter.KEYWORD_ONLY, default=default,
            annotation=Annotated[read, _option(item, read, flags, (panels or {}).get(item.name, panel))],
        ))
    hints = typing.get_type_hints(command, include_extras=True)
    signature = inspect.signature(command)
    parameters: list[inspect.Parameter] = []
    for name, parameter in signature.parameters.items():
        if name != keyword:
            position = inspect.Parameter.KEYWORD_ONLY if after is not None else parameter.kind
            annotated = hints.get(name, parameter.annotation)
            parameters.append(parameter.replace(annotation=annotated, kind=position))
        if name == after:
            parameters.extend(parameter for _, parameter in added.values())
    if after is None:
        parameters.extend(parameter for _, parameter in added.values())
    ruled = {item.name: RuledOption(name, item.name, flags[item.name], field_rules(item))
             for name, (item, _) in added.items()}
    groups = (*getattr(command, FIELD_GROUPS, ()), ruled)

    @functools.wraps(command)
    def wrapper(**kwargs: Any) -> None:
        enforce_field_rules(groups, kwargs)
        try:
            gathered = group(**{item.name: kwargs.pop(name) for name, (item, _) in added.items()})
        except ConfigError as error:
            named = [flags[name] for name, _ in MENTION.findall(str(error)) if name in flags]
            shown = in_context(with_flags(str(error), flags))
            raise typer.BadParameter(shown, param_hint=f"'{named[0]}'" if named else None) from None
        command(**kwargs, **{keyword: gathered})

    setattr(wrapper, FIELD_GROUPS, groups)
    wrapper.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {**{p.name: p.annotation for p in parameters}, "return": None}
    return typing.cast(Command, wrapper)


def option_flags(item: Field[Any]) -> list[str]:
    """The flags of the field ``item``'s option: its metadata's ``flag``, else --field-name."""
    flag = item.metadata.get("flag", "--" + item.name.replace("_", "-"))
    return [flag] if isinstance(flag, str) else list(flag)


def _option_type(group: type, item: Field[Any]) -> Any:
    """The type of the option of ``group``'s field ``item``: its metadata's ``option_type``, else its type."""
    if "option_type" in item.metadata:
        return item.metadata["option_type"]
    return declared_type(group, item)


def _option(item: Field[Any], kind: Any, flags: Mapping[str, str], panel: str | None) -> Any:
    """The typer option of the field ``item``, its range shown in its help; the value is validated where the
    dataclass is built (``factscope.core.options.validation``), so every front-end refuses it in the same words."""
    meta = item.metadata
    parse = meta.get("parse")
    return typer.Option(
        *option_flags(item),
        help=_with_flags(meta["help"], flags) + range_shown(meta),
        callback=None if parse is None else (lambda value: value if value is None else parse(value)),
        envvar=meta.get("envvar"),
        rich_help_panel=panel,
    )


def range_shown(meta: Mapping[str, Any]) -> str:
    """The range of an option with the metadata ``meta`` as typer shows one (' [x>=1]', escaped for rich), or ''."""
    low, high = meta.get("min"), meta.get("max")
    if low is None and high is None:
        return ""
    if high is None:
        return f" \\[x{'>' if meta.get('min_open') else '>='}{low}]"
    lower = "" if low is None else f"{low}<" if meta.get("min_open") else f"{low}<="
    return f" \\[{lower}x<={high}]"


def _with_flags(text: str, flags: Mapping[str, str]) -> str:
    """``text`` with each parameter it names shown as its flag: that of ``flags``, else one from its name."""
    spelt = {name: "--" + name.replace("_", "-") for name, _ in MENTION.findall(text)}
    return with_flags(text, {**spelt, **flags})
