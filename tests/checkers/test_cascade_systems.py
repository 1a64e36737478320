"""A cascade checker runs in every system: ground (as the presence model's checker, in fast mode), attribute and
knowledge, with the cheap embedded -> similarity pair and a band that escalates every scored claim."""

from __future__ import annotations

import json

import pytest

import factscope
from factscope.checkers.registry import make_checker
from factscope.core.errors import FactscopeWarning
from repo_paths import EXAMPLES

CASCADE = "cascade:embedded,similarity,0,1"


def test_ground_attribute_and_knowledge_run_with_a_cascade(tmp_path):
    grounded = factscope.ground(
        EXAMPLES / "ground" / "original.json", responses=EXAMPLES / "ground" / "responses.jsonl",
        metadata=EXAMPLES / "ground" / "metadata.json", presence=f"nli:{CASCADE}", mode="fast",
        output=tmp_path / "ground.jsonl",
    )
    assert grounded.results and grounded.failed == 0
    attributed = factscope.attribute(
        EXAMPLES / "attribute" / "answers.jsonl", checker=CASCADE,
        output=tmp_path / "attribute.jsonl",
    )
    assert attributed.results and attributed.failed == 0
    known = factscope.knowledge(
        EXAMPLES / "knowledge" / "records.jsonl", corpus=EXAMPLES / "knowledge" / "corpus.jsonl", checker=CASCADE,
        relevance="none", coherence="none", output=tmp_path / "knowledge.jsonl",
    )
    assert known.results and known.failed == 0
    # each results file's manifest records the cascade with its band, so a resumed run cannot mix checkers
    for name in ("ground", "attribute", "knowledge"):
        manifest = json.loads((tmp_path / f"{name}.jsonl.manifest.json").read_text())
        assert {"type": "CascadeChecker", "band": [0.0, 1.0]} in list(_cascades(manifest))


def _cascades(value):
    """The cascades described anywhere in a manifest, each as its type and band."""
    if isinstance(value, dict):
        if value.get("type") == "CascadeChecker":
            yield {"type": value["type"], "band": value["band"]}
        for inner in value.values():
            yield from _cascades(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _cascades(inner)

def test_the_cascade_is_built_from_its_spec_in_the_deprecated_fast_mode_as_exact():
    with pytest.warns(FactscopeWarning, match="deprecated"):
        checker = make_checker(CASCADE, mode="fast")
    assert checker.first.mode == "exact" and checker.name.startswith("cascade:embedded,similarity")
