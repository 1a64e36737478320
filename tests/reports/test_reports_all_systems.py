"""`factscope report` on the results of every system, made by the real commands on the shipped examples:
which system wrote a file, the figures and charts each page shows, --only / --limit, several files, single-record
fragments, and markup in every field of every system's results coming out escaped and inert."""

import json
import re
import shutil
from html.parser import HTMLParser

import pytest
from typer.testing import CliRunner

from command_line import command_line
from factscope.core.errors import InputError
from factscope.core.files.manifest import manifest_path
from factscope.reports.dispatch import SYSTEMS, make_report, render_record, render_report, system_of
from factscope.reports.page import stylesheet
from repo_paths import EXAMPLES

HOSTILE = [
    "<script>alert(1)</script>",
    '" onmouseover="alert(1)',
    "<img src=x onerror=alert(1)>",
    "javascript:alert(1)",
]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
"""The module runs the real commands once (about 30 s of CPU, minutes on a busy machine) and checks every page
against their results."""

KEEP = {"label", "kind", "rule", "strict", "majority", "spans_cover"}
"""Fields whose value must be one of a fixed set: the XSS test leaves them as they are."""


def invoke(*args):
    outcome = CliRunner().invoke(command_line(), [str(a) for a in args], env={"COLUMNS": "200"})
    assert outcome.exit_code == 0, (outcome.output, outcome.exception)
    return outcome


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """One results file per system (two for attribute: 0 and 1 triples removed), made by the real commands."""
    out = tmp_path_factory.mktemp("results")
    ground, attribute, knowledge = EXAMPLES / "ground", EXAMPLES / "attribute", EXAMPLES / "knowledge"
    files = {
        "check": out / "check.jsonl",
        "ground": out / "ground.jsonl",
        "attribute": out / "attribute.jsonl",
        "attribute1": out / "attribute1.jsonl",
        "knowledge": out / "knowledge.jsonl",
    }
    invoke("check", EXAMPLES / "check.jsonl", "-o", files["check"])
    invoke(
        "ground",
        ground / "original.json",
        "--metadata",
        ground / "metadata.json",
        "--responses",
        ground / "responses.jsonl",
        "-o",
        files["ground"],
    )
    invoke("attribute", "score", attribute / "answers.jsonl", "-o", files["attribute"])
    invoke("attribute", "score", attribute / "answers_removed1.jsonl", "-o", files["attribute1"])
    invoke(
        "knowledge",
        "score",
        knowledge / "records.jsonl",
        "--corpus",
        knowledge / "corpus.jsonl",
        "--lm",
        "none",
        "-o",
        files["knowledge"],
    )
    return files


