"""Parsing responses with spaCy: Markdown marks masked, hyphenated words merged, sentence boundaries set
from factscope's one splitter (:func:`factscope.core.text.sentence_spans`) before the parser runs, batched
parsing, the sentences of a doc, which of them state something, and the frame the offline extractors share.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

import numpy

from factscope.claims.base import check_questions
from factscope.core.schema import Claim, ClaimSpan, Extraction, Span, SpanCover
from factscope.core.text import piece_ranges, sentence_spans

SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
SPEAKER_PRONOUNS = frozenset({"i", "me", "you", "we"})
CONTENT_POS = frozenset({"NOUN", "PROPN", "NUM"})
QUOTES = "\"'\u2018\u2019\u201c\u201d`"
SOURCE_TEXT = "factscope_source_text"
"""Key of ``Doc.user_data`` holding the response as written, before :func:`mask_markup`."""
SENTENCE_SPANS = "factscope_sentence_spans"
"""Key of ``Doc.user_data`` holding the response's sentence spans, ``(start, end)`` pairs."""

EMPHASIS = re.compile(r"\*{1,3}|`+|^[ \t]*#{1,6}(?=\s)", re.MULTILINE)
MARKUP = "*`#"
BULLET_STAR = re.compile(r"(^|\n)[ \t]*$")

REFUSAL = re.compile(
    r"""^\W*((sorry|unfortunately)\W+(but\s+)?)?(
        as\s+an?\s+(ai|language\s+model|large\s+language\s+model)\b
      | i\s+(do\s+not|don't|cannot|can't|can\s+not|am\s+not|'m\s+not|have\s+no|am\s+unable|'m\s+unable
             |am\s+sorry|'m\s+sorry|apologi[sz]e|could\s+not|couldn't|did\s+not\s+find|didn't\s+find)\b
      | (there\s+is|there's)\s+no\s+(information|data|record|way\s+to\s+know)\b
      | no\s+(information|answer)\s+(is\s+)?(available|provided|found)\b
    )""",
    re.IGNORECASE | re.VERBOSE,
)
"""Sentence openings that decline to answer rather than state something (RefChecker A.4 abstention)."""


@dataclass(frozen=True)
class Sentence:
    """A sentence of a parsed text: its index, character span in the response, clean text, spaCy span, and
    whether it is a Markdown heading."""

    index: int
    span: Span
    text: str
    tokens: Any = field(repr=False)
    heading: bool = False


def sentences(doc: Any) -> list[Sentence]:
    """The sentences of a parsed doc, numbered from 0: those of :func:`factscope.core.text.sentence_spans` on
    the response as written, so every extractor, offline or LLM, numbers sentences alike.

    The span covers the sentence as written, Markdown marks included and list marker left out; the text is the
    sentence without the marks (see :func:`mask_markup`) and with runs of whitespace, line breaks included,
    collapsed to one space; the tokens are the doc's tokens that start inside the span.
    """
    masked = doc.text
    source = doc.user_data.get(SOURCE_TEXT, masked)
    pairs = doc.user_data.get(SENTENCE_SPANS)
    if pairs is None:
        pairs = [(span.start, span.end) for span in sentence_spans(source)]
    starts = [token.idx for token in doc]
    found = []
    for index, (start, end) in enumerate(pairs):
        first, last = bisect_left(starts, start), bisect_left(starts, end)
        if first == last and first > 0:
            first -= 1
        while first < last and doc[first].is_space:
            first += 1
        while last > first and doc[last - 1].is_space:
            last -= 1
        written = "".join(c for c, m in zip(source[start:end], masked[start:end]) if c == m)
        text = re.sub(r"\s+", " ", written).strip()
        found.append(Sentence(index, Span(start=start, end=end), text, doc[first:last], source[start] == "#"))
    return found


def is_question(sentence: Sentence) -> bool:
    """A sentence that asks rather than states (it ends with a question mark)."""
    return sentence.text.rstrip(QUOTES + ")] ").endswith("?")


def is_refusal(sentence: Sentence) -> bool:
    """A sentence that declines to answer ("I don't know", "I cannot answer that", "As an AI ...")."""
    return REFUSAL.match(sentence.text) is not None


def is_statement(sentence: Sentence) -> bool:
    """A sentence worth one sentence-level claim: not a question, a refusal, speaker talk or a bare fragment.

    Speaker talk is a sentence whose main subject is I, we or you ("I hope this helps.") or an imperative
    ("Let me know if you have questions."); a bare fragment has no noun, proper noun or number ("Sure!", a
    list marker "1."); a line ending in a colon or starting with "#" is a heading.
    """
    if is_question(sentence) or is_refusal(sentence) or sentence.text.endswith(":"):
        return False
    if sentence.heading:
        return False
    root = sentence.tokens.root
    if any(child.dep_ in SUBJECT_DEPS and child.lower_ in SPEAKER_PRONOUNS for child in root.children):
        return False
    if root.tag_ == "VB" and not any(child.dep_ in SUBJECT_DEPS | {"aux"} for child in root.children):
        return False
    return any(token.pos_ in CONTENT_POS and token.tag_ != "LS" for token in sentence.tokens)


