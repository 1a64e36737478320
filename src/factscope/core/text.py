"""Sentence splitting with character offsets, long texts cut into pieces of a character budget (for the parser and
for LLM prompts), and token-aware segmentation of long references."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence

from factscope.core.schema import Span

_TITLES = frozenset({
    "mr", "mrs", "ms", "messrs", "mme", "mlle", "dr", "prof", "rev", "hon", "st", "mt", "ft", "gen", "col",
    "lt", "maj", "capt", "cpt", "sgt", "adm", "gov", "sen", "rep", "pres", "bros", "dept", "univ", "assn",
    "vs", "cf", "al", "approx", "ca",
})
"""Abbreviations that never end a sentence: they come before a name or word ("Dr. Smith", "Bros. Records")."""
_BEFORE_NUMBERS = frozenset({
    "no", "nos", "fig", "figs", "vol", "vols", "pp", "ch", "sec", "art", "eq", "op", "est",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
})
"""Abbreviations that do not end a sentence when a number follows ("No. 5", "Fig. 3", "Jan. 2020")."""
_DOTTED = re.compile(r"[^\W\d_]{1,2}(?:\.[^\W\d_]{1,2})+")
"""Dotted abbreviations and initials, less their last full stop: "U.S", "H.J", "e.g", "i.e", "Ph.D", "p.m"."""
_OPENERS = "\"'\u201c\u2018([{*_`#\u00bf\u00a1"
"""Marks that may open a sentence before its first word: quotes, brackets, Markdown emphasis."""
_CLOSERS = "\"'\u201d\u2019)]}*_`\u00bb"
_STOP = re.compile(rf"(?P<stop>[.!?\u2026]+)[{re.escape(_CLOSERS)}]*(?=\s|$)")
"""Terminal punctuation before whitespace, with the closing quotes, brackets and Markdown marks after it."""
_GLUED = re.compile(r"(?<=[^\W\d_]{2})\.(?=[\"\u201c]?[A-Z](?:[^\W\d_]|['\u2019]))")
"""A stop with no space before the next sentence's capital ("longer.MSCI's index", "yet.\"The flow")."""
_GOING_ON = ",;:%)]}-\u2013\u2014"
"""Marks that, opening the next word after a stop, show the sentence going on ("Inc. - Moderna")."""
_LINE_END_STOP = re.compile(rf"[.!?\u2026][{re.escape(_CLOSERS)}]*$")
_BULLET = re.compile(
    r"^[ \t]*(?P<marker>[-*+\u2022\u2023\u25e6\u25aa\u25cf\u2013]|\d{1,3}[.)])[ \t]+", re.MULTILINE
)
"""A list marker opening a line ("- ", "* ", "+ ", "\u2022 ", "1. ", "2) "), with the blanks after it."""
_LINE_BREAK = re.compile(r"[ \t\r\f\v]*\n\s*")
_CONTINUED = re.compile(
    r"(?:[,(\[/&\u2013\u2014-]|\b(?:and|or|but|nor|the|a|an|of|in|on|at|to|for|with|by|from|as|than|that"
    r"|which|who|is|was|are|were))$",
    re.IGNORECASE,
)
"""Line endings after which a hard-wrapped sentence goes on (a comma, a conjunction, a preposition, ...)."""
_ALPHANUMERIC = re.compile(r"[^\W_]")


def _closes_abbreviation(text: str, stop: int, after: int) -> bool:
    """True when the full stop at ``stop`` closes an abbreviation or an initial rather than a sentence;
    ``after`` is the index of the next word (``len(text)`` when none follows)."""
    start = stop
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in ".'\u2019"):
        start -= 1
    word = text[start:stop].lower()
    if word in _TITLES or _DOTTED.fullmatch(word) or (len(word) == 1 and word.isalpha()):
        return True
    return word in _BEFORE_NUMBERS and after < len(text) and text[after].isdigit()


def _next_word(text: str, position: int) -> int:
    """The index of the first character from ``position`` on that is not whitespace nor an opening mark."""
    while position < len(text) and (text[position].isspace() or text[position] in _OPENERS):
        position += 1
    return position


def _stop_cuts(text: str, numbered: set[int]) -> list[int]:
    """Positions after terminal punctuation that ends a sentence, followed by whitespace or glued to the next
    sentence; ``numbered`` holds the positions of the full stops of numbered list markers ("1."), which end
    none."""
    cuts = []
    cased = not text.islower()
    for match in _STOP.finditer(text):
        end = match.end()
        after = _next_word(text, end)
        if after >= len(text) or match.start() in numbered:
            continue
        if match.group("stop") == "." and _closes_abbreviation(text, match.start(), after):
            continue
        going_on = (cased and text[after].islower()) or text[after] in _GOING_ON
        if going_on and "\n" not in text[end:after]:
            continue
        cuts.append(end)
    for match in _GLUED.finditer(text):
        if not _closes_abbreviation(text, match.start(), match.end()):
            cuts.append(match.end())
    return cuts


def _line_cuts(text: str, items: set[int]) -> list[int]:
    """Positions of line breaks that end a sentence: a blank line; a break before a list item (``items``
    holds where list markers start), around a table row, after a Markdown heading or after a line with no
    letter or digit ("---"); a break after a line without terminal punctuation, before a capital letter, unless the line ends as a
    wrapped sentence goes on (",", "and")."""
    cuts = []
    for match in _LINE_BREAK.finditer(text):
        following = match.end()
        if following >= len(text):
            continue
        line = text[text.rfind("\n", 0, match.start()) + 1 : match.start()].strip()
        first = _next_word(text, following)
        heading_like = (
            not _LINE_END_STOP.search(line)
            and first < len(text)
            and text[first].isupper()
            and not _CONTINUED.search(line)
        )
        blank_line = match.group().count("\n") > 1
        ruled = not _ALPHANUMERIC.search(line)
        table = line.endswith("|") or text[following] == "|"
        if blank_line or following in items or line.startswith("#") or ruled or table or heading_like:
            cuts.append(match.start())
    return cuts


def sentence_spans(text: str) -> list[Span]:
    """Character spans of the sentences of ``text``, trimmed of whitespace; the one splitter of factscope.

    Rules, in plain Python (no model):

    - A sentence ends at ".", "!", "?", "..." or "\u2026", with any closing quotes, brackets or Markdown marks
      after it, when whitespace follows: "He said \u201cGo.\u201d Then he left." is two sentences.
    - Not when the next word on the same line starts with a lowercase letter ("e.g. the cat",
      "Wait... what?"; a text written all in lowercase is the exception) or a dash, comma, colon or closing
      bracket, nor inside a number ("3.5%"; "$3.50. Then" does end after "3.50.").
    - A full stop with no space after it ends a sentence only between a word of two or more letters and a
      capitalised word ("longer.MSCI's index"), as in text scraped without spaces.
    - A full stop after an abbreviation or initial is no end: titles and name parts ("Dr.", "St.", "Bros."),
      dotted forms ("U.S.", "H.J.", "S.S.", "e.g.", "Ph.D."), single letters, and "No.", "Fig.", "Jan." ...
      before a number. So "U.S. forces left." is one sentence; the price is that "to the U.S. Then" is too.
    - A blank line ends a sentence; so does a single line break before a list item, around a Markdown table
      row ("| a | b |"), after a Markdown heading ("## Summary") or a rule ("---"), or after a line with no terminal punctuation when the next
      line starts with a capital letter (a heading-like line such as "Key facts"), unless the line ends with
      a comma, a conjunction or a preposition. Other line breaks are a wrapped sentence going on.
    - Each list item ("- ", "* ", "+ ", "\u2022 ", "1. ", "2) " opening a line) starts a sentence, and its
      marker is left out of the span: the span of "- Paris is old." is "Paris is old.".
    - Spans with no letter or digit ("---", "***") are no sentences.

    Spans are character offsets into ``text`` itself; an empty text gives none.
    """
    items: dict[int, int] = {}
    numbered: set[int] = set()
    for bullet in _BULLET.finditer(text):
        items[bullet.start("marker")] = bullet.end()
        if bullet.group("marker")[-1] in ".)":
            numbered.add(bullet.end("marker") - 1)
    cuts = sorted(set(_stop_cuts(text, numbered)) | set(_line_cuts(text, set(items))))
    spans: list[Span] = []
    start = 0
    for end in [*cuts, len(text)]:
        _append_trimmed(text, start, end, items, spans)
        start = end
    return spans


def _append_trimmed(text: str, start: int, end: int, items: dict[int, int], spans: list[Span]) -> None:
    """Append the span of ``text[start:end]`` without surrounding whitespace or a leading list marker,
    when it holds a letter or a digit."""
    while start < end and text[start].isspace():
        start += 1
    start = min(items.get(start, start), end)
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if _ALPHANUMERIC.search(text, start, end):
        spans.append(Span(start=start, end=end))


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` as strings (see :func:`sentence_spans`)."""
    return [text[span.start : span.end] for span in sentence_spans(text)]


