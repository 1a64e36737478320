"""The report hooks of `factscope check` results: the overview of the shared report page (rates, claims by
label, charts), each record (highlighted response, claims, evidence) and its line in the page's contents.

The pieces are laid out by the jinja2 templates in ``refchecker/templates`` with autoescape on, so every text
from the results is escaped. The figures are counted from the rows as a run counts them (``CheckTotals``).

Highlights are drawn from character offsets: a claim's ``spans`` in the response and a verdict's
``evidence_span`` in reference ``evidence_reference``. Where highlights overlap (several claims from one
sentence), the text is cut at every span boundary and each piece takes the colour of its most severe claim,
ranked Contradiction > Neutral > failed > Entailment: a claim whose check failed may still be a
hallucination, so it keeps a sentence from looking supported. The claim numbers follow each piece.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import pairwise

from jinja2 import Environment
from markupsafe import Markup

from factscope.core.schema import LABELS, MODEL_FIELD, Label, Span, Verdict
from factscope.metrics.hallucination import DatasetRates, dataset_rates
from factscope.plots.bars import bar_list, grouped_bars, stacked_bars
from factscope.plots.svg import Series, Style
from factscope.plots.templating import environment
from factscope.refchecker.task import CheckResult, CheckTotals

LABEL_CLASS: dict[Label, str] = {
    Label.ENTAILMENT: "entailment",
    Label.NEUTRAL: "neutral",
    Label.CONTRADICTION: "contradiction",
}
FAILED_CLASS = "failed"
LABEL_STYLES: dict[str, Style] = {
    "entailment": Style("#2e7d32", "solid"),
    "neutral": Style("#e0a030", "hatch"),
    "contradiction": Style("#c62828", "cross"),
    FAILED_CLASS: Style("#9e9e9e", "dots"),
}
"""How each label is filled in the charts: a colour and a pattern, so that a printed page still tells them apart."""
HIGHLIGHT_RANK: dict[str, int] = {"entailment": 0, FAILED_CLASS: 1, "neutral": 2, "contradiction": 3}
"""Which colour wins where highlights overlap: the higher rank."""


@dataclass(frozen=True)
class Highlight:
    """One claim's mark on a text: the character span, the claim's number (from 1), its verdict and, where the
    mark's title should say it, the claim's text."""

    span: Span
    claim: int
    verdict: Verdict
    text: str = ""


@dataclass(frozen=True)
class Piece:
    """A run of text with the claims that cover it: no claims for plain text, else the winning CSS class."""

    text: str
    css: str | None = None
    claims: tuple[int, ...] = ()
    title: str = ""


@dataclass(frozen=True)
class Badge:
    """A coloured label: its CSS class and its text."""

    css: str
    text: str


@dataclass(frozen=True)
class RatesRow:
    """One line of the rates table: a setting's responses, rated responses and figures in column order."""

    name: str
    responses: int
    answered: int
    figures: tuple[float | None, ...]


@dataclass(frozen=True)
class LabelRow:
    """One line of the claims-by-label table."""

    badge: Badge
    claims: int
    copy_rate: float | None


@dataclass(frozen=True)
class ClaimRow:
    """One claim of a record as its table shows it; ``figures`` fill the probability and score columns."""

    number: int
    text: str
    triplet: tuple[str, str, str] | None
    has_span: bool
    badge: Badge
    figures: tuple[float | None, ...]
    copy_rate: float | None
    verdict: Verdict


@dataclass(frozen=True)
class ReferenceView:
    """One reference of a record: its number (from 1), highlighted text, the claims it decided and whether it was
    retrieved; ``link`` and ``title`` name the web page it was retrieved from (``link`` only for an http(s)
    address), ``search_title`` the search result's title of it where that differs."""

    number: int
    pieces: list[Piece]
    deciding: list[tuple[int, str]]
    retrieved: bool = False
    link: str | None = None
    title: str = ""
    search_title: str = ""
    fetched_at: str | None = None


@dataclass(frozen=True)
class RecordView:
    """Everything the page shows for one record; ``anchor`` prefixes its element ids."""

    anchor: str
    result: CheckResult
    badge: Badge
    response: list[Piece]
    columns: tuple[str, ...]
    claims: list[ClaimRow]
    references: list[ReferenceView]


def verdict_class(verdict: Verdict) -> str:
    """The CSS class of a verdict: its label's name in lower case, or 'failed' when it has no label."""
    if verdict.failed or verdict.label is None:
        return FAILED_CLASS
    return LABEL_CLASS[verdict.label]


def is_hallucinated(result: CheckResult) -> bool:
    """True when any claim of the record is Neutral or Contradiction."""
    return any(item.verdict.label in (Label.NEUTRAL, Label.CONTRADICTION) for item in result.claims)


