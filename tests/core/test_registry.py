"""The one registry of named components: spec parsing, errors, needs-LLM, help text and entry-point plugins."""

import importlib.metadata
import textwrap

import pytest

from factscope.checkers.registry import CHECKERS, make_checker
from factscope.claims.registry import EXTRACTORS, make_extractor
from factscope.core.errors import ConfigError
from factscope.core.registry import Argument, Entry, Registry, parse_spec
from factscope.grounding.presence import PRESENCE_MODELS, make_presence
from factscope.retrieve.corpus import RETRIEVERS, Corpus, Document, make_retriever
from plugin_path import plugins_from

REGISTRIES = {"extractor": EXTRACTORS, "checker": CHECKERS, "presence model": PRESENCE_MODELS, "retriever": RETRIEVERS}


def built(argument, **options):
    """A component that shows what its factory received."""
    return {"argument": argument, **options}


def toy_registry() -> Registry:
    return Registry(
        "toy",
        "factscope.toys",
        [
            Entry("plain", "takes nothing", built),
            Entry("model", "takes a model", built, Argument("MODEL", "a model name")),
            Entry("maybe", "may take a model", built, Argument("MODEL", "a model name", required=False)),
            Entry("chat", "asks an LLM", built, needs_llm=True),
            Entry("judge", "asks an LLM for 'chat' only", built, Argument("SUB", "a toy"), needs_llm=lambda a: a == "chat"),
        ],
    )


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("embedded", ("embedded", None)),
        ("nli:nli:some/model", ("nli", "nli:some/model")),
        ("similarity:", ("similarity", None)),
        (" path:C:\\models\\x ", ("path", "C:\\models\\x")),
    ],
)
def test_parse_spec_splits_at_the_first_colon(spec, expected):
    assert tuple(parse_spec(spec)) == expected


def test_build_passes_the_argument_and_options_and_checks_them():
    toys = toy_registry()
    assert toys.build("plain", llm=None, size=3) == {"argument": None, "llm": None, "size": 3}
    assert toys.build("model:a/b:c")["argument"] == "a/b:c"
    assert toys.build("maybe")["argument"] is None and toys.build("maybe:m")["argument"] == "m"
    with pytest.raises(ConfigError, match=r"needs an argument: model:MODEL \(MODEL: a model name\)"):
        toys.build("model")
    with pytest.raises(ConfigError, match="takes no argument"):
        toys.build("plain:x")
    with pytest.raises(ConfigError, match="pass `llm`"):
        toys.build("chat")
    assert toys.build("chat", llm="client")["llm"] == "client"
    assert toys.build("judge:other")["argument"] == "other"
    with pytest.raises(ConfigError, match="judge:chat toy needs a chat model"):
        toys.build("judge:chat")
    with pytest.raises(ConfigError, match="taken"):
        toys.register(Entry("plain", "again", built))


def test_help_lines_show_usage_argument_and_llm():
    lines = toy_registry().help_text().split("\n")
    assert lines == [
        "plain (takes nothing);",
        "model:MODEL (takes a model; MODEL: a model name);",
        "maybe[:MODEL] (may take a model; MODEL: a model name);",
        "chat (asks an LLM; needs an LLM);",
        "judge:SUB (asks an LLM for 'chat' only; SUB: a toy)",
    ]


def test_usages_name_every_entry_in_one_line_those_that_need_an_llm_last():
    assert toy_registry().usages() == "plain, model:MODEL, maybe[:MODEL], judge:SUB; with an LLM: chat"
    assert toy_registry().catalogue() == toy_registry().usages() + " (`factscope checkers` describes each)"


@pytest.mark.parametrize("kind", REGISTRIES)
def test_unknown_name_lists_the_known_names_and_the_group(kind):
    registry = REGISTRIES[kind]
    with pytest.raises(ConfigError) as error:
        registry.build("nonesuch")
    message = str(error.value)
    assert f"unknown {kind} 'nonesuch'" in message
    assert all(name in message for name in registry.names())
    assert f"entry-point group '{registry.group}'" in message
    with pytest.raises(ConfigError, match="unknown"):
        registry.needs_llm("nonesuch:x")


