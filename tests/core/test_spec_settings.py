"""A results file's manifest records every option of the run's spec that is not at its default
(``spec_settings``): an option added to a spec is fingerprinted without a line of code, a run at its default makes
the manifest that files written before the option existed have (so they still resume), and the options that the
specs had before leave every manifest as it was."""

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from factscope.checkers.registry import make_checker
from factscope.claims.registry import make_extractor
from factscope.conner.spec import KnowledgeSpec
from factscope.conner.system import KNOWLEDGE
from factscope.core.files.manifest import ResultsMismatch, manifest_path, spec_settings
from factscope.core.options.metadata import about, option_fields
from factscope.grounding.spec import GroundSpec
from factscope.grounding.system import GROUND
from factscope.kalma.spec import AttributeSpec
from factscope.kalma.system import ATTRIBUTE
from factscope.refchecker.spec import CheckSpec
from factscope.refchecker.system import CHECK
from fake_scorers import Entails

RECORDS = [
    {"id": "a", "response": "Paris is in France. It is large.", "references": ["Paris is in France."]},
    {"id": "b", "response": "Rome is in Italy.", "references": ["Rome is in Italy."]},
]


class Present:
    """A presence model that finds every fact (never called here: only its pipeline's manifest is read)."""

    name = "present"


@dataclass(frozen=True)
class SpecWithKnob(CheckSpec):
    claim_budget: int = field(default=7, metadata=about("at most N claims per response", min=1))


def _spec(kind=CheckSpec, **options):
    return kind(extractor=make_extractor("sentences"), checker=Entails(), **options)


def test_an_option_enters_when_it_is_not_at_its_default():
    assert spec_settings(CheckSpec()) == {} and spec_settings(SpecWithKnob()) == {}
    assert spec_settings(SpecWithKnob(claim_budget=3)) == {"claim_budget": 3}
    assert spec_settings(CheckSpec(corpus=Path("c.jsonl"), retrieve_k=9, abstention_detection=False)) == {
        "corpus": "c.jsonl", "retrieve_k": 9, "abstention_detection": False
    }
    assert spec_settings(GroundSpec(no_gold_facts="zero")) == {"no_gold_facts": "zero"}
    assert spec_settings(CheckSpec(corpus=Path("c.jsonl"))) == {"corpus": "c.jsonl"}


def test_an_option_recorded_by_a_component_or_that_changes_no_row_stays_out():
    assert spec_settings(GroundSpec(window=4, stride=2, min_window=1, mode="fast")) == {}
    assert spec_settings(CheckSpec(allow_missing_references=True)) == {}
    assert spec_settings(CheckSpec(extractor="sentences", checker="similarity", retriever="bm25",
                                   retrieve_for="all", corpus=Path("c.jsonl"))) == {"corpus": "c.jsonl"}
    assert spec_settings(GroundSpec(factors=("pop",))) == {}
    assert spec_settings(KnowledgeSpec(weights="1,0,0,0", evidence_k=2, checker="none")) == {}
    assert spec_settings(AttributeSpec(checker="similarity", geval=True, empty_answers="zero")) == {}
    assert spec_settings(None) == {}


def _unchanged(system, spec, llm=None):
    """The settings of the system's pipeline with the spec's options added, and those of its build alone."""
    return system.pipeline(spec, llm).settings, system.build(spec, llm).settings


def test_the_options_specs_had_before_leave_each_manifest_as_it_was(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"id": "p", "text": "Paris is in France."}\n', encoding="utf-8")
    check = _spec(corpus=corpus, retriever="bm25", retrieve_k=2, abstention_detection=False,
                  allow_missing_references=True)
    with_options, built = _unchanged(CHECK, check)
    assert with_options == built and built["retrieve_k"] == 2 and built["abstention_detection"] is False
    ground = GroundSpec(extractor=make_extractor("sentences"), presence=Present(), window=3, stride=2, mode="fast",
                        factors=("pop",), no_response_facts="skip", no_gold_facts="zero")
    with_options, built = _unchanged(GROUND, GROUND.ready(ground, None))
    assert with_options == built and built["no_gold_facts"] == "zero"
    attribute = AttributeSpec(checker=make_checker("similarity"), geval=True, weighted=True,
                              template="{name} {relation} {value}", empty_answers="zero", matching="paper")
    with_options, built = _unchanged(ATTRIBUTE, attribute)
    assert with_options == built and built["matching"] == "paper" and built["weighted"] is True


def test_each_recorded_by_names_a_component_of_its_systems_pipeline(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"id": "p", "text": "Paris is in France."}\n', encoding="utf-8")
    built = {
        CheckSpec: CHECK.build(_spec(retriever="bm25", corpus=corpus), None),
        GroundSpec: GROUND.build(GroundSpec(extractor=make_extractor("sentences"), presence=Present()), None),
        AttributeSpec: ATTRIBUTE.build(AttributeSpec(checker=make_checker("similarity")), None),
        KnowledgeSpec: KNOWLEDGE.build(KnowledgeSpec(checker="none", relevance="none", coherence="none", lm="none"),
                                       None),
    }
    for spec, pipeline in built.items():
        named = {item.metadata["recorded_by"] for item in option_fields(spec) if "recorded_by" in item.metadata}
        assert named and named <= set(pipeline.components), spec.__name__


def test_results_written_before_an_option_existed_resume_at_its_default_and_not_otherwise(tmp_path):
    output = tmp_path / "out.jsonl"
    first = CHECK.run(_spec(), RECORDS, output=output)
    assert (first.new_records, first.resumed_records) == (2, 0)
    again = CHECK.run(_spec(SpecWithKnob), RECORDS, output=output)
    assert (again.new_records, again.resumed_records) == (0, 2)
    with pytest.raises(ResultsMismatch, match="setting 'claim_budget': not recorded in the file, now 3"):
        CHECK.run(_spec(SpecWithKnob, claim_budget=3), RECORDS, output=output)
    fresh = tmp_path / "knob.jsonl"
    CHECK.run(_spec(SpecWithKnob, claim_budget=3), RECORDS, output=fresh)
    assert json.loads(manifest_path(fresh).read_text())["settings"]["claim_budget"] == 3


def test_an_old_style_manifest_of_a_run_with_changed_options_still_resumes(tmp_path):
    """The manifest written before spec options entered it: the pipeline's own settings, as ``build`` gives them."""
    output = tmp_path / "out.jsonl"
    spec = _spec(abstention_detection=False, allow_missing_references=True)
    CHECK.run(spec, RECORDS, output=output)
    items = [CHECK.parse(record, path=Path("<records>"), line=n) for n, record in enumerate(RECORDS, start=1)]
    manifest_path(output).write_text(CHECK.build(spec, None).manifest(items).model_dump_json(), encoding="utf-8")
    again = CHECK.run(spec, RECORDS, output=output)
    assert (again.new_records, again.resumed_records) == (0, 2)