def piece_ranges(text: str, spans: Sequence[tuple[int, int]], limit: int) -> list[tuple[int, int]]:
    """Character ranges that cover ``text`` in pieces of at most ``limit`` characters, each cut at the last
    sentence start that fits, else (a sentence longer than ``limit``) after the last whitespace that fits, else at
    ``limit``; ``spans`` are the sentences as ``(start, end)`` pairs, in order. The spaCy parse of a long text and
    the LLM extractors' prompts are cut so."""
    starts = [start for start, _ in spans]
    cuts = [0]
    while len(text) - cuts[-1] > limit:
        begin, end = cuts[-1], cuts[-1] + limit
        index = bisect_right(starts, end) - 1
        if index >= 0 and starts[index] > begin:
            cuts.append(starts[index])
            continue
        blank = next((i for i in range(end - 1, begin, -1) if text[i].isspace()), None)
        cuts.append(blank + 1 if blank is not None else end)
    return list(zip(cuts, [*cuts[1:], len(text)]))


def segment_spans(text: str, count_tokens: Callable[[str], int], max_tokens: int = 200) -> list[Span]:
    """Spans of ``text``, each a run of consecutive sentences of at most ``max_tokens`` tokens.

    A sentence longer than the budget is cut into word windows that fit. The whole (trimmed) text is one span
    when it already fits, so short references cost one tokenizer call. Spans index the original text, so a
    segment is ``text[span.start:span.end]`` with its own whitespace.
    """
    if max_tokens < 1:
        raise ValueError("max_tokens must be at least 1")
    if not text.strip():
        return []
    if count_tokens(text) <= max_tokens:
        start = len(text) - len(text.lstrip())
        return [Span(start=start, end=len(text.rstrip()))]
    segments: list[Span] = []
    current: list[Span] = []
    current_tokens = 0
    for sentence in sentence_spans(text):
        tokens = count_tokens(text[sentence.start : sentence.end])
        if current and (tokens > max_tokens or current_tokens + tokens > max_tokens):
            segments.append(Span(start=current[0].start, end=current[-1].end))
            current, current_tokens = [], 0
        if tokens > max_tokens:
            segments.extend(_word_windows(text, sentence, count_tokens, max_tokens))
            continue
        current.append(sentence)
        current_tokens += tokens
    if current:
        segments.append(Span(start=current[0].start, end=current[-1].end))
    return segments


