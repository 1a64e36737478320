"""A self-contained HTML page of `factscope check` results: rates, highlighted responses, claims, evidence.

The page has inline CSS only (no scripts, nothing fetched), so it can be mailed or archived as one file.
Every text from the results is escaped. Highlights are drawn from character offsets: a claim's ``spans`` in
the response and a verdict's ``evidence_span`` in reference ``evidence_reference``. Where highlights overlap
(several claims from one sentence), the text is cut at every span boundary and each piece takes the colour of
its most severe claim, ranked Contradiction > Neutral > failed > Entailment: a claim whose check failed may
still be a hallucination, so it keeps a sentence from looking supported. The claim numbers follow each piece.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from itertools import pairwise
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from factscope import __version__
from factscope.cli.display import format_value
from factscope.core.errors import InputError
from factscope.core.io import read_json_records
from factscope.core.schema import LABELS, Label, Span, Verdict
from factscope.metrics.hallucination import DatasetRates
from factscope.refchecker.task import CheckResult, CheckRun, summarize_run

Only = Literal["all", "hallucinated"]

LABEL_CLASS: dict[Label, str] = {
    Label.ENTAILMENT: "entailment",
    Label.NEUTRAL: "neutral",
    Label.CONTRADICTION: "contradiction",
}
FAILED_CLASS = "failed"
HIGHLIGHT_RANK: dict[str, int] = {"entailment": 0, FAILED_CLASS: 1, "neutral": 2, "contradiction": 3}
"""Which colour wins where highlights overlap: the higher rank."""


@dataclass(frozen=True)
class Highlight:
    """One claim's mark on a text: the character span, the claim's number (from 1) and its verdict."""

    span: Span
    claim: int
    verdict: Verdict


def verdict_class(verdict: Verdict) -> str:
    """The CSS class of a verdict: its label's name in lower case, or 'failed' when it has no label."""
    if verdict.failed or verdict.label is None:
        return FAILED_CLASS
    return LABEL_CLASS[verdict.label]


def is_hallucinated(result: CheckResult) -> bool:
    """True when any claim of the record is Neutral or Contradiction."""
    return any(item.verdict.label in (Label.NEUTRAL, Label.CONTRADICTION) for item in result.claims)


def select_results(
    results: Sequence[CheckResult], *, only: Only = "all", limit: int | None = None
) -> list[CheckResult]:
    """The records to show: all or only hallucinated ones, the first ``limit`` of them."""
    if only not in ("all", "hallucinated"):
        raise ValueError(f"only must be 'all' or 'hallucinated', got {only!r}")
    chosen = [r for r in results if only == "all" or is_hallucinated(r)]
    return chosen if limit is None else chosen[: max(limit, 0)]


def load_results(path: str | Path) -> tuple[list[CheckResult], list[InputError]]:
    """The results of a `factscope check` output file; rows that are not results come back as InputErrors."""
    results: list[CheckResult] = []
    problems: list[InputError] = []
    for line, item in read_json_records(path):
        if isinstance(item, InputError):
            problems.append(item)
            continue
        try:
            results.append(CheckResult.model_validate(item))
        except ValidationError as error:
            first = error.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or None
            problems.append(
                InputError(
                    f"{first['msg']}; is this a `factscope check` output file?",
                    path=path,
                    line=line,
                    field=field,
                )
            )
    return results, problems


def highlight_text(text: str, highlights: Sequence[Highlight], anchor: str) -> str:
    """``text`` as escaped HTML with each highlighted piece in a <mark>, followed by its claim numbers.

    Spans are clipped to the text; empty ones are ignored. Claim numbers link to ``#{anchor}-c{number}``.
    """
    marks = [
        (max(0, h.span.start), min(len(text), h.span.end), h)
        for h in highlights
        if min(len(text), h.span.end) > max(0, h.span.start)
    ]
    if not marks:
        return escape(text)
    cuts = sorted({0, len(text), *(start for start, _, _ in marks), *(end for _, end, _ in marks)})
    pieces: list[tuple[int, int, tuple[Highlight, ...]]] = []
    for start, end in pairwise(cuts):
        cover = tuple(h for s, e, h in marks if s <= start and end <= e)
        if pieces and pieces[-1][2] == cover and pieces[-1][1] == start:
            pieces[-1] = (pieces[-1][0], end, cover)
        else:
            pieces.append((start, end, cover))
    return "".join(_piece_html(text[start:end], cover, anchor) for start, end, cover in pieces)


