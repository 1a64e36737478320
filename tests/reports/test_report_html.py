"""The report page of check results, made by the shared page from the check report hooks: escaping, overlapping
highlights, evidence offsets, rates, CLI."""

import json
import re
import subprocess
import sys
from html import escape
from html.parser import HTMLParser

import pytest
import typer
from markupsafe import escape as jinja_escape
from typer.testing import CliRunner

from factscope.core.errors import InputError
from factscope.core.schema import Claim, Label, Span, Verdict
from factscope.metrics.hallucination import summarize_response
from factscope.plots.templating import format_figure
from factscope.refchecker.html_report import (
    Highlight,
    Piece,
    highlight_pieces,
    render_record,
    verdict_class,
)
from factscope.refchecker.task import CheckResult, ClaimResult
from factscope.reports.dispatch import make_report

E, N, C = Label.ENTAILMENT, Label.NEUTRAL, Label.CONTRADICTION

RESPONSE = "Marie Curie was a physicist. She was born in Paris & Warsaw. <script>alert(1)</script>"
REFERENCE = "Marie Curie (1867-1934) was a physicist and chemist. She was born in Warsaw, Poland."
BORN = "She was born in Warsaw, Poland."


def span_of(text, part):
    start = text.index(part)
    return Span(start=start, end=start + len(part))


def claim(triplet, sentence, verdict, copy_rate=None):
    return ClaimResult(
        claim=Claim(
            text=" ".join(triplet), kind="triplet", triplet=triplet, spans=[span_of(RESPONSE, sentence)]
        ),
        verdict=verdict,
        copy_rate=copy_rate,
    )


def result(id, claims, setting=None, **fields):
    summary = (
        None if fields.get("extraction_failed") else summarize_response([c.verdict.label for c in claims])
    )
    return CheckResult(
        id=id,
        response=fields.pop("response", RESPONSE),
        setting=setting,
        claims=claims,
        summary=summary,
        **fields,
    )


@pytest.fixture
def rows():
    born = span_of(REFERENCE, BORN)
    curie = result(
        "curie",
        [
            claim(
                ("Marie Curie", "occupation", "physicist"),
                "Marie Curie was a physicist.",
                Verdict(
                    label=E,
                    probs=(0.9, 0.08, 0.02),
                    evidence_reference=0,
                    evidence_span=span_of(REFERENCE, "Marie Curie (1867-1934) was a physicist and chemist."),
                ),
                copy_rate=1.0,
            ),
            claim(
                ("Marie Curie", "born in", "Paris"),
                "She was born in Paris & Warsaw.",
                Verdict(
                    label=C, probs=(0.1, 0.2, 0.7), evidence=BORN, evidence_reference=0, evidence_span=born
                ),
                copy_rate=0.5,
            ),
            claim(
                ("Marie Curie", "born in", "Warsaw"),
                "She was born in Paris & Warsaw.",
                Verdict(
                    label=E, probs=(0.8, 0.1, 0.1), evidence=BORN, evidence_reference=0, evidence_span=born
                ),
            ),
            claim(
                ("<b>x</b>", "says", "y"),
                "<script>alert(1)</script>",
                Verdict(label=None, failed=True, raw="<i>maybe</i>", error="reply is not one of the labels"),
            ),
        ],
        setting="noisy",
        question="Who was <Marie> Curie?",
        references=[REFERENCE],
    )
    supported = result(
        "supported",
        [
            claim(
                ("Marie Curie", "occupation", "physicist"),
                "Marie Curie was a physicist.",
                Verdict(label=E, score=0.83),
            )
        ],
        setting="accurate",
        references=[REFERENCE],
    )
    abstain = result("abstain", [], setting="zero", response="I cannot say.", references=[REFERENCE])
    broken = result(
        "broken",
        [],
        extraction_failed=True,
        extraction_error="reply is not JSON",
        extraction_raw="not json <x>",
    )
    return [curie, supported, abstain, broken]


