"""A command's options built from a dataclass's fields, which declare each option's help, range, flag and rule
(``factscope.core.options.metadata.about``); the command receives them as one instance, validated by the
dataclass itself against the values of the command's other groups of options."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import MISSING, Field, fields
from typing import Annotated, Any, TypeAlias, TypeVar

import typer
from rich.markup import escape

from factscope.cli.output_paths import running_command
from factscope.cli.parameter_flags import MENTION, in_context, with_flags
from factscope.core.display.progress import console
from factscope.core.errors import ConfigError
from factscope.core.options.metadata import declared_type
from factscope.core.options.validation import (
    ValidatedOptions,
    ignored_options,
    parameter_values,
    validate_options,
)
from factscope.engines.command_form import OptionGroup

Command = TypeVar("Command", bound=Callable[..., None])

FIELD_GROUPS = "factscope_field_groups"
"""The attribute of a command built by ``add_field_options`` that holds each group of fields it offers (the
dataclass and its offered fields); a command wrapped again carries it on (``functools.wraps``)."""

FieldGroup: TypeAlias = tuple[type, Sequence[Field[Any]], Mapping[str, Any]]
"""A group of options of a command: the dataclass, the fields it offers and the command's own defaults."""


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
    under the panel it gives; see ``factscope.core.options.panels``), after the parameter
    ``after`` (else last). ``command`` gets them as one ``group`` instance under ``keyword``. ``group`` validates
    its values itself (``ValidatedOptions``), against the values of the command's other groups too
    (``validate_together``)."""
    offered = [item for item in fields(group) if "help" in item.metadata and (names is None or item.name in names)]
    if not issubclass(group, ValidatedOptions):
        raise TypeError(f"{group.__name__} does not validate itself: make it a ValidatedOptions")
    flags = {item.name: option_flag(item) for item in offered}
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
    groups = (*getattr(command, FIELD_GROUPS, ()), (group, [item for item, _ in added.values()], chosen))

    @functools.wraps(command)
    def wrapper(**kwargs: Any) -> None:
        validate_together(groups, kwargs)
        gathered = group(**{item.name: kwargs.pop(name) for name, (item, _) in added.items()})
        command(**kwargs, **{keyword: gathered})

    setattr(wrapper, FIELD_GROUPS, groups)
    wrapper.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {**{p.name: p.annotation for p in parameters}, "return": None}
    return typing.cast(Command, wrapper)


def add_group_options(command: Command, group: OptionGroup, keyword: str) -> Command:
    """``command`` with the options of a form's ``group``, received as one instance under ``keyword``."""
    return add_field_options(command, group.options, keyword, names=group.names, panel=group.panel,
                             panels=group.panels, after=group.after)


def validate_together(groups: Sequence[FieldGroup], values: Mapping[str, Any]) -> None:
    """Validate each group of options of the running command against the options of all of them (a rule reads
    fields of other groups: `min_confidence` reads `checker`), as the spec they make up would be, an option at the
    command's own default counting as at the field's; at the outermost wrapper, whose ``values`` are all the
    command's parameters. A ConfigError is a usage error of the first option it names; a given option that the run
    ignores (a rule that only warns) is warned about."""
    context = running_command()
    if context is None or values.keys() != context.params.keys():
        return
    chosen = [{item.name: _as_field(item, values[option_flag(item)[2:].replace("-", "_")], defaults)
               for item in offered} for _, offered, defaults in groups]
    every = {name: value for options in chosen for name, value in options.items()}
    shown = {item.name: option_flag(item) for _, offered, _ in groups for item in offered}
    for (group, offered, _), options in zip(groups, chosen, strict=True):
        flags = shown | {item.name: option_flag(item) for item in offered}
        try:
            built = group(**options)
            validate_options(built, every | parameter_values(built))
        except ConfigError as error:
            named = [flags[name] for name, _ in MENTION.findall(str(error)) if name in flags]
            raise typer.BadParameter(in_context(with_flags(str(error), flags)),
                                     param_hint=f"'{named[0]}'" if named else None) from None
        for name, warning in ignored_options(built, every | parameter_values(built)).items():
            if name in options and given(context, flags[name]):
                console.print(f"[bold yellow]warning[/] {escape(in_context(with_flags(warning, flags)))}")


def _as_field(item: Field[Any], value: Any, defaults: Mapping[str, Any]) -> Any:
    """``value`` of the field ``item``'s option, the field's default when it is the command's own default."""
    return item.default if item.name in defaults and value == defaults[item.name] else value


def given(context: Any, flag: str) -> bool:
    """Whether the option ``flag`` was given on the command line of the running command (its click
    ``context``)."""
    source = context.get_parameter_source(flag[2:].replace("-", "_"))
    return source is not None and source.name == "COMMANDLINE"


def option_flag(item: Field[Any]) -> str:
    """The flag that names the field ``item``'s option (its first; --segment-tokens), whose parameter is the
    flag read as a name (segment_tokens)."""
    return option_flags(item)[0].split("/")[0]


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
    shown = range_text(meta)
    return f" \\[{shown}]" if shown else ""


def range_text(meta: Mapping[str, Any]) -> str:
    """The range of ``meta``'s ``min`` and ``max`` (and ``min_open``): 'x>=1', '0.0<=x<=1.0', 'x>0.0'; '' for none."""
    low, high = meta.get("min"), meta.get("max")
    lower = "" if low is None else f"{low}<" if meta.get("min_open") else f"{low}<="
    if high is None:
        return "" if low is None else f"x{'>' if meta.get('min_open') else '>='}{low}"
    return f"{lower}x<={high}"


def _with_flags(text: str, flags: Mapping[str, str]) -> str:
    """``text`` with each parameter it names shown as its flag: that of ``flags``, else one from its name."""
    spelt = {name: "--" + name.replace("_", "-") for name, _ in MENTION.findall(text)}
    return with_flags(text, {**spelt, **flags})