def _piece_html(piece: str, cover: tuple[Highlight, ...], anchor: str) -> str:
    if not cover:
        return escape(piece)
    numbers = sorted({h.claim for h in cover})
    css = max((verdict_class(h.verdict) for h in cover), key=HIGHLIGHT_RANK.__getitem__)
    title = "; ".join(
        f"claim {h.claim}: {_label_name(h.verdict)}" for h in sorted(cover, key=lambda h: h.claim)
    )
    links = ",".join(f'<a href="#{anchor}-c{n}">{n}</a>' for n in numbers)
    return (
        f'<mark class="{css}" data-claims="{" ".join(map(str, numbers))}" title="{escape(title)}">'
        f'{escape(piece)}</mark><sup class="claims">{links}</sup>'
    )


def _label_name(verdict: Verdict) -> str:
    return "failed" if verdict_class(verdict) == FAILED_CLASS else verdict.label.value


def render_report(
    results: Sequence[CheckResult],
    *,
    only: Only = "all",
    limit: int | None = None,
    title: str = "factscope check report",
    source: str | None = None,
) -> str:
    """The whole HTML page. Rates cover every result given; ``only`` and ``limit`` choose the records shown."""
    run = summarize_run(results, new_records=len(results), seconds=0.0, extractor="", checker="")
    shown = select_results(results, only=only, limit=limit)
    body = [
        f"<header><h1>{escape(title)}</h1>",
        _overview(run, shown, source, only),
        _rates_table(run),
        _claims_table(results),
        _legend(),
        "</header>",
        _contents(shown),
        *(_record(result, index) for index, result in enumerate(shown, start=1)),
        f"<footer>made by factscope {escape(__version__)}; rates follow seed 004 eq. 1.</footer>",
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{escape(title)}</title>\n'
        f"<style>{_CSS}</style>\n</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n"
    )


def _overview(run: CheckRun, shown: Sequence[CheckResult], source: str | None, only: Only) -> str:
    claims = sum(len(r.claims) for r in run.results)
    parts = [
        f"{_count(len(run.results), 'record')}, {_count(claims, 'claim')}",
        _count(run.extraction_failures, "extraction failure"),
        _count(run.check_failures, "failed check"),
        f"showing {_count(len(shown), 'record')}"
        + (" with Neutral or Contradiction claims" if only == "hallucinated" else ""),
    ]
    origin = f'<p class="source">from <code>{escape(source)}</code></p>' if source else ""
    return f'{origin}<p class="overview">{escape("; ".join(parts))}</p>'