@pytest.fixture
def render(tmp_path):
    """The page of result rows as `factscope report` builds it from their file: rates over all rows, the chosen
    rows shown."""

    def page(rows, **options):
        return report(rows, **options).html

    def report(rows, **options):
        path = tmp_path / "checked.jsonl"
        path.write_text("".join(row.model_dump_json() + "\n" for row in rows), encoding="utf-8")
        return make_report(path, **options)

    page.report = report
    return page


def section(page, index):
    return page.split(f'<section class="record" id="r{index}">')[1].split("</section>")[0]


def marks(html):
    return re.findall(
        r'<mark class="(\w+)" data-claims="([\d ]+)" title="[^"]*" tabindex="0">(.*?)</mark>', html
    )


def highlighted(text, covered, anchor="r1"):
    """The response of a record's fragment whose claims cover ``covered``: (start, end, label or None for a
    failed check), claim 1 first."""
    claims = [
        ClaimResult(
            claim=Claim(text="c", kind="sentence", spans=[Span(start=start, end=end)]),
            verdict=Verdict(label=label, failed=label is None),
        )
        for start, end, label in covered
    ]
    record = render_record(CheckResult(id="x", response=text, claims=claims), anchor)
    return record.split('<div class="text response">')[1].split("</div>")[0].strip()


def test_overlapping_spans_are_cut_at_every_boundary_and_take_the_most_severe_colour():
    # "abcdef": claim 1 (Entailment) covers [0, 4), claim 2 (Contradiction) covers [2, 6), claim 3 is empty
    # -> pieces "ab" {1} green, "cd" {1, 2} red, "ef" {2} red
    html = highlighted("abcdef", [(0, 4, E), (2, 6, C), (3, 3, N)])
    assert marks(html) == [
        ("entailment", "1", "ab"),
        ("contradiction", "1 2", "cd"),
        ("contradiction", "2", "ef"),
    ]
    assert '<sup class="claims"><a href="#r1-c1">1</a>,<a href="#r1-c2">2</a></sup>' in html
    # spans past the end are clipped; uncovered text stays plain and escaped
    html = highlighted("a<b", [(2, 99, N)], "r2")
    assert html.startswith("a&lt;") and marks(html) == [("neutral", "1", "b")]
    # a failed check outranks Entailment, Neutral outranks a failed check
    assert marks(highlighted("x", [(0, 1, E), (0, 1, None)]))[0][0] == "failed"
    assert marks(highlighted("x", [(0, 1, N), (0, 1, None)]))[0][0] == "neutral"
    assert highlighted("<b>", []) == "&lt;b&gt;"


def test_highlight_pieces_carry_text_colour_claims_and_title():
    def h(start, end, number, label):
        return Highlight(Span(start=start, end=end), number, Verdict(label=label))

    assert highlight_pieces("abcdef", [h(0, 4, 1, E), h(2, 6, 2, C), h(4, 6, 3, N)]) == [
        Piece("ab", "entailment", (1,), "claim 1: Entailment"),
        Piece("cd", "contradiction", (1, 2), "claim 1: Entailment; claim 2: Contradiction"),
        Piece("ef", "contradiction", (2, 3), "claim 2: Contradiction; claim 3: Neutral"),
    ]
    assert highlight_pieces("a b", [h(1, 2, 1, N)]) == [
        Piece("a"),
        Piece(" ", "neutral", (1,), "claim 1: Neutral"),
        Piece("b"),
    ]
    assert highlight_pieces("", [h(0, 3, 1, E)]) == []


def test_response_sentences_are_coloured_by_their_claims(rows, render):
    page = render(rows)
    response = section(page, 1).split('<div class="text response">')[1].split("</div>")[0]
    assert marks(response) == [
        ("entailment", "1", "Marie Curie was a physicist."),
        ("contradiction", "2 3", "She was born in Paris &amp; Warsaw."),
        ("failed", "4", "&lt;script&gt;alert(1)&lt;/script&gt;"),
    ]
    assert 'title="claim 2: Contradiction; claim 3: Entailment"' not in response
    titles = re.findall(r'title="([^"]*)"', response)
    assert titles[0] == "claim 1: Marie Curie occupation physicist \u2192 Entailment (P=0.90)"
    assert titles[1].split("\n")[0].startswith("claim 2: ") and "\u2192 Contradiction (P=" in titles[1]


