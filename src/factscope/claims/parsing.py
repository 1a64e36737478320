"""Parsing responses with spaCy: Markdown marks masked, hyphenated words merged, line breaks as sentence starts,
batched parsing, the sentences of a doc, which of them state something, and the frame the offline extractors share.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from factscope.claims.base import check_questions
from factscope.core.schema import Claim, Extraction, Span

SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
SPEAKER_PRONOUNS = frozenset({"i", "me", "you", "we"})
CONTENT_POS = frozenset({"NOUN", "PROPN", "NUM"})
QUOTES = "\"'\u2018\u2019\u201c\u201d`"
SOURCE_TEXT = "factscope_source_text"
"""Key of ``Doc.user_data`` holding the response as written, before :func:`mask_markup`."""

EMPHASIS = re.compile(r"\*{1,3}|`+|^[ \t]*#{1,6}(?=\s)", re.MULTILINE)
MARKUP = "*`#"
BULLET_STAR = re.compile(r"(^|\n)[ \t]*$")
LIST_MARKER = re.compile(r"([-*\u2022]|\d{1,3}[.)])(\s|$)")
"""A list item opening a line: a bullet or a number followed by "." or ")"."""

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
"""Sentence openings that decline to answer rather than state something (seed 004 A.4 abstention)."""


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
    """The non-blank sentences of a parsed doc, numbered from 0, spans trimmed of whitespace and list markers.

    The span covers the sentence as written, Markdown marks included; the text is the sentence without them
    (see :func:`mask_markup`) and with runs of whitespace, line breaks included, collapsed to one space.
    """
    masked = doc.text
    source = doc.user_data.get(SOURCE_TEXT, masked)
    found = []
    for sent in doc.sents:
        start, end = sent.start_char, sent.end_char
        while start < end and masked[start].isspace():
            start += 1
        while end > start and masked[end - 1].isspace():
            end -= 1
        marker = LIST_MARKER.match(masked, start, end)
        if marker:
            start = marker.end()
            while start < end and masked[start].isspace():
                start += 1
        probe = start
        while probe > 0 and masked[probe - 1] == " " and source[probe - 1] in MARKUP + " ":
            probe -= 1
            if source[probe] in MARKUP:
                start = probe
        while end < len(masked) and masked[end] == " " and source[end] in MARKUP:
            end += 1
        if start < end:
            written = "".join(c for c, m in zip(source[start:end], masked[start:end]) if c == m)
            text = re.sub(r"\s+", " ", written).strip()
            heading = source[start] == "#"
            found.append(Sentence(len(found), Span(start=start, end=end), text, sent, heading))
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


def parse_batch(nlp: Any, texts: Sequence[object], batch_size: int) -> list[Any]:
    """Parse a batch of texts, each pipeline component running batched over the whole batch.

    Hyphenated words are merged and line breaks marked (:func:`join_hyphenated`, :func:`mark_line_breaks`)
    before the components run. Non-string items and texts longer than the pipeline's ``max_length`` come back
    as failed Extractions; every other item as its spaCy Doc, in input order.
    """
    results: list[Any] = [None] * len(texts)
    valid: list[int] = []
    for position, text in enumerate(texts):
        if not isinstance(text, str):
            results[position] = Extraction(
                failed=True, raw=repr(text)[:200], error=f"expected a string, got {type(text).__name__}"
            )
        elif len(text) > nlp.max_length:
            results[position] = Extraction(
                failed=True,
                raw=text[:200],
                error=f"text has {len(text)} characters, over spaCy's max_length {nlp.max_length}; split it first",
            )
        else:
            valid.append(position)
    docs: Iterable[Any] = [prepared(nlp, texts[p]) for p in valid]
    for _, component in nlp.pipeline:
        docs = (
            component.pipe(docs, batch_size=batch_size)
            if hasattr(component, "pipe")
            else map(component, docs)
        )
    for position, doc in zip(valid, docs):
        results[position] = doc
    return results


def prepared(nlp: Any, text: str) -> Any:
    """A tokenized Doc of ``text`` ready for the pipeline: markup masked, hyphenated words merged, line breaks
    marked; the text as written is kept in ``doc.user_data``."""
    doc = nlp.make_doc(mask_markup(text))
    doc.user_data[SOURCE_TEXT] = text
    return mark_line_breaks(join_hyphenated(doc))


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
    spans = []
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


def mark_line_breaks(doc: Any) -> Any:
    """Start a sentence after a line break that ends a line of text, so the parser never joins list items.

    A line break is a sentence boundary after a blank line, after a line ending in . ! ? : or ;, after a
    Markdown heading ("## Summary"), and before a line starting with a list marker ("-", "*", "1.", "2)"); a
    hard-wrapped line inside a sentence is not.
    """
    text = doc.text
    source = doc.user_data.get(SOURCE_TEXT, text)
    for token in doc[:-1]:
        if not token.is_space or "\n" not in token.text:
            continue
        before = doc[token.i - 1] if token.i > 0 else None
        after = doc[token.i + 1]
        line = source[source.rfind("\n", 0, token.idx) + 1 : token.idx]
        heading = line.lstrip().startswith("#")
        ends_line = before is None or heading or before.text[-1:] in ".!?:;" or token.text.count("\n") > 1
        item = LIST_MARKER.match(text[after.idx : after.idx + 5])
        if ends_line or item:
            after.is_sent_start = True
        if item:
            marker_end = after.idx + len(item.group(1))
            following = next((t for t in doc[after.i + 1 :] if t.idx >= marker_end and not t.is_space), None)
            if following is not None:
                following.is_sent_start = False
    return doc


def sentence_claim(sentence: Sentence, kind: Literal["fact", "sentence"]) -> Claim:
    """A whole sentence as one claim, with its id and span."""
    return Claim(text=sentence.text, kind=kind, sentence_ids=[sentence.index], spans=[sentence.span])


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
        """One Extraction per text, in order; ``questions`` are accepted for the protocol and unused."""
        check_questions(texts, questions)
        return [
            item if isinstance(item, Extraction) else Extraction(claims=self.doc_claims(item))
            for item in parse_batch(self.nlp, texts, self.batch_size)
        ]

    @abstractmethod
    def doc_claims(self, doc: Any) -> list[Claim]:
        """The claims of one parsed text."""