def highlight_pieces(text: str, highlights: Sequence[Highlight]) -> list[Piece]:
    """``text`` cut at every highlight boundary; each piece carries the claims covering it and its colour.

    Spans are clipped to the text; empty ones are ignored. Neighbouring pieces with the same claims merge.
    """
    marks = [
        (max(0, h.span.start), min(len(text), h.span.end), h)
        for h in highlights
        if min(len(text), h.span.end) > max(0, h.span.start)
    ]
    cuts = sorted({0, len(text), *(start for start, _, _ in marks), *(end for _, end, _ in marks)})
    runs: list[tuple[int, int, tuple[Highlight, ...]]] = []
    for start, end in pairwise(cuts):
        cover = tuple(h for s, e, h in marks if s <= start and end <= e)
        if runs and runs[-1][2] == cover:
            runs[-1] = (runs[-1][0], end, cover)
        else:
            runs.append((start, end, cover))
    return [_piece(text[start:end], cover) for start, end, cover in runs]


def _piece(text: str, cover: tuple[Highlight, ...]) -> Piece:
    if not cover:
        return Piece(text)
    ordered = sorted(cover, key=lambda h: h.claim)
    return Piece(
        text=text,
        css=max((verdict_class(h.verdict) for h in cover), key=HIGHLIGHT_RANK.__getitem__),
        claims=tuple(sorted({h.claim for h in cover})),
        title="; ".join(_mark_title(h) for h in ordered) if not any(h.text for h in ordered)
        else "\n".join(_mark_title(h) for h in ordered),
    )


EVIDENCE_CHARS = 160
"""The most characters of evidence a mark's title quotes."""


def _mark_title(mark: Highlight) -> str:
    """What hovering a mark says of one claim: its number and label and, with the claim's text, the text, the
    probability of its label and the evidence (cut to ``EVIDENCE_CHARS``)."""
    said = f"claim {mark.claim}: {label_name(mark.verdict)}"
    if not mark.text:
        return said
    verdict = mark.verdict
    probability = verdict.prob(verdict.label) if verdict.label is not None else None
    said = f"claim {mark.claim}: {mark.text} \u2192 {label_name(verdict)}"
    said += f" (P={probability:.2f})" if probability is not None else ""
    evidence = verdict.evidence or ""
    if evidence:
        cut = evidence if len(evidence) <= EVIDENCE_CHARS else evidence[: EVIDENCE_CHARS - 1] + "\u2026"
        said += f"; evidence: {cut}"
    return said


def label_name(verdict: Verdict) -> str:
    """The label a verdict shows: its label's name, or 'failed'."""
    if verdict.failed or verdict.label is None:
        return "failed"
    return verdict.label.value


def render_record(result: CheckResult, anchor: str = "r1") -> Markup:
    """One record as the page shows it (question, highlighted response, claim table, references), also for pages
    that embed single results; ``anchor`` prefixes its element ids. Style it with ``stylesheet()``."""
    return Markup(_environment().get_template("record.html.j2").render(record=_record(result, anchor)))


def stylesheet() -> str:
    """The CSS ``overview_html`` and ``render_record``'s fragments are styled with."""
    loader = _environment().loader
    assert loader is not None
    return loader.get_source(_environment(), "report.css")[0]


def model_of(result: CheckResult) -> str | None:
    """The model that wrote the response, from the record's ``model`` field, or None."""
    value = result.metadata.get(MODEL_FIELD)
    return None if value is None else str(value)


def overview_html(results: Sequence[CheckResult]) -> Markup:
    """The figures of every record: counts, the rates per setting (RefChecker eq. 1), claims by label with their
    copy rates, and the charts."""
    totals = CheckTotals()
    for result in results:
        totals.add(result)
    return Markup(
        _environment()
        .get_template("overview.html.j2")
        .render(
            records=len(results),
            totals=totals,
            rates=_rates_rows(totals),
            label_rows=_label_rows(results),
            charts=[Markup(chart) for chart in charts(results, totals)],
        )
    )


def record_caption(result: CheckResult) -> str:
    """The record's line in the page's contents: its setting, claims, strict label and hallucination rate."""
    rate = result.summary.hallucination_rate if result.summary is not None else None
    return "; ".join([
        *([result.setting] if result.setting else []),
        f"{len(result.claims)} claim{'' if len(result.claims) == 1 else 's'}",
        _strict_badge(result).text,
        *([f"hallucination rate {rate:.2f}"] if rate is not None else []),
    ])