def _word_windows(text: str, sentence: Span, count_tokens: Callable[[str], int], max_tokens: int) -> list[Span]:
    """Spans of word windows of one over-long sentence, each within the token budget."""
    words = [
        Span(start=sentence.start + m.start(), end=sentence.start + m.end())
        for m in re.finditer(r"\S+", text[sentence.start : sentence.end])
    ]
    tokens_per_word = max(1.0, count_tokens(text[sentence.start : sentence.end]) / max(1, len(words)))
    step = max(1, int(max_tokens / tokens_per_word))
    windows = []
    first = 0
    while first < len(words):
        width = step
        window = _window(words, first, width)
        while width > 1 and count_tokens(text[window.start : window.end]) > max_tokens:
            width = max(1, int(width * 0.8))
            window = _window(words, first, width)
        windows.append(window)
        first += width
    return windows


def _window(words: list[Span], first: int, width: int) -> Span:
    """The span from word ``first`` through the next ``width`` words (fewer at the end)."""
    return Span(start=words[first].start, end=words[min(first + width, len(words)) - 1].end)


def window_spans(
    text: str,
    sentences: int,
    count_tokens: Callable[[str], int],
    max_tokens: int = 200,
    min_sentences: int | None = None,
) -> list[Span]:
    """Spans of every run of ``sentences`` consecutive sentences of ``text`` (stride one sentence), and with
    ``min_sentences`` of every width from ``min_sentences`` to ``sentences``, narrowest first.

    Sentence windows are what SummaC-ZS and AlignScore score a claim against: a model that reads a short window
    finds the evidence that a 200-token segment buries. Mixed widths give a claim its evidence sentence alone
    (undiluted) and with a neighbour (where a pronoun's antecedent often is). A text of at most a width's
    sentences is one window of that width; a window over ``max_tokens`` tokens is cut as :func:`segment_spans`
    cuts a text; a span met twice is kept once.
    """
    smallest = sentences if min_sentences is None else min_sentences
    if smallest < 1 or smallest > sentences:
        raise ValueError("sentences must be at least 1, and min_sentences between 1 and sentences")
    spans = sentence_spans(text)
    windows: list[Span] = []
    for width in range(smallest, sentences + 1):
        if len(spans) <= width:
            windows += [Span(start=spans[0].start, end=spans[-1].end)] if spans else []
        else:
            windows += [
                Span(start=spans[i].start, end=spans[i + width - 1].end) for i in range(len(spans) - width + 1)
            ]
    fitted: dict[tuple[int, int], Span] = {}
    for window in windows:
        piece = text[window.start : window.end]
        parts = [Span(start=0, end=len(piece))] if count_tokens(piece) <= max_tokens else segment_spans(
            piece, count_tokens, max_tokens
        )
        for part in parts:
            cut = Span(start=window.start + part.start, end=window.start + part.end)
            fitted.setdefault((cut.start, cut.end), cut)
    return list(fitted.values())
