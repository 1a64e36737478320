"""A field's help may end with a registry's catalogue (``about(..., catalogue=...)``): the catalogue is made when a
front-end reads the help, and only then, so that asking whether a field is an option, or reading its other
metadata, imports no plugin."""

import subprocess
import sys
from dataclasses import dataclass, field, fields

from factscope.core.options.metadata import about, option_fields
from factscope.refchecker.spec import CheckSpec, checker_catalogue, extractor_catalogue


def test_the_catalogue_ends_the_help_and_is_made_only_when_the_help_is_read():
    made: list[int] = []

    def catalogue() -> str:
        made.append(1)
        return "a (one); b (two)"

    @dataclass
    class Spec:
        part: str = field(default="a", metadata=about("the part: ", catalogue=catalogue, min=1, recorded_by="part"))

    item = fields(Spec)[0]
    assert option_fields(Spec) == [item] and "help" in item.metadata and "max" not in item.metadata
    assert item.metadata["min"] == 1 and item.metadata.get("recorded_by") == "part" and item.metadata.get("max") is None
    assert sorted(item.metadata) == ["help", "min", "recorded_by"] and len(item.metadata) == 3
    assert made == []
    assert item.metadata["help"] == "the part: a (one); b (two)" and made == [1]


def test_without_a_catalogue_the_metadata_is_as_given():
    assert about("N claims", min=1, flag="--claims") == {"help": "N claims", "min": 1, "flag": "--claims"}


def test_the_check_specs_extractor_and_checker_list_their_registries():
    named = {item.name: item.metadata["help"] for item in fields(CheckSpec) if item.name in {"extractor", "checker"}}
    assert named["extractor"] == "claim extractor: " + extractor_catalogue() and "llm-facts" in named["extractor"]
    assert named["checker"] == "claim checker: " + checker_catalogue() and "nli:MODEL" in named["checker"]
    assert "`factscope checkers` describes each" in named["checker"]


def test_importing_factscope_loads_no_registry_nor_search_service():
    """The check spec names its choices and catalogues without importing the registries or the search services."""
    code = (
        "import sys, factscope; print(sorted(m for m in ('factscope.retrieve.web_retrievers', "
        "'factscope.checkers.registry', 'factscope.claims.registry') if m in sys.modules))"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "[]"