PIECE_CHARS = 100_000
"""The most characters spaCy parses in one piece: a longer text is parsed in pieces cut at sentence starts (spaCy's
parser needs about 1 GB of memory per 100,000 characters, and refuses a text over its ``max_length``)."""


def parse_batch(nlp: Any, texts: Sequence[object], batch_size: int, piece_chars: int = PIECE_CHARS) -> list[Any]:
    """Parse a batch of texts, each pipeline component running batched over the whole batch.

    Hyphenated words are merged and sentence boundaries set (:func:`join_hyphenated`,
    :func:`mark_sentence_starts`) before the components run. A text of any length is parsed: one longer than
    ``piece_chars`` (or the pipeline's ``max_length``) is cut into pieces at sentence starts
    (:func:`factscope.core.text.piece_ranges`), the pieces parsed like texts, and joined back into one Doc whose
    character offsets are those of the text. Non-string items come back as failed Extractions; every other item as
    its spaCy Doc, in input order.
    """
    limit = max(1, min(piece_chars, nlp.max_length))
    results: list[Any] = [None] * len(texts)
    owners: list[int] = []
    pieces: list[Any] = []
    for position, text in enumerate(texts):
        if not isinstance(text, str):
            results[position] = Extraction(
                failed=True, raw=repr(text)[:200], error=f"expected a string, got {type(text).__name__}"
            )
            continue
        made = prepared_pieces(nlp, text, limit)
        owners.extend([position] * len(made))
        pieces.extend(made)
    docs: Iterable[Any] = pieces
    for _, component in nlp.pipeline:
        docs = (
            component.pipe(docs, batch_size=batch_size)
            if hasattr(component, "pipe")
            else map(component, docs)
        )
    parsed: dict[int, list[Any]] = {}
    for position, doc in zip(owners, docs):
        parsed.setdefault(position, []).append(doc)
    for position, found in parsed.items():
        results[position] = found[0] if len(found) == 1 else joined(found)
    return results


def prepared_pieces(nlp: Any, text: str, limit: int) -> list[Any]:
    """The Docs to parse for ``text``: one (:func:`prepared`) when it fits in ``limit`` characters, else one per
    piece of :func:`factscope.core.text.piece_ranges`, each with the sentence starts that fall in it."""
    if len(text) <= limit:
        return [prepared(nlp, text)]
    masked = mask_markup(text)
    spans = [(span.start, span.end) for span in sentence_spans(text)]
    made = []
    for begin, end in piece_ranges(text, spans, limit):
        inside = [
            (max(start, begin) - begin, min(stop, end) - begin) for start, stop in spans if start < end and stop > begin
        ]
        doc = nlp.make_doc(masked[begin:end])
        made.append(mark_sentence_starts(join_hyphenated(doc), inside))
    made[0].user_data[SOURCE_TEXT] = text
    made[0].user_data[SENTENCE_SPANS] = spans
    return made


def joined(docs: Sequence[Any]) -> Any:
    """One Doc of the parsed pieces of a text, in order, with the text as written and its sentence spans (kept by
    :func:`prepared_pieces` in the first piece)."""
    from spacy.tokens import Doc

    # spaCy's type stub lacks from_docs's ``exclude``; without it every piece's user data would be warned about
    doc = Doc.from_docs(list(docs), ensure_whitespace=False, exclude=["user_data"])  # type: ignore[call-arg]
    for key in (SOURCE_TEXT, SENTENCE_SPANS):
        doc.user_data[key] = docs[0].user_data[key]
    return doc


def prepared(nlp: Any, text: str) -> Any:
    """A tokenized Doc of ``text`` ready for the pipeline: markup masked, hyphenated words merged, sentence
    boundaries set; the text as written and its sentence spans are kept in ``doc.user_data``."""
    doc = nlp.make_doc(mask_markup(text))
    doc.user_data[SOURCE_TEXT] = text
    spans: list[tuple[int, int]] = [(span.start, span.end) for span in sentence_spans(text)]
    doc.user_data[SENTENCE_SPANS] = spans
    return mark_sentence_starts(join_hyphenated(doc), spans)


def mask_markup(text: str) -> str:
    """Blank out Markdown emphasis and heading marks (``**``, ``*``, backticks, leading ``#``) with spaces.

    The text keeps its length, so character offsets into it are offsets into the response. A ``*`` that
    opens a line and is followed by a space is a bullet and stays.
    """

    def blank(match: re.Match[str]) -> str:
        mark = match.group()
        line_start = BULLET_STAR.search(text, 0, match.start()) if mark == "*" else None
        bullet = line_start is not None and text[match.end() : match.end() + 1] in {" ", "\t"}
        return mark if bullet else " " * len(mark)

    return EMPHASIS.sub(blank, text)