def charts(results: Sequence[CheckResult], totals: CheckTotals) -> list[str]:
    """The overview's charts as inline SVG: claims by label per setting, the hallucination rate per setting, and
    the hallucination rate and label shares per model when records name one (the ``model`` field)."""
    groups = [("all", list(results))]
    for setting in sorted(totals.by_setting):
        groups.append((setting, [r for r in results if r.setting == setting]))
    classes = [*(LABEL_CLASS[label] for label in LABELS), FAILED_CLASS]
    series = [Series(name, LABEL_STYLES[css]) for name, css in zip([*(label.value for label in LABELS), "failed"], classes)]
    drawn = [
        stacked_bars(
            [name for name, _ in groups],
            series,
            [[float(row.claims) for row in _label_rows(results)] for _, results in groups],
            title="claims by label per setting",
            chart="check-labels",
        ),
        bar_list(
            [(row.name, row.figures[len(LABELS)]) for row in _rates_rows(totals)],
            title="hallucination rate per setting (RefChecker eq. 1)",
            name="hallucination rate",
            chart="check-rate-setting",
        ),
    ]
    models: dict[str, list[CheckResult]] = {}
    for result in results:
        model = model_of(result)
        if model is not None:
            models.setdefault(model, []).append(result)
    if models:
        rates = {name: dataset_rates([r.summary for r in rows if r.summary is not None]) for name, rows in models.items()}
        names = sorted(models)
        drawn.append(
            grouped_bars(
                names,
                [Series("hallucination rate"), Series("abstain rate")],
                [[rates[name].hallucination_rate, rates[name].abstain_rate] for name in names],
                title="hallucination and abstain rates per model (RefChecker eq. 1)",
                chart="check-rate-model",
            )
        )
        drawn.append(
            stacked_bars(
                names,
                series,
                [[float(row.claims) for row in _label_rows(models[name])] for name in names],
                title="claims by label per model",
                chart="check-labels-model",
            )
        )
    return drawn


@cache
def _environment() -> Environment:
    loaded = environment("factscope.refchecker")
    loaded.globals["labels"] = LABELS
    return loaded


def _rates_rows(totals: CheckTotals) -> list[RatesRow]:
    named = [("all", totals.overall), *sorted(totals.by_setting.items())]
    return [_rates_row(name, rates.rates()) for name, rates in named]


def _rates_row(name: str, rates: DatasetRates) -> RatesRow:
    per_label = [rates.rates[label] if rates.rates else None for label in LABELS]
    return RatesRow(
        name=name,
        responses=rates.responses,
        answered=rates.answered,
        figures=(*per_label, rates.hallucination_rate, rates.abstain_rate),
    )


def _label_rows(results: Iterable[CheckResult]) -> list[LabelRow]:
    """Claims per label with their mean copy rate (RefChecker's copy-rate analysis)."""
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
    return [
        LabelRow(
            badge=Badge(css, names[css]),
            claims=counts[css],
            copy_rate=sum(copies[css]) / len(copies[css]) if copies[css] else None,
        )
        for css in classes
    ]


def _strict_badge(result: CheckResult) -> Badge:
    summary = result.summary
    if result.extraction_failed:
        return Badge(FAILED_CLASS, "extraction failed")
    if summary is None or summary.abstain:
        return Badge("abstain", "no claims")
    if summary.strict is None:
        return Badge(FAILED_CLASS, "checks failed")
    return Badge(LABEL_CLASS[summary.strict], summary.strict.value)


def _record(result: CheckResult, anchor: str) -> RecordView:
    with_probs = any(item.verdict.probs is not None for item in result.claims)
    scored = any(item.verdict.score is not None for item in result.claims)
    columns = (*(("P(E)", "P(N)", "P(C)") if with_probs else ()), *(("score",) if scored else ()))
    claims = []
    for number, item in enumerate(result.claims, start=1):
        verdict = item.verdict
        figures = [verdict.prob(label) for label in LABELS] if with_probs else []
        figures += [verdict.score] if scored else []
        claims.append(
            ClaimRow(
                number=number,
                text=item.claim.text,
                triplet=item.claim.triplet,
                has_span=bool(item.claim.spans),
                badge=Badge(verdict_class(verdict), label_name(verdict)),
                figures=tuple(figures),
                copy_rate=item.copy_rate,
                verdict=verdict,
            )
        )
    response_marks = [
        Highlight(span, number, item.verdict, item.claim.text)
        for number, item in enumerate(result.claims, start=1)
        for span in item.claim.spans
    ]
    return RecordView(
        anchor=anchor,
        result=result,
        badge=_strict_badge(result),
        response=highlight_pieces(result.response, response_marks),
        columns=columns,
        claims=claims,
        references=[_reference(result, index) for index in range(len(result.references))],
    )


def _reference(result: CheckResult, index: int) -> ReferenceView:
    deciding = [
        (number, item.verdict)
        for number, item in enumerate(result.claims, start=1)
        if item.verdict.evidence_reference == index
    ]
    marks = [Highlight(v.evidence_span, n, v) for n, v in deciding if v.evidence_span is not None]
    source = result.source_of(index)
    return ReferenceView(
        number=index + 1,
        pieces=highlight_pieces(result.references[index], marks),
        deciding=[(n, label_name(v)) for n, v in deciding],
        retrieved=source is not None if result.sources else result.retrieved,
        link=web_link(source.url) if source is not None else None,
        title=source.title if source is not None else "",
        search_title=source.search_title if source is not None and source.search_title != source.title else "",
        fetched_at=source.fetched_at if source is not None else None,
    )


def web_link(url: str) -> str | None:
    """``url`` when it is an http(s) address a page may link to, else None (a ``javascript:`` address from a
    search result must never become a link)."""
    return url if url.lower().startswith(("http://", "https://")) else None