def test_evidence_is_highlighted_at_its_offsets_in_the_reference(rows, render):
    page = render(rows)
    reference = section(page, 1).split('<div class="reference" id="r1-ref1">')[1]
    text = reference.split('<div class="text">')[1].split("</div>")[0]
    first = span_of(REFERENCE, "Marie Curie (1867-1934) was a physicist and chemist.")
    born = span_of(REFERENCE, BORN)
    expected = (
        f'<mark class="entailment" data-claims="1" title="claim 1: Entailment" tabindex="0">{REFERENCE[first.start : first.end]}</mark>'
        '<sup class="claims"><a href="#r1-c1">1</a></sup>'
        f"{REFERENCE[first.end : born.start]}"
        f'<mark class="contradiction" data-claims="2 3" title="claim 2: Contradiction; claim 3: Entailment" tabindex="0">{BORN}'
        '</mark><sup class="claims"><a href="#r1-c2">2</a>,<a href="#r1-c3">3</a></sup>'
    )
    assert text == expected
    assert (
        'evidence for <a href="#r1-c1">claim 1</a> (Entailment), <a href="#r1-c2">claim 2</a> (Contradiction)'
        in reference
    )


def test_claim_table_rows_carry_label_probabilities_copy_rate_and_escaped_text(rows, render):
    page = render(rows)
    record = section(page, 1)
    row2 = record.split('<tr id="r1-c2" class="contradiction">')[1].split("</tr>")[0]
    cells = re.findall(r'<td class="num">([^<]*)</td>', row2)
    assert cells == ["0.1000", "0.2000", "0.7000", "0.5000"]
    assert '<span class="badge contradiction">Contradiction</span>' in row2
    assert '<span class="part">born in</span>' in row2 and f"<q>{BORN}</q>" in row2
    row4 = record.split('<tr id="r1-c4" class="failed">')[1].split("</tr>")[0]
    assert '<span class="part">&lt;b&gt;x&lt;/b&gt;</span>' in row4
    assert "&lt;i&gt;maybe&lt;/i&gt;" in row4 and "reply is not one of the labels" in row4
    assert "<b>Question</b> Who was &lt;Marie&gt; Curie?" in record


def test_probability_and_score_columns_appear_only_when_the_checker_gives_them(rows, render):
    page = render(rows)
    assert "<th>P(E)</th><th>P(N)</th><th>P(C)</th><th>copy rate</th>" in section(page, 1)
    supported = section(page, 2)
    assert "<th>label</th><th>score</th><th>copy rate</th>" in supported
    assert re.findall(r'<td class="num">([^<]*)</td>', supported) == ["0.8300", "n/a"]


def test_nothing_from_the_results_reaches_the_page_unescaped(rows, render):
    page = render(rows, title="<t>")
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<Marie>" not in page and "<x>" not in page and "not json &lt;x&gt;" in page
    assert "<title>&lt;t&gt;</title>" in page and "http" not in page


def test_header_rates_follow_refchecker_eq_1(rows, render):
    page = render(rows)
    # rated responses: curie (E 2/3, N 0, C 1/3 over its 3 checked claims) and supported (E 1);
    # abstain has no claims; broken failed extraction and is not rated.
    # E = (2/3 + 1) / 2 = 0.8333, N = 0, C = (1/3 + 0) / 2 = 0.1667, hallucination 0.1667, abstain 1/3
    assert (
        "<tr><th>all</th><td>3</td><td>2</td><td>0.8333</td><td>0.0000</td><td>0.1667</td><td>0.1667</td>"
        "<td>0.3333</td></tr>"
    ) in page
    assert "<tr><th>noisy</th><td>1</td><td>1</td><td>0.6667</td><td>0.0000</td><td>0.3333</td>" in page
    assert "<tr><th>zero</th><td>1</td><td>0</td><td>n/a</td>" in page
    # claims by label: 3 Entailment (copy rates 1.0 and None and None -> mean 1.0), 1 Contradiction (0.5), 1 failed
    assert '<span class="badge entailment">Entailment</span></th><td>3</td><td>1.0000</td>' in page
    assert '<span class="badge contradiction">Contradiction</span></th><td>1</td><td>0.5000</td>' in page
    assert (
        "4 records, 5 claims; 1 extraction failure; 1 failed check</p>" in page
        and "showing 4 records" in page
    )


