"""Atomic facts from an LLM (Truly Ground A.3, after Min et al.): each sentence is decomposed on its own.

Each sentence of a text (``factscope.core.text.sentence_spans``) is sent with the in-context examples of the prompt
``facts_decompose``; identical sentences are sent once (and cached by the LLM client). A sentence longer than
``piece_chars`` characters is sent in windows cut after a space (``factscope.claims.prompt_pieces``), one prompt
each, and its facts are those of its windows, in order. Replies are parsed strictly: every non-empty line must be a
fact line ("Fact 1: ...", "- ...", "* ...", "1. ..."), or the whole reply must be "None" (no facts). A reply that
breaks this is kept raw and the text's Extraction is marked failed; the facts of its other sentences are kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from factscope.claims.base import check_questions
from factscope.claims.prompt_pieces import (
    PROMPT_PIECE_CHARS,
    REPLY_SEPARATOR,
    checked_piece_chars,
    sentence_windows,
)
from factscope.claims.span_alignment import aligned_spans
from factscope.core.prompts import load_prompt
from factscope.core.runs.loop import ProgressCallback, stage
from factscope.core.schema import Claim, Extraction, Span
from factscope.core.text import sentence_spans
from factscope.llm.reply_format import ReplyFormat

if TYPE_CHECKING:
    from factscope.llm.client import ChatReply, LLMClient

_FACT_LINE = re.compile(r"^(?:fact\s*\d+\s*[:.)]|[-*\u2022]|\d+\s*[.)])\s*(?P<fact>\S.*)$", re.IGNORECASE)
_NONE = re.compile(r"^\W*(none|no facts?)\W*$", re.IGNORECASE)
_FENCE = re.compile(r"^```[\w-]*\s*$")


FACTS_FORMAT = ReplyFormat.matching(r"None|Fact 1: [^\n]+(\nFact [0-9]+: [^\n]+)*")
"""A decomposition reply: "Fact N: ..." lines, or None."""


def parse_facts(reply: str) -> list[str]:
    """The facts of one reply; raises ValueError naming the first line that is not a fact line.

    Safe repairs only: code-fence lines are dropped and whitespace is trimmed.
    """
    lines = [line.strip() for line in reply.splitlines()]
    lines = [line for line in lines if line and not _FENCE.match(line)]
    if not lines:
        raise ValueError("empty reply")
    if len(lines) == 1 and _NONE.match(lines[0]):
        return []
    facts = []
    for number, line in enumerate(lines, start=1):
        match = _FACT_LINE.match(line)
        if match is None:
            raise ValueError(f"line {number} is not a fact line: {line[:80]!r}")
        facts.append(match.group("fact").strip())
    return facts


FACT_TOKENS_BASE = 24
"""Reply tokens a decomposition may take beyond one per two characters of its sentence ("Fact N: " lines)."""


def fact_reply_tokens(sentence_chars: int) -> int:
    """The reply tokens the decomposition of a sentence of ``sentence_chars`` characters may take: one per two
    characters (about two per token of the sentence) and ``FACT_TOKENS_BASE``."""
    return FACT_TOKENS_BASE + sentence_chars // 2


class LLMFactExtractor:
    """Decomposes texts into atomic facts (Claim kind "fact") with an OpenAI-compatible LLM.

    ``max_tokens`` bounds each reply (None: ``fact_reply_tokens`` of the sentence or window shown); ``piece_chars`` (at least ``MIN_PIECE_CHARS``) is the most characters of a sentence one prompt shows: a
    longer sentence is sent in windows, one prompt each.
    """

    def __init__(
        self,
        client: LLMClient,
        *,
        prompt: str = "facts_decompose",
        max_tokens: int | None = None,
        piece_chars: int = PROMPT_PIECE_CHARS,
    ) -> None:
        self.client = client
        self.template = load_prompt(prompt)
        self.max_tokens = max_tokens
        self.piece_chars = checked_piece_chars(piece_chars)
        self.name = f"llm-facts:{client.config.model}"
        self.progress: ProgressCallback | None = None
        """Receives the progress of the LLM calls when set (the CLI sets it to draw a bar)."""

    def _messages(self, sentence: str) -> list[dict[str, str]]:
        return [{"role": "user", "content": self.template.replace("{sentence}", sentence)}]

    def extract(
        self, texts: Sequence[str], questions: Sequence[str | None] | None = None
    ) -> list[Extraction]:
        """One Extraction per text: its atomic facts with the sentence id and span each came from."""
        check_questions(texts, questions)
        windows_of = [
            [(span, sentence_windows(text, span, self.piece_chars)) for span in sentence_spans(text)]
            for text in texts
        ]
        shown = [
            text[window.start : window.end]
            for text, sentences in zip(texts, windows_of)
            for _, windows in sentences
            for window in windows
        ]
        with stage(self.progress, "extracting atomic facts", len(shown)) as bar:
            replies = iter(
                self.client.chat_many(
                    [self._messages(sentence) for sentence in shown], on_done=bar.advance, reply_format=FACTS_FORMAT,
                    max_tokens=[self.max_tokens or fact_reply_tokens(len(sentence)) for sentence in shown],
                )
                if shown else []
            )
        return [
            self._extraction(text, [(span, [next(replies) for _ in windows]) for span, windows in sentences])
            for text, sentences in zip(texts, windows_of, strict=True)
        ]

    @staticmethod
    def _extraction(text: str, answered: list[tuple[Span, list[ChatReply]]]) -> Extraction:
        """The facts of one text from the replies to its sentences (one per window of a long sentence), each
        aligned to its words in its sentence (``factscope.claims.span_alignment``)."""
        claims: list[Claim] = []
        errors: list[str] = []
        raws: list[str] = []
        for index, (span, replies) in enumerate(answered):
            for number, reply in enumerate(replies, start=1):
                where = f"sentence {index}" + (
                    f", window {number} of {len(replies)}" if len(replies) > 1 else ""
                )
                if reply.failed:
                    errors.append(f"{where}: LLM call failed: {reply.error}")
                    raws.append(reply.raw or "")
                    continue
                try:
                    facts = parse_facts(reply.text or "")
                except ValueError as error:
                    errors.append(f"{where}: {error}")
                    raws.append(reply.text or "")
                    continue
                claims.extend(
                    Claim(text=fact, kind="fact", sentence_ids=[index], **aligned_spans(text, Claim(text=fact), [span]))
                    for fact in facts
                )
        if errors:
            return Extraction(
                claims=claims, failed=True, raw=REPLY_SEPARATOR.join(raws), error="; ".join(errors)
            )
        return Extraction(claims=claims)
