"""What a grounding run shows a terminal (``GroundSystem``'s report hooks): the factor table, the summary file's
figures and the failures that end the run; and what a supplied atomic-facts file adds to it."""

import io
import json

import pytest
from rich.console import Console

from factscope import ground
from factscope.claims.registry import make_extractor
from factscope.grounding.data import GroundExample
from factscope.grounding.factor_table import factor_table
from factscope.grounding.spec import GroundSpec
from factscope.grounding.supplied_facts import AtomicFactsFile, SuppliedFactExtractor
from factscope.grounding.system import GROUND
from factscope.grounding.task import GroundSummary
from factscope.metrics.grounding import Breakdown, GroundingAverages


def _text(table) -> list[str]:
    console = Console(file=io.StringIO(), width=100, record=True)
    console.print(table)
    return [" ".join(line.replace("│", " ").replace("┃", " ").split()) for line in console.export_text().splitlines()]


def test_the_factor_table_has_a_row_per_group_and_one_for_records_without_the_field():
    overall = GroundingAverages(records=3, precision=0.75, recall=0.5, f1=0.6, answer_accuracy=None)
    high = GroundingAverages(records=1, precision=1.0, recall=0.25, f1=0.4, answer_accuracy=1.0)
    summary = GroundSummary(
        overall=overall, by_factor=[Breakdown("pop", {"high": high}, missing=2)], records=3, failed=0,
        unjudged_facts=0,
    )
    lines = _text(factor_table(summary))
    assert "grounding (macro average over records)" in lines[0]
    assert "factor group records precision recall F1 answer acc." in lines
    assert "all 3 0.7500 0.5000 0.6000 n/a" in lines
    assert "pop high 1 1.0000 0.2500 0.4000 1.0000" in lines
    assert "pop (no value) 2" in lines


class _Sentences:
    """Each sentence is one fact; a response containing 'FAIL' fails to decompose."""

    name = "sentences"

    def extract(self, texts, questions=None):
        from factscope.core.schema import Claim, Extraction

        return [
            Extraction(failed=True, error="garbled") if "FAIL" in text
            else Extraction(claims=[Claim(text=s.strip() + ".") for s in text.split(".") if s.strip()])
            for text in texts
        ]


EXAMPLES = [
    GroundExample("a", "Q?", ["Owls hunt at dusk."], ["Owls hunt at dusk."], response="Owls hunt at dusk."),
    GroundExample("b", "Q?", ["X."], ["X is x."], response="FAIL"),
]


def test_the_run_hooks_report_the_summary_and_the_failed_decompositions():
    run = ground(EXAMPLES, extractor=_Sentences(), presence="bi")
    assert GROUND.failures(run) == (1, "records' fact decompositions")
    assert GROUND.summary_figures(run, []) == run.summary.model_dump(mode="json")
    [table] = GROUND.figure_tables(run)
    assert "all 1 1.0000 1.0000 1.0000 n/a" in _text(table)


def test_a_facts_file_serves_its_facts_in_the_spec_and_warns_of_ids_it_cannot_place(tmp_path):
    path = tmp_path / "facts.jsonl"
    unknown = [f"z{i}" for i in range(7)]
    path.write_text(
        "".join(json.dumps({"id": id, "atomic_facts": ["Owls hunt."]}) + "\n" for id in ["a", *unknown]),
        encoding="utf-8",
    )
    spec, supplied = AtomicFactsFile(path).serve(GroundSpec(extractor="sentences"), EXAMPLES)
    assert spec.extractor == "sentences" and spec.supplied_facts == supplied.facts and len(spec.supplied_facts) == 1
    assert spec.settings == supplied.settings and "atomic_facts" in spec.settings
    assert supplied.summary_rows() == [("response facts: supplied / extracted", "1 / 1")]
    assert supplied.warnings == [f"{path}: 7 id(s) match no scored record: z0, z1, z2, z3, z4 and 2 more"]


def test_a_facts_file_falls_back_on_a_ready_extractor_and_warns_of_nothing_when_every_id_is_placed(tmp_path):
    path = tmp_path / "facts.jsonl"
    path.write_text(json.dumps({"id": "b", "atomic_facts": ["X is x."]}) + "\n", encoding="utf-8")
    ready = make_extractor("sentences")
    spec, supplied = AtomicFactsFile(path).serve(GroundSpec(extractor=ready), EXAMPLES)
    extractor = GROUND.build(spec, None).components["extractor"]
    assert isinstance(extractor, SuppliedFactExtractor) and extractor.fallback is ready
    assert supplied.warnings == [] and (supplied.supplied, supplied.extracted) == (1, 1)


def test_the_api_serves_a_facts_file_and_extracts_the_facts_it_lacks(tmp_path):
    path = tmp_path / "facts.jsonl"
    path.write_text(json.dumps({"id": "b", "atomic_facts": ["X is x."]}) + "\n", encoding="utf-8")
    output = tmp_path / "out.jsonl"
    run = ground(EXAMPLES, extractor=_Sentences(), presence="bi", atomic_facts=path, output=output)
    facts = {row.id: [fact.fact for fact in row.response_facts] for row in run.results}
    assert facts == {"a": ["Owls hunt at dusk."], "b": ["X is x."]}
    assert run.failed == 0 and run.extractor == "supplied facts, else sentences"
    manifest = json.loads(output.with_name("out.jsonl.manifest.json").read_text(encoding="utf-8"))
    assert "atomic_facts" in json.dumps(manifest)


def test_a_facts_file_is_refused_on_ray_as_a_metadata_file_is(tmp_path):
    from factscope.core.errors import ConfigError
    from factscope.grounding.system import GroundSystem

    with pytest.raises(ConfigError, match="`atomic_facts` are not taken with `engine='ray'`"):
        GroundSystem(atomic_facts=AtomicFactsFile(tmp_path / "facts.jsonl")).refuse_ray()
    GroundSystem(atomic_facts=AtomicFactsFile()).refuse_ray()