def test_only_hallucinated_and_limit_choose_records_but_not_rates(rows, render):
    assert [r.id for r in render.report(rows, only="hallucinated").shown] == ["curie"]
    assert [r.id for r in render.report(rows, limit=2).shown] == ["curie", "supported"]
    page = render(rows, only="hallucinated")
    assert page.count('<section class="record"') == 1 and "<td>0.8333</td>" in page
    assert "showing 1 record with a problem (records with a Neutral or Contradiction claim)" in page
    assert render(rows, limit=0).count('<section class="record"') == 0
    with pytest.raises(InputError, match="only"):
        render(rows, only="some")


def test_the_contents_line_gives_setting_claims_strict_label_and_rate(rows, render):
    contents = render(rows).split('<table class="contents">')[1].split("</table>")[0]
    assert (
        '<a href="#r1">curie</a></td><td>noisy; 4 claims; Contradiction; hallucination rate 0.33</td>'
        in contents
    )
    assert '<a href="#r3">abstain</a></td><td>zero; 0 claims; no claims</td>' in contents
    assert '<a href="#r4">broken</a></td><td>0 claims; extraction failed</td>' in contents


def test_records_without_claims_say_why(rows, render):
    page = render(rows)
    assert "no claims: the response abstains." in section(page, 3)
    broken = section(page, 4)
    assert "extraction failed:</b> reply is not JSON" in broken and '<span class="badge failed">' in broken
    assert verdict_class(Verdict(label=None, failed=True)) == "failed"


ATTACKS = (
    "<script>alert(1)</script>",
    '" onmouseover="alert(2)',
    "' onfocus='alert(3)",
    '<a href="javascript:alert(4)">go</a>',
    "<img src=x onerror=alert(5)>",
)


class Elements(HTMLParser):
    """Every start tag of a page with its attributes, in order."""

    def __init__(self, page):
        super().__init__()
        self.tags = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


def hostile(text, render):
    """The page of one record that puts ``text`` in every field the page shows, and of one whose extraction
    failed with ``text``."""
    response = f"Answer: {text}"
    reference = f"Known: {text}"
    spans = [span_of(response, text)]
    evidence = span_of(reference, text)
    record = CheckResult(
        id=f"{text}-id",
        question=text,
        response=response,
        setting=text,
        references=[reference],
        claims=[
            ClaimResult(
                claim=Claim(text=text, kind="triplet", triplet=(text, text, text), spans=spans),
                verdict=Verdict(label=N, evidence=text, evidence_reference=0, evidence_span=evidence),
            ),
            ClaimResult(
                claim=Claim(text=text, kind="sentence", spans=spans),
                verdict=Verdict(label=None, failed=True, raw=text, error=text),
            ),
        ],
        summary=summarize_response([N, None]),
    )
    broken = CheckResult(
        id=f"{text}-broken", response=text, extraction_failed=True, extraction_error=text, extraction_raw=text
    )
    return render([record, broken], title=text)