def test_unknown_names_through_the_make_functions():
    corpus = Corpus([Document("d1", "Paris is the capital of France.")])
    for make, kind in ((make_extractor, "extractor"), (make_checker, "checker"), (make_presence, "presence model")):
        with pytest.raises(ConfigError, match=f"unknown {kind} 'magic'"):
            make("magic")
    with pytest.raises(ConfigError, match="unknown retriever 'magic'; known retrievers: bm25, dense, hybrid"):
        make_retriever("magic", corpus)


@pytest.mark.parametrize(
    "registry, needing, not_needing",
    [
        (EXTRACTORS, ["llm", "llm-claims", "llm-facts"], ["rules", "sentences", "facts"]),
        (CHECKERS, ["llm"], ["embedded", "similarity", "similarity:m", "nli:m", "path:/x"]),
        (PRESENCE_MODELS, ["llm", "nli:llm"], ["bi", "bi:m", "cross", "nli", "nli:embedded", "nli:nli:m"]),
        (RETRIEVERS, [], ["bm25", "dense", "hybrid"]),
    ],
)
def test_needs_llm_of_each_kind(registry, needing, not_needing):
    assert [spec for spec in needing + not_needing if registry.needs_llm(spec)] == needing


def test_llm_entries_without_a_client_say_which_parameter_to_supply():
    for build in (lambda: make_extractor("llm-facts"), lambda: make_checker("llm"), lambda: make_presence("nli:llm")):
        with pytest.raises(ConfigError, match="needs a chat model: pass `llm`"):
            build()


@pytest.mark.parametrize("kind", REGISTRIES)
def test_help_text_has_one_line_per_entry(kind):
    registry = REGISTRIES[kind]
    lines = registry.help_text().split("\n")
    assert len(lines) == len(registry.names())
    for line, name in zip(lines, registry.names()):
        assert line.startswith(registry.get(name).usage + " (")


def test_spec_constants_are_the_generated_help_text():
    from factscope.checkers.registry import CHECKER_SPECS
    from factscope.claims.registry import EXTRACTOR_SPECS
    from factscope.grounding.presence import PRESENCE_SPECS

    assert EXTRACTOR_SPECS == EXTRACTORS.help_text() and "llm-facts (" in EXTRACTOR_SPECS
    assert CHECKER_SPECS == CHECKERS.help_text() and "similarity[:MODEL] (" in CHECKER_SPECS
    assert "nli:MODEL (" in CHECKER_SPECS and "path:DIR (" in CHECKER_SPECS
    assert PRESENCE_SPECS == PRESENCE_MODELS.help_text() and "nli[:CHECKER] (" in PRESENCE_SPECS


def test_make_retriever_builds_a_working_retriever():
    corpus = Corpus([Document("d1", "Paris is the capital of France."), Document("d2", "Cats purr.")])
    hits = make_retriever("bm25", corpus).search("capital of France", k=1)
    assert [hit.doc_id for hit in hits] == ["d1"]


PLUGIN_MODULE = '''
from factscope.core.registry import Argument, Entry


def make_shouting(argument, *, llm=None, **options):
    """Shouting extractor, for tests."""
    return {"plugin": "shout", "argument": argument, "llm": llm, **options}


def make_echo(argument, **options):
    """Echoes its argument.

    More text that the help leaves out.
    """
    return {"plugin": "echo", "argument": argument}


SHOUT = Entry("shout", "upper-cases claims", make_shouting, Argument("LEVEL", "how loud"), needs_llm=True)
MISNAMED = Entry("other", "a mismatch", make_echo)
NOT_A_FACTORY = 42
'''

ENTRY_POINTS = """
[factscope.extractors]
shout = fs_test_plugin:SHOUT
echo = fs_test_plugin:make_echo
misnamed = fs_test_plugin:MISNAMED
number = fs_test_plugin:NOT_A_FACTORY
"""