def join_hyphenated(doc: Any) -> Any:
    """Merge words joined by a hyphen ("co-founded", "new-wave") into one token before tagging.

    The packaged small English model splits them and then mis-tags the pieces ("co" as the verb).
    """
    spans: list[tuple[int, int]] = []
    position = 1
    while position < len(doc) - 1:
        hyphen = doc[position]
        before, after = doc[position - 1], doc[position + 1]
        glued = not before.whitespace_ and not hyphen.whitespace_
        if hyphen.text == "-" and glued and before.is_alpha and after.is_alpha:
            start = spans.pop()[0] if spans and spans[-1][1] == position else position - 1
            spans.append((start, position + 2))
            position += 2
        else:
            position += 1
    with doc.retokenize() as retokenizer:
        for start, end in spans:
            retokenizer.merge(doc[start:end])
    return doc


def mark_sentence_starts(doc: Any, spans: Sequence[tuple[int, int]]) -> Any:
    """Fix the doc's sentence boundaries to the character ``spans`` before the parser runs (it keeps them).

    A sentence starts at the first token of each span; the tokens between two spans (a list marker such as
    "1.", a "---" rule) form a sentence of their own, so the parser never reads a marker into an item.
    Whitespace tokens never start a sentence. The starts are set in one array (setting them token by token costs
    time quadratic in the length of the doc).
    """
    from spacy.attrs import SENT_START

    positions = sorted({position for span in spans for position in span})
    next_position = 0
    pending = started = False
    starts = numpy.full((len(doc), 1), -1, dtype=numpy.int32)
    for token in doc:
        while next_position < len(positions) and positions[next_position] <= token.idx:
            next_position += 1
            pending = True
        if token.is_space:
            continue
        if pending and started:
            starts[token.i] = 1
        pending, started = False, True
    if len(doc):
        starts[0] = 1
    doc.from_array([SENT_START], starts.astype(numpy.uint64))
    return doc


def source_text(sentence: Sentence) -> str:
    """The response a parsed sentence belongs to, as written (Markdown marks included)."""
    doc = sentence.tokens.doc
    text: str | None = doc.user_data.get(SOURCE_TEXT)
    return doc.text if text is None else text


def sentence_claim(sentence: Sentence, kind: Literal["fact", "sentence"]) -> Claim:
    """A whole sentence as one claim, with its id and span."""
    span = ClaimSpan.covering(source_text(sentence), sentence.span.start, sentence.span.end)
    return Claim(text=sentence.text, kind=kind, sentence_ids=[sentence.index], spans=[span])


class Located(TypedDict):
    """The fields of a Claim that locate it in its response."""

    spans: list[ClaimSpan]
    spans_cover: SpanCover


def word_spans(sentence: Sentence, words: Sequence[int]) -> Located:
    """The spans of a claim written with the tokens numbered ``words`` in ``sentence``'s doc: each run of
    consecutive tokens is one span, from its first token's start to its last token's end. Without words, the
    sentence's span."""
    response = source_text(sentence)
    if not words:
        whole = ClaimSpan.covering(response, sentence.span.start, sentence.span.end)
        return {"spans": [whole], "spans_cover": "sentence"}
    doc = sentence.tokens.doc
    runs: list[list[int]] = []
    for index in sorted(set(words)):
        if runs and index == runs[-1][-1] + 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    spans = [
        ClaimSpan.covering(response, doc[run[0]].idx, doc[run[-1]].idx + len(doc[run[-1]].text)) for run in runs
    ]
    return {"spans": spans, "spans_cover": "words"}


class ParsedExtractor(ABC):
    """The frame the offline extractors share: a spaCy pipeline loaded on first use, each batch parsed once
    (:func:`parse_batch`), and one Extraction per text from the subclass's ``doc_claims``."""

    name = "parsed"
    unused_components: tuple[str, ...] = ("lemmatizer",)
    """Pipeline components left out when the shared model is loaded (none of the rules reads them)."""

    def __init__(self, nlp: Any = None, *, batch_size: int = 32) -> None:
        self._nlp = nlp
        self.batch_size = batch_size

    @property
    def nlp(self) -> Any:
        """The spaCy pipeline (the shared offline English model unless one was given)."""
        if self._nlp is None:
            from factscope.hf.embedded import load_spacy

            self._nlp = load_spacy(disable=self.unused_components)
        return self._nlp

    def extract(
        self, texts: Sequence[str], questions: Sequence[str | None] | None = None
    ) -> list[Extraction]:
        """One Extraction per text, in order; ``questions`` are accepted for the protocol and unused.

        The batch is parsed inside spaCy's memory zone, so the words it adds to the vocabulary are freed with
        its Docs and a long run's memory does not grow with every new name and number it reads."""
        check_questions(texts, questions)
        with self.nlp.memory_zone():
            return [
                item if isinstance(item, Extraction) else Extraction(claims=self.doc_claims(item))
                for item in parse_batch(self.nlp, texts, self.batch_size)
            ]

    @abstractmethod
    def doc_claims(self, doc: Any) -> list[Claim]:
        """The claims of one parsed text."""