def _rates_table(run: CheckRun) -> str:
    head = "".join(
        f"<th>{escape(name)}</th>"
        for name in (
            "setting",
            "responses",
            "rated",
            *(label.value for label in LABELS),
            "hallucination",
            "abstain",
        )
    )
    rows = [
        _rates_row("all", run.rates),
        *(_rates_row(name, rates) for name, rates in run.rates_by_setting.items()),
    ]
    return (
        '<table class="rates"><caption>hallucination rates: share of claims per label, averaged over responses '
        "with claims (seed 004 eq. 1); abstain: share of responses with no claims</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _rates_row(name: str, rates: DatasetRates) -> str:
    values = [rates.rates[label] if rates.rates else None for label in LABELS]
    cells = [
        str(rates.responses),
        str(rates.answered),
        *(format_value(v) for v in values),
        format_value(rates.hallucination_rate),
        format_value(rates.abstain_rate),
    ]
    return f"<tr><th>{escape(name)}</th>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>"


def _claims_table(results: Sequence[CheckResult]) -> str:
    """Claims per label with their mean copy rate (seed 004's copy-rate analysis)."""
    classes = [*(LABEL_CLASS[label] for label in LABELS), FAILED_CLASS]
    names = {LABEL_CLASS[label]: label.value for label in LABELS} | {FAILED_CLASS: "failed"}
    counts = dict.fromkeys(classes, 0)
    copies: dict[str, list[float]] = {css: [] for css in classes}
    for result in results:
        for item in result.claims:
            css = verdict_class(item.verdict)
            counts[css] += 1
            if item.copy_rate is not None:
                copies[css].append(item.copy_rate)
    rows = "".join(
        f'<tr><th><span class="badge {css}">{names[css]}</span></th><td>{counts[css]}</td>'
        f"<td>{escape(format_value(sum(copies[css]) / len(copies[css]) if copies[css] else None))}</td></tr>"
        for css in classes
    )
    return (
        '<table class="labels"><caption>claims by label and their mean copy rate (share of 1- to 4-grams '
        "found in the references)</caption><thead><tr><th>label</th><th>claims</th><th>mean copy rate</th></tr>"
        f"</thead><tbody>{rows}</tbody></table>"
    )


def _legend() -> str:
    return (
        '<p class="legend">highlights: <mark class="entailment">Entailment</mark> '
        '<mark class="neutral">Neutral</mark> <mark class="contradiction">Contradiction</mark> '
        '<mark class="failed">check failed</mark>; where claims overlap the most severe colour shows '
        "(Contradiction, Neutral, failed, Entailment) and the claim numbers follow the text.</p>"
    )


def _strict_badge(result: CheckResult) -> str:
    summary = result.summary
    if result.extraction_failed:
        return '<span class="badge failed">extraction failed</span>'
    if summary is None or summary.abstain:
        return '<span class="badge abstain">no claims</span>'
    if summary.strict is None:
        return '<span class="badge failed">checks failed</span>'
    return f'<span class="badge {LABEL_CLASS[summary.strict]}">{summary.strict.value}</span>'


def _contents(shown: Sequence[CheckResult]) -> str:
    if not shown:
        return '<p class="empty">no records to show.</p>'
    rows = "".join(
        f'<tr><td><a href="#r{index}">{escape(result.id)}</a></td><td>{escape(result.setting or "")}</td>'
        f"<td>{len(result.claims)}</td><td>{_strict_badge(result)}</td>"
        f"<td>{escape(format_value(result.summary.hallucination_rate if result.summary else None))}</td></tr>"
        for index, result in enumerate(shown, start=1)
    )
    return (
        '<nav><table class="contents"><caption>records</caption><thead><tr><th>id</th><th>setting</th>'
        f"<th>claims</th><th>strict label</th><th>hallucination rate</th></tr></thead><tbody>{rows}</tbody>"
        "</table></nav>"
    )


def _record(result: CheckResult, index: int) -> str:
    anchor = f"r{index}"
    response_marks = [
        Highlight(span, number, item.verdict)
        for number, item in enumerate(result.claims, start=1)
        for span in item.claim.spans
    ]
    setting = f' <span class="setting">{escape(result.setting)}</span>' if result.setting else ""
    question = f'<p class="question"><b>Question</b> {escape(result.question)}</p>' if result.question else ""
    parts = [
        f'<section class="record" id="{anchor}">',
        f"<h2>{escape(result.id)}{setting} {_strict_badge(result)}</h2>",
        question,
        "<h3>Response</h3>",
        f'<div class="text response">{highlight_text(result.response, response_marks, anchor)}</div>',
        _response_summary(result),
        _extraction_failure(result),
        _claim_rows(result, anchor),
        _references(result, anchor),
        "</section>",
    ]
    return "\n".join(part for part in parts if part)


def _response_summary(result: CheckResult) -> str:
    summary = result.summary
    if summary is None or summary.abstain:
        return ""
    counts = ", ".join(f"{summary.counts[label]} {label.value}" for label in LABELS)
    failed = f", {summary.failed} failed" if summary.failed else ""
    majority = summary.majority.value if summary.majority else "n/a"
    return (
        f'<p class="summary">{_count(summary.claims, "claim")}: {escape(counts)}{failed}; majority label {majority}; '
        f"hallucination rate {escape(format_value(summary.hallucination_rate))}</p>"
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _extraction_failure(result: CheckResult) -> str:
    if not result.extraction_failed:
        return ""
    raw = (
        f"<details><summary>raw reply</summary><pre>{escape(result.extraction_raw)}</pre></details>"
        if (result.extraction_raw)
        else ""
    )
    return (
        f'<div class="problem"><b>extraction failed:</b> {escape(result.extraction_error or "no reason given")}'
        f"{raw}</div>"
    )


def _claim_rows(result: CheckResult, anchor: str) -> str:
    if not result.claims:
        return "" if result.extraction_failed else '<p class="summary">no claims: the response abstains.</p>'
    with_probs = any(item.verdict.probs is not None for item in result.claims)
    scored = any(item.verdict.score is not None for item in result.claims)
    names = (
        "#",
        "claim",
        "label",
        *(("P(E)", "P(N)", "P(C)") if with_probs else ()),
        *(("score",) if scored else ()),
        "copy rate",
        "evidence",
    )
    head = "".join(f"<th>{name}</th>" for name in names)
    rows = []
    for number, item in enumerate(result.claims, start=1):
        verdict = item.verdict
        css = verdict_class(verdict)
        figures = [verdict.prob(label) for label in LABELS] if with_probs else []
        figures += [verdict.score] if scored else []
        no_span = "" if item.claim.spans else ' <span class="note">(no span in the response)</span>'
        rows.append(
            f'<tr id="{anchor}-c{number}" class="{css}"><td>{number}</td>'
            f"<td>{_claim_cell(item.claim.triplet, item.claim.text)}{no_span}</td>"
            f'<td><span class="badge {css}">{escape(_label_name(verdict))}</span></td>'
            + "".join(f'<td class="num">{escape(format_value(p))}</td>' for p in figures)
            + f'<td class="num">{escape(format_value(item.copy_rate))}</td>'
            f"<td>{_evidence_cell(verdict, anchor)}</td></tr>"
        )
    return f'<table class="claims"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _claim_cell(triplet: tuple[str, str, str] | None, text: str) -> str:
    if triplet is None:
        return escape(text)
    parts = "".join(f'<span class="part">{escape(part)}</span>' for part in triplet)
    return f'<span class="triplet">{parts}</span>'


def _evidence_cell(verdict: Verdict, anchor: str) -> str:
    cells = []
    if verdict.evidence_reference is not None:
        number = verdict.evidence_reference + 1
        cells.append(f'<a href="#{anchor}-ref{number}">reference {number}</a>')
    if verdict.evidence:
        cells.append(f"<q>{escape(verdict.evidence)}</q>")
    if verdict.error:
        cells.append(f'<span class="error">{escape(verdict.error)}</span>')
    if verdict.failed and verdict.raw:
        cells.append(f"<details><summary>raw reply</summary><pre>{escape(verdict.raw)}</pre></details>")
    return " ".join(cells)


def _references(result: CheckResult, anchor: str) -> str:
    if not result.references:
        return '<p class="note">no references: nothing could verify these claims.</p>'
    blocks = []
    for ref_index, reference in enumerate(result.references):
        deciding = [
            (number, item.verdict)
            for number, item in enumerate(result.claims, start=1)
            if item.verdict.evidence_reference == ref_index
        ]
        marks = [Highlight(v.evidence_span, n, v) for n, v in deciding if v.evidence_span is not None]
        claims = ", ".join(
            f'<a href="#{anchor}-c{n}">claim {n}</a> ({escape(_label_name(v))})' for n, v in deciding
        )
        note = f'<p class="note">evidence for {claims}</p>' if claims else ""
        number = ref_index + 1
        retrieved = " (retrieved)" if result.retrieved else ""
        blocks.append(
            f'<div class="reference" id="{anchor}-ref{number}"><h4>reference {number}{retrieved}</h4>{note}'
            f'<div class="text">{highlight_text(reference, marks, anchor)}</div></div>'
        )
    return f"<h3>References</h3>{''.join(blocks)}"


_CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d1d1f;margin:0 auto;
max-width:1100px;padding:1.5rem;background:#fafafa}
h1{font-size:1.6rem;margin:.2rem 0}h2{font-size:1.2rem;margin:0 0 .6rem}h3{font-size:1rem;margin:1rem 0 .3rem}
h4{font-size:.9rem;margin:.2rem 0}
table{border-collapse:collapse;margin:.8rem 0;background:#fff;font-size:.9rem}
caption{text-align:left;color:#555;font-size:.85rem;padding:.2rem 0}
th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
td.num,.rates td,.labels td{text-align:right;font-variant-numeric:tabular-nums}
.record{background:#fff;border:1px solid #ddd;border-radius:6px;padding:1rem 1.2rem;margin:1.2rem 0}
.text{white-space:pre-wrap;line-height:1.9;background:#fcfcfc;border-left:3px solid #ccc;padding:.4rem .7rem}
mark{border-radius:3px;padding:.1rem 0;color:inherit}
mark.entailment{background:#c8ecd0;box-shadow:inset 0 -2px #2e7d32}
mark.neutral{background:#ffe2a8;box-shadow:inset 0 -2px #b26a00}
mark.contradiction{background:#ffc9c9;box-shadow:inset 0 -2px #c62828}
mark.failed{background:#e2e2e2;box-shadow:inset 0 -2px #757575}
sup.claims{font-size:.7rem;color:#555;margin-left:1px}sup.claims a{color:#555}
.badge{display:inline-block;border-radius:10px;padding:0 .55rem;font-size:.8rem;font-weight:600;color:#fff}
.badge.entailment{background:#2e7d32}.badge.neutral{background:#b26a00}.badge.contradiction{background:#c62828}
.badge.failed{background:#757575}.badge.abstain{background:#5c6bc0}
.setting{font-size:.8rem;color:#555;border:1px solid #bbb;border-radius:4px;padding:0 .35rem;font-weight:400}
.triplet .part{border:1px solid #ccc;border-radius:3px;padding:0 .25rem;margin-right:.25rem;background:#f4f4f4}
tr.contradiction td:first-child{border-left:4px solid #c62828}tr.neutral td:first-child{border-left:4px solid #b26a00}
tr.entailment td:first-child{border-left:4px solid #2e7d32}tr.failed td:first-child{border-left:4px solid #757575}
q{color:#333}.error{color:#b00020}.note,.summary,.overview,.source{color:#555;font-size:.88rem}
.problem{background:#fff3f3;border:1px solid #f0b4b4;padding:.5rem .7rem;border-radius:4px}
pre{white-space:pre-wrap;font-size:.8rem;background:#f4f4f4;padding:.4rem}
footer{color:#777;font-size:.8rem;margin-top:2rem}
"""