@pytest.fixture
def installed_plugin(tmp_path, monkeypatch):
    """A real distribution folder (module + dist-info with entry_points.txt) on sys.path."""
    (tmp_path / "fs_test_plugin.py").write_text(PLUGIN_MODULE, encoding="utf-8")
    info = tmp_path / "fs_test_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fs-test-plugin\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(textwrap.dedent(ENTRY_POINTS), encoding="utf-8")
    with plugins_from(tmp_path, EXTRACTORS, "fs_test_plugin", monkeypatch):
        yield EXTRACTORS


def test_an_installed_plugin_is_found_and_built(installed_plugin):
    assert {"shout", "echo", "misnamed", "number"} <= set(installed_plugin.names())
    assert installed_plugin.needs_llm("shout:9")
    with pytest.raises(ConfigError, match="shout:9 extractor needs a chat model"):
        make_extractor("shout:9")
    assert make_extractor("shout:9", llm="client", flavour="x") == {
        "plugin": "shout", "argument": "9", "llm": "client", "flavour": "x"
    }
    assert make_extractor("echo:hello") == {"plugin": "echo", "argument": "hello"}
    assert not installed_plugin.needs_llm("echo")
    lines = installed_plugin.help_text().split("\n")
    assert "shout:LEVEL (upper-cases claims; LEVEL: how loud; needs an LLM);" in lines
    assert "echo[:ARG] (Echoes its argument.; ARG: passed to the plugin);" in lines


def test_a_malformed_plugin_object_gives_a_config_error(installed_plugin):
    with pytest.raises(ConfigError, match="holds an Entry named 'other'"):
        make_extractor("misnamed")
    with pytest.raises(ConfigError, match=r"'number' \(fs_test_plugin:NOT_A_FACTORY, from fs-test-plugin\) is neither"):
        make_extractor("number")


def fake_entry_points(*points, calls=None):
    def entry_points(*, group):
        if calls is not None:
            calls.append(group)
        return [point for point in points if point.group == group]

    return entry_points


def test_a_broken_plugin_gives_a_config_error_naming_it(monkeypatch):
    broken = importlib.metadata.EntryPoint("broken", "fs_no_such_module:make", "factscope.checkers")
    monkeypatch.setattr(importlib.metadata, "entry_points", fake_entry_points(broken))
    registry = Registry("checker", "factscope.checkers", [Entry("plain", "takes nothing", built)])
    with pytest.raises(ConfigError) as error:
        registry.build("broken")
    message = str(error.value)
    assert "checker plugin 'broken' (fs_no_such_module:make) failed to load" in message
    assert "ModuleNotFoundError" in message and "fs_no_such_module" in message
    assert "broken (a broken plugin: the checker plugin 'broken'" in registry.help_text()
    assert registry.build("plain") == {"argument": None}


def test_plugins_are_looked_up_lazily_and_once(monkeypatch):
    calls: list[str] = []
    echo = importlib.metadata.EntryPoint("echo", "tests_registry_plugin:make", "factscope.retrievers")
    monkeypatch.setattr(importlib.metadata, "entry_points", fake_entry_points(echo, calls=calls))
    registry = Registry("retriever", "factscope.retrievers", [Entry("plain", "takes nothing", built)])
    registry.build("plain")
    assert calls == []
    assert registry.names() == ["plain", "echo"]
    with pytest.raises(ConfigError, match="unknown retriever 'other'"):
        registry.get("other")
    assert calls == ["factscope.retrievers"]
    registry.rescan()
    registry.names()
    assert calls == ["factscope.retrievers"] * 2


def test_a_plugin_cannot_take_a_built_in_name(monkeypatch):
    clash = importlib.metadata.EntryPoint("plain", "fs_no_such_module:make", "factscope.checkers")
    monkeypatch.setattr(importlib.metadata, "entry_points", fake_entry_points(clash))
    registry = Registry("checker", "factscope.checkers", [Entry("plain", "takes nothing", built)])
    with pytest.warns(UserWarning, match="ignoring the checker plugin 'plain'"):
        assert registry.names() == ["plain"]
    assert registry.build("plain") == {"argument": None}
