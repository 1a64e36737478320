"""Parse knowledge-graph citations out of an attributed answer (KaLMA Tables 2 and 10).

``[Q212657, place of birth: Rome, occupation: painter]`` is one qid followed by ``relation: value``
pairs, each pair one citation; ``[qid: Q212657, ...]`` is read the same way; ``[NA]`` (also ``[N/A]``)
marks a claim the graph does not support. Every bracket is mapped to the sentence it ends, i.e. the
sentence it sits in, or the one before when it follows the sentence's final punctuation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from factscope.core.text import sentence_spans as split_spans
from factscope.kg.graph import Triple, normalize_qid

_BRACKET = re.compile(r"\[([^\[\]]*)\]")
_NA = re.compile(r"^\s*[\"']?\s*n\s*/?\s*a\s*[\"']?\s*$", re.IGNORECASE)
_QID = re.compile(r"^\s*[\"']?\s*(?:qid\s*[:=]\s*)?[\"']?\s*(q\d+)\s*[\"']?\s*$", re.IGNORECASE)
_HAS_QID = re.compile(r"\bq\d+\b", re.IGNORECASE)
_SPACE = re.compile(r"\s+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+(?=[.,;:!?])")
_QUOTES = "\"'`\u2018\u2019\u201c\u201d"


@dataclass(frozen=True)
class Citation:
    """One cited (qid, relation, value); parts the answer left out are None (an incomplete citation)."""

    qid: str | None
    relation: str | None
    value: str | None
    sentence: int
    raw: str

    @property
    def complete(self) -> bool:
        """Whether all three parts are present (KaLMA 4.2: only complete citations can be correct)."""
        return bool(self.qid and self.relation and self.value)

    def triple(self) -> Triple | None:
        """The cited triple, or None when incomplete."""
        return Triple(self.qid, self.relation, self.value) if self.complete else None  # type: ignore[arg-type]

    def hypothesis(self) -> str:
        """``relation: value``, the NLI hypothesis of KaLMA A.3."""
        return f"{self.relation or ''}: {self.value or ''}".strip(": ")


@dataclass(frozen=True)
class CitationIssue:
    """A bracket, or part of one, that could not be read as a citation; kept with the reason."""

    raw: str
    sentence: int
    reason: str


@dataclass(frozen=True)
class Bracket:
    """The inside of one bracket of the answer, ``[`` and ``]`` left out, and the sentence it belongs to."""

    content: str
    sentence: int


@dataclass
class ParsedAnswer:
    """An answer split into sentences (citations removed) with its citations and [NA] marks, and every bracket as
    written (for readers that read citations by other rules)."""

    text: str
    sentences: list[str] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    na_sentences: list[int] = field(default_factory=list)
    issues: list[CitationIssue] = field(default_factory=list)
    brackets: list[Bracket] = field(default_factory=list)

    def sentence_citations(self, index: int) -> list[Citation]:
        """The citations mapped to sentence ``index``."""
        return [c for c in self.citations if c.sentence == index]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence spans [start, end) of citation-free text (factscope's rule-based splitter, which keeps
    abbreviations, initials and decimals inside their sentence)."""
    return [(span.start, span.end) for span in split_spans(text)]


def _tidy(sentence: str) -> str:
    """Collapse the spaces a removed bracket leaves (``Rome [Q1, ...].`` -> ``Rome.``)."""
    return _SPACE_BEFORE_PUNCT.sub("", _SPACE.sub(" ", sentence)).strip()


def _strip(text: str) -> str:
    return text.strip().strip(_QUOTES).strip()


def parse_bracket(content: str, sentence: int) -> tuple[list[Citation], list[CitationIssue]]:
    """Read the inside of one citation bracket: qids and ``relation: value`` pairs. A comma-separated
    piece with no colon continues the previous value (``place of birth: Washington, D.C.``)."""
    raw = f"[{content}]"
    citations: list[Citation] = []
    issues: list[CitationIssue] = []
    qid: str | None = None
    pairs: list[list[str]] = []
    qid_of_pair: list[str | None] = []
    cited_qid = False
    for piece in content.split(","):
        match = _QID.match(piece)
        if match:
            qid = normalize_qid(match.group(1))
            cited_qid = True
            continue
        if ":" in piece:
            relation, value = piece.split(":", 1)
            pairs.append([_strip(relation), value])
            qid_of_pair.append(qid)
        elif pairs and piece.strip():
            pairs[-1][1] += "," + piece
        elif piece.strip():
            issues.append(CitationIssue(raw, sentence, f"cannot read {piece.strip()!r} as qid or relation: value"))
    for (relation, value), owner in zip(pairs, qid_of_pair):
        citations.append(Citation(owner, relation or None, _strip(value) or None, sentence, raw))
    if cited_qid and not pairs:
        citations.append(Citation(qid, None, None, sentence, raw))
        issues.append(CitationIssue(raw, sentence, "a qid with no relation: value pair"))
    if not cited_qid and pairs:
        issues.append(CitationIssue(raw, sentence, "no qid: the citation is incomplete"))
    return citations, issues


def parse_answer(text: str) -> ParsedAnswer:
    """Split an attributed answer into sentences and read its citations and [NA] marks.

    Brackets that mention neither a qid nor a ``relation: value`` pair (``[1]``, ``[sic]``) stay in the
    sentence text and are reported as issues; nothing is dropped silently."""
    clean_parts: list[str] = []
    marks: list[tuple[int, str]] = []
    cursor = 0
    length = 0
    for match in _BRACKET.finditer(text):
        before = text[cursor:match.start()]
        clean_parts.append(before)
        length += len(before)
        content = match.group(1)
        if _NA.match(content) or _HAS_QID.search(content) or ":" in content:
            marks.append((length, content))
        else:
            clean_parts.append(match.group(0))
            length += len(match.group(0))
            marks.append((length, content))
        cursor = match.end()
    clean_parts.append(text[cursor:])
    clean = "".join(clean_parts)
    spans = sentence_spans(clean)
    answer = ParsedAnswer(text=text, sentences=[_tidy(clean[s:e]) for s, e in spans])
    na: set[int] = set()
    for position, content in marks:
        sentence = _sentence_of(position, spans)
        answer.brackets.append(Bracket(content, sentence))
        if _NA.match(content):
            na.add(sentence)
        elif _HAS_QID.search(content) or ":" in content:
            citations, issues = parse_bracket(content, sentence)
            answer.citations.extend(citations)
            answer.issues.extend(issues)
        else:
            answer.issues.append(CitationIssue(f"[{content}]", sentence, "not a knowledge-graph citation"))
    answer.na_sentences = sorted(na)
    return answer


def _sentence_of(position: int, spans: list[tuple[int, int]]) -> int:
    """The sentence a bracket at ``position`` of the clean text ends: the one it sits in, or the one
    before when it sits between sentences or right at a sentence's start (``Rome. [Q1, ...] She ...``)."""
    for index, (start, end) in enumerate(spans):
        if start < position <= end:
            return index
        if position <= start:
            return max(index - 1, 0)
    return max(len(spans) - 1, 0)