def rows_of(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def figure(value):
    return "n/a" if value is None else f"{value:.4f}"


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text between tags."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.text = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def parsed(page):
    tags = Tags()
    tags.feed(page)
    return tags


def test_the_manifest_names_the_system_of_each_results_file(results):
    assert {name: system_of(path).name for name, path in results.items()} == {
        "check": "check",
        "ground": "ground",
        "attribute": "attribute",
        "attribute1": "attribute",
        "knowledge": "knowledge",
    }


def test_without_a_manifest_the_first_record_tells_the_system(results, tmp_path):
    for name, path in results.items():
        copy = tmp_path / f"{name}.jsonl"
        shutil.copy(path, copy)
        assert not manifest_path(copy).exists()
        assert system_of(copy).name == name.rstrip("1")


def test_a_file_no_system_wrote_is_refused_with_its_name(tmp_path):
    questions = tmp_path / "questions.jsonl"
    questions.write_text('{"id": "q", "question": "who?"}\n', encoding="utf-8")
    with pytest.raises(InputError) as refused:
        render_report(questions)
    assert str(questions) in str(refused.value) and "factscope knowledge score" in str(refused.value)
    generated = tmp_path / "answers.jsonl"
    shutil.copy(EXAMPLES / "attribute" / "answers.jsonl", generated)
    manifest_path(generated).write_text(
        json.dumps({"system": "attribute generate", "factscope_version": "0"}), encoding="utf-8"
    )
    with pytest.raises(InputError) as refused:
        render_report(generated)
    assert "`factscope attribute generate`" in str(refused.value) and str(generated) in str(refused.value)


def test_check_page_charts_labels_per_setting_and_rates_per_setting(results):
    rows = rows_of(results["check"])
    page = render_report(results["check"])
    settings = sorted({row["setting"] for row in rows if row.get("setting")})
    assert settings and "claims by label per setting" in page and "hallucination rate per setting" in page
    tags = parsed(page)
    chart_labels = {tag_attrs.get("id") for tag, tag_attrs in tags.tags if tag == "svg"}
    assert {"chart-check-labels", "chart-check-rate-setting"} <= chart_labels
    text = "".join(tags.text)
    claims = sum(len(row["claims"]) for row in rows)
    assert f"n={claims}" in text and all(setting in text for setting in settings)
    assert "per model" not in page


def test_several_check_files_compare_models(results, tmp_path):
    other = tmp_path / "other-model.jsonl"
    shutil.copy(results["check"], other)
    page = render_report([results["check"], other])
    assert "hallucination and abstain rates per model" in page and "claims by label per model" in page
    assert (
        f"{results['check'].stem} \u2014 hallucination rate" in page
        and "other-model \u2014 hallucination rate" in page
    )


def test_ground_page_shows_grounding_by_factor_and_facts_present_or_absent(results):
    rows = rows_of(results["ground"])
    report = make_report(results["ground"])
    page = report.html
    f1s = [row["f1"] for row in rows if not row["failed"] and row["f1"] is not None]
    assert figure(sum(f1s) / len(f1s)) in page
    assert (
        "grounding precision, recall and F1 by factor" in page
        and f"grounding F1 per record (n={len(f1s)})" in page
    )
    assert "pop: high" in page and "has_multi: multi" in page and "has_multi: single" in page
    tags = parsed(page).tags
    facts = [attrs["class"] for tag, attrs in tags if tag == "li" and "fact" in attrs.get("class", "")]
    present = [fact["present"] for row in rows for fact in row["response_facts"] + row["gold_facts"]]
    assert facts.count("fact absent") == present.count(False) > 0 and facts.count(
        "fact present"
    ) == present.count(True)
    scored = [attrs["title"] for tag, attrs in tags if tag == "li" and "fact" in attrs.get("class", "")]
    assert scored[0] == f"presence score {figure(rows[0]['response_facts'][0]['score'])}"


def test_attribute_page_colours_citations_and_groups_by_removed_triples(results):
    rows = rows_of(results["attribute"]) + rows_of(results["attribute1"])
    page = render_report([results["attribute"], results["attribute1"]])
    assert "removed=0" in page and "removed=1" in page and "citation precision and recall per answer" in page
    tags = parsed(page).tags
    cites = [
        attrs["class"] for tag, attrs in tags if tag == "span" and attrs.get("class", "").startswith("cite ")
    ]
    citations = [c for row in rows for c in row["citations"]]
    legend = 1
    assert cites.count("cite wrong") - legend == sum(1 for c in citations if not c["correct"]) > 0
    assert cites.count("cite precise") - legend == sum(1 for c in citations if c["precise"])
    assert cites.count("cite na") - legend == sum(len(row["na_sentences"]) for row in rows) > 0
    first = rows[0]
    precision = first["counts"]["precise"] / first["counts"]["citations"]
    assert f"precision {figure(precision)}" in page


def test_knowledge_page_shows_every_metric_and_six_dimensions_per_record(results):
    rows = rows_of(results["knowledge"])
    page = render_report(results["knowledge"])
    relevance = [row["relevance"] for row in rows if row["relevance"] is not None]
    assert (
        figure(sum(relevance) / len(relevance)) in page
        and f"relevance per record (n={len(relevance)})" in page
    )
    assert "informativeness per record" not in page and "no causal LM" in page
    assert page.count("CONNER's six dimensions") == len(rows)
    for dimension in ("factuality", "relevance", "coherence", "informativeness", "helpfulness", "validity"):
        assert len(re.findall(rf'<th rowspan="\d">{dimension}</th>', page)) == len(rows)
    marks = [attrs for tag, attrs in parsed(page).tags if tag == "mark" and "title" in attrs]
    assert len(marks) == sum(len(row["sentences"]) for row in rows)
    assert marks[0]["title"].startswith(f"P(consistent) {figure(rows[0]['sentences'][0]['probs'][0])}")


@pytest.mark.parametrize("system", ["check", "ground", "attribute", "knowledge"])
def test_only_and_limit_choose_records_but_not_figures(results, system):
    everything = make_report(results[system])
    flagged = make_report(results[system], only="hallucinated")
    assert len(everything.shown) == len(everything.rows)
    assert [row.id for row in flagged.shown] == [
        row.id for row in everything.rows if SYSTEMS[system].report.flagged(row)
    ]
    assert 0 < len(flagged.shown) < len(everything.rows)
    limited = make_report(results[system], limit=1)
    assert len(limited.shown) == 1 and len(limited.rows) == len(everything.rows)


def test_flags_follow_each_system_s_meaning_of_a_problem(results):
    ground = rows_of(results["ground"])
    shown = make_report(results["ground"], only="hallucinated").shown
    assert [r.id for r in shown] == [
        r["id"] for r in ground if any(f["present"] is False for f in r["response_facts"])
    ]
    knowledge = rows_of(results["knowledge"])
    shown = make_report(results["knowledge"], only="hallucinated").shown
    expected = [r["id"] for r in knowledge if any(max(s["probs"]) != s["probs"][0] for s in r["sentences"])]
    assert [r.id for r in shown] == expected


@pytest.mark.parametrize("system", ["check", "ground", "attribute", "knowledge"])
def test_the_command_writes_each_system_s_page(results, system, tmp_path):
    output = tmp_path / "page.html"
    outcome = invoke("report", results[system], "-o", output, "--limit", "2")
    assert SYSTEMS[system].command in outcome.output and "records shown" in outcome.output
    page = output.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "@media print" in page
    assert "<script" not in page and "http" not in page


@pytest.mark.parametrize("system", ["check", "ground", "attribute", "knowledge"])
def test_render_record_gives_one_result_s_fragment(results, system):
    row = rows_of(results[system])[0]
    fragment = render_record(system, row, anchor="job7")
    assert fragment.startswith("<section") and 'id="job7"' in fragment and row["id"] in fragment
    assert render_record(SYSTEMS[system].manifest, row, anchor="job7") == fragment
    with pytest.raises(InputError) as bad:
        render_record(system, {**row, "id": ["x"]})
    assert bad.value.field == "id"


def test_a_ground_record_can_show_the_contexts_its_facts_were_judged_against(results):
    row = rows_of(results["ground"])[0]
    context = "The <b>Harbour Line</b> closed in 1958."
    fragment = render_record("ground", row, contexts=[context])
    assert "Contexts the response facts were judged against" in fragment
    assert "The &lt;b&gt;Harbour Line&lt;/b&gt; closed in 1958." in fragment
    assert "Contexts" not in render_record("ground", row)


def test_the_stylesheet_serves_every_system_s_fragments():
    css = stylesheet()
    for selector in (
        "mark.contradiction",
        ".fact.absent",
        ".cite.wrong",
        ".cite.na",
        "mark.inconsistent",
        "@media print",
    ):
        assert selector in css


def hostile(value, counter, key=None):
    """``value`` with every string (and every metadata / G-Eval key) replaced by the next hostile string."""
    if isinstance(value, str):
        if key in KEEP:
            return value
        counter[0] += 1
        return HOSTILE[counter[0] % len(HOSTILE)]
    if isinstance(value, list):
        return [hostile(item, counter, key) for item in value]
    if isinstance(value, dict):
        out = {k: hostile(v, counter, k) for k, v in value.items()}
        if key in ("metadata", "geval", "not_computed"):
            out[HOSTILE[counter[0] % len(HOSTILE)]] = (
                hostile("x", counter) if key != "geval" else {"score": 3}
            )
        return out
    return value


@pytest.mark.parametrize("system", ["check", "ground", "attribute", "knowledge"])
def test_markup_in_every_field_of_every_system_comes_out_escaped_and_inert(results, system, tmp_path):
    rows = rows_of(results[system])
    counter = [0]
    poisoned = [hostile(row, counter) for row in rows]
    for number, row in enumerate(poisoned):  # hostile ids, still one per record (readers keep an id's first row)
        row["id"] = f"{row['id'] if isinstance(row['id'], str) else 'x'}{number}"
    path = tmp_path / "hostile.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in poisoned), encoding="utf-8")
    shutil.copy(manifest_path(results[system]), manifest_path(path))
    report = make_report(path, title=HOSTILE[0])
    assert not report.problems and len(report.rows) == len(rows)
    pages = [report.html, *(render_record(system, row) for row in poisoned)]
    for page in pages:
        assert "<script" not in page and "<img" not in page
        tags = parsed(page)
        for tag, attrs in tags.tags:
            assert tag not in ("script", "img", "iframe", "object")
            assert not any(name.startswith("on") for name in attrs), (tag, attrs)
            for name in ("href", "src", "action", "xlink:href"):
                assert not (attrs.get(name) or "").strip().lower().startswith("javascript:"), (tag, attrs)
        text = "".join(tags.text)
        assert all(item in text for item in HOSTILE), "the hostile strings show as text"