def test_markup_in_every_field_of_the_results_comes_out_escaped_and_inert(render):
    payload = "".join(ATTACKS)
    page = hostile(payload, render)
    tags = Elements(page).tags
    assert "script" not in {tag for tag, _ in tags} and "img" not in {tag for tag, _ in tags}
    attributes = [(name, value or "") for _, attrs in tags for name, value in attrs]
    assert not [name for name, _ in attributes if name.startswith("on")]
    assert all(value.startswith("#") for name, value in attributes if name == "href")
    assert not [value for name, value in attributes if name != "title" and "javascript:" in value.lower()]
    # the markup changes no element: the page has the same tags and attribute names as with plain text
    plain = Elements(hostile("plain", render)).tags
    assert [(tag, [name for name, _ in attrs]) for tag, attrs in tags] == [
        (tag, [name for name, _ in attrs]) for tag, attrs in plain
    ]
    shown = str(jinja_escape(payload))
    assert '" onmouseover="' not in page and "&#34; onmouseover=&#34;alert(2)" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and 'href="javascript:' not in page
    record = section(page, 1)
    assert (
        f'<h2>{shown}-id <span class="setting">{shown}</span> ' in record
        and f'<a href="#r1">{shown}-id</a>' in page
    )
    assert f"<b>Question</b> {shown}</p>" in record
    assert f'title="claim 1: {shown} \u2192 Neutral' in record.split('"text response">')[1]
    assert (
        f'claim 2: {shown} \u2192 failed" tabindex="0">{shown}</mark>' in record.split('"text response">')[1]
    )
    assert (
        f'title="claim 1: Neutral" tabindex="0">{shown}</mark>' in record.split('<div class="reference"')[1]
    )
    assert f'<span class="part">{shown}</span>' * 3 in record and f"<q>{shown}</q>" in record
    assert f'<span class="error">{shown}</span>' in record and f"<pre>{shown}</pre>" in record
    assert f"extraction failed:</b> {shown}<details>" in section(page, 2)
    assert f"<title>{shown}</title>" in page


def test_figures_print_with_four_decimals_and_missing_ones_as_n_a():
    assert [format_figure(v) for v in (0.5, 1 / 3, None, 3)] == ["0.5000", "0.3333", "n/a", "3"]


def test_the_report_imports_nothing_from_the_cli():
    code = "import sys, factscope.refchecker.html_report; print(sorted(m for m in sys.modules if 'cli' in m))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "factscope.cli" not in loaded


def cli_app():
    from factscope.cli import report

    app = typer.Typer()
    report.register(app)
    app.command("noop")(lambda: None)
    return app


def test_cli_writes_the_page_and_skips_bad_rows(rows, tmp_path):
    checked = tmp_path / "checked.jsonl"
    lines = [
        rows[0].model_dump_json(),
        "{broken",
        json.dumps({"id": "x", "claims": []}),
        rows[1].model_dump_json(),
    ]
    checked.write_text("\n".join(lines) + "\n", encoding="utf-8")
    output = tmp_path / "out" / "report.html"
    missing = CliRunner().invoke(cli_app(), ["report", str(checked), "-o", str(output)])
    assert "does not exist; create it first" in str(missing.exception) and not output.parent.exists()
    output.parent.mkdir()
    outcome = CliRunner().invoke(
        cli_app(),
        ["report", str(checked), "-o", str(output), "--only", "hallucinated"],
        env={"COLUMNS": "200"},
    )
    assert outcome.exit_code == 0, outcome.output
    page = output.read_text(encoding="utf-8")
    assert page.count('<section class="record"') == 1 and escape(str(checked)) in page
    read = make_report(checked)
    assert [r.id for r in read.rows] == ["curie", "supported"]
    assert [(p.line, p.field) for p in read.problems] == [(2, None), (3, "response")]
    assert page.count('<p class="note">skipped: ') == 2


def test_cli_refuses_bad_input_clearly(tmp_path):
    outcome = CliRunner().invoke(cli_app(), ["report", str(tmp_path / "missing.jsonl")])
    assert isinstance(outcome.exception, InputError) and "file not found" in str(outcome.exception)
    empty = tmp_path / "other.jsonl"
    empty.write_text('{"question": "q"}\n', encoding="utf-8")
    outcome = CliRunner().invoke(cli_app(), ["report", str(empty)])
    assert isinstance(outcome.exception, InputError) and "no check results" in str(outcome.exception)
    outcome = CliRunner().invoke(cli_app(), ["report", str(empty), "--only", "bad"])
    assert outcome.exit_code == 2 and "Invalid value for '--only'" in outcome.output
