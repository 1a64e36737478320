"""Each system's options are declared once, in its spec (``CheckSpec``, ``GroundSpec``, ``AttributeSpec``,
``KnowledgeSpec``): the Python API takes every option of the spec as a keyword with the spec's default, and each
scoring command's option for it has the spec's default too. A spec option the API or the command lacks, or a
default written again and changed in one place only, fails here."""

import dataclasses
import inspect

import pytest
import typer.main

import factscope
from command_line import command_line
from factscope.conner.spec import KnowledgeSpec
from factscope.grounding.spec import GroundSpec
from factscope.kalma.spec import AttributeSpec
from factscope.refchecker.spec import CheckSpec

NO_DEFAULT = object()

SYSTEMS = {
    "check": (CheckSpec, factscope.check, ("check",)),
    "ground": (GroundSpec, factscope.ground, ("ground", "score")),
    "attribute": (AttributeSpec, factscope.attribute, ("attribute", "score")),
    "knowledge": (KnowledgeSpec, factscope.knowledge, ("knowledge", "score")),
}

API_TAKES_OTHERWISE = {
    "checker_settings": "a CheckerOptions, a mapping of its fields, or None (the defaults)",
    "web": "a WebSettings or None (the defaults)",
    "settings": "further manifest settings, which only a front-end's own files add",
    "pool": "settled on the records by the system's prepare",
    "supplied_facts": "settled on the records by the system's prepare, from atomic_facts",
    "geval": "set by giving judge, the G-Eval LLM client",
}
"""Spec fields the Python API does not take as a keyword of the same name and default, and why."""

COMMAND_NAMES = {
    ("check", "retrieve_k"): "top_k",
    ("ground", "factors"): "by",
    ("attribute", "weighted"): "geval_weighted",
    ("attribute", "template"): "hypothesis",
    ("knowledge", "hard"): "hard_factuality",
    ("knowledge", "relevance"): "relevance_model",
    ("knowledge", "coherence"): "coherence_model",
}
"""The command's option for a spec field, where its name differs."""

COMMAND_TAKES_OTHERWISE = {
    ("check", "checker_settings"): "one option per setting (--segment-tokens, --relevance, ...)",
    ("check", "web"): "the --web-* option group",
    ("check", "query_llm"): "on when a web retriever is given with an LLM endpoint",
    ("check", "settings"): "an agreement run's own manifest setting",
    ("ground", "settings"): "the supplied-facts file's fingerprint (--atomic-facts)",
    ("ground", "supplied_facts"): "the facts of --atomic-facts, settled on the records",
    ("attribute", "checker_settings"): "its --mode",
    ("knowledge", "evaluator"): "a ready object: the Python API's alone",
    ("knowledge", "lm"): "the embedded LM when the lm extra is installed (factscope.conner.evaluator_setup.default_lm)",
    ("knowledge", "pool"): "settled on the records by the system's prepare",
    ("knowledge", "web"): "the --web-* option group",
}
"""Spec fields a command does not take as an option with the spec's default, and why."""


def _default(field: dataclasses.Field) -> object:
    return field.default if field.default is not dataclasses.MISSING else NO_DEFAULT


def _command_params(path: tuple[str, ...]) -> dict[str, object]:
    command = typer.main.get_command(command_line())
    for name in path:
        command = command.commands[name]  # type: ignore[attr-defined]
    return {param.name: param.default for param in command.params}


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_the_python_api_takes_every_spec_option_with_its_default(system):
    spec, function, _ = SYSTEMS[system]
    keywords = inspect.signature(function).parameters
    for field in dataclasses.fields(spec):
        if field.name in API_TAKES_OTHERWISE and field.name not in keywords:
            continue
        assert field.name in keywords, f"factscope.{system}() lacks the option {field.name!r} of {spec.__name__}"
        if field.name not in API_TAKES_OTHERWISE:
            assert keywords[field.name].default == _default(field), (system, field.name)


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_each_scoring_command_takes_every_spec_option_with_its_default(system):
    spec, _, path = SYSTEMS[system]
    params = _command_params(path)
    for field in dataclasses.fields(spec):
        if (system, field.name) in COMMAND_TAKES_OTHERWISE:
            continue
        name = COMMAND_NAMES.get((system, field.name), field.name)
        assert name in params, f"`factscope {' '.join(path)}` lacks an option for {spec.__name__}.{field.name}"
        default = params[name]
        if field.name == "factors":
            assert default is None and field.default is None
        else:
            assert default == _default(field), (system, field.name, default)


def test_every_exception_names_a_field_of_its_spec():
    fields = {system: {f.name for f in dataclasses.fields(spec)} for system, (spec, _, _) in SYSTEMS.items()}
    assert all(name in set().union(*fields.values()) for name in API_TAKES_OTHERWISE)
    assert all(name in fields[system] for system, name in [*COMMAND_TAKES_OTHERWISE, *COMMAND_NAMES])


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_each_async_twin_takes_the_same_keywords_and_defaults(system):
    _, function, _ = SYSTEMS[system]
    assert inspect.signature(getattr(factscope, f"a{system}")).parameters == inspect.signature(function).parameters
