"""Claim-triplets (RefChecker, section 4.1) and atomic claims from an LLM, tagged with their source sentences.

Each response is split into sentences (``factscope.core.text.sentence_spans``) and shown to the LLM as a numbered
list; the prompt (``extract_triplets`` or ``extract_triplets_atomic``, two in-context examples each) asks for
JSON ``{"claims": [{"triplet": [s, p, o], "sentences": [1]}]}`` (or ``{"claim": "...", ...}``). Sentence numbers
are mapped back to 0-based ``Claim.sentence_ids``, and each claim is aligned to its words in those sentences
(``factscope.claims.span_alignment``) for its character ``spans`` in the response. A response longer
than ``piece_chars`` characters is sent in pieces cut at sentence starts (``factscope.claims.prompt_pieces``), one
prompt each, and the claims of the pieces are joined in order.

Replies are parsed strictly. Safe repairs only: a surrounding code fence is removed, prose around one JSON
value is dropped, and trailing commas before ``]`` or ``}`` are removed. Anything else (a wrong shape, a triplet
without three non-empty parts, a sentence number outside the list) makes the text's Extraction failed with the
raw reply and the reason; in a response sent in pieces, a failed piece makes the Extraction failed with that
piece's raw reply, and the other pieces' claims are kept. ``{"claims": []}`` is an abstention: no claims and
``failed=False``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from string import Template
from typing import Any, Literal

from factscope.claims.base import check_questions
from factscope.claims.prompt_pieces import (
    PROMPT_PIECE_CHARS,
    REPLY_SEPARATOR,
    PromptPiece,
    checked_piece_chars,
    prompt_pieces,
)
from factscope.claims.span_alignment import aligned_spans
from factscope.core.prompts import load_prompt
from factscope.core.runs.loop import ProgressCallback, stage
from factscope.core.schema import Claim, Extraction, Span
from factscope.core.text import sentence_spans
from factscope.llm.client import ChatReply, LLMClient
from factscope.llm.reply_format import ReplyFormat

ClaimFormat = Literal["triplet", "atomic"]

PROMPTS: dict[str, str] = {"triplet": "extract_triplets", "atomic": "extract_triplets_atomic"}

_TEXT = {"type": "string", "minLength": 1}
_SENTENCES = {"type": "array", "items": {"type": "integer", "minimum": 1}}
_ITEMS: dict[str, dict[str, Any]] = {
    "triplet": {"triplet": {"type": "array", "items": _TEXT, "minItems": 3, "maxItems": 3}, "sentences": _SENTENCES},
    "atomic": {"claim": _TEXT, "sentences": _SENTENCES},
}
REPLY_FORMATS: dict[str, ReplyFormat] = {
    name: ReplyFormat.json_schema({
        "type": "object",
        "properties": {"claims": {"type": "array", "items": {
            "type": "object", "properties": item, "required": list(item), "additionalProperties": False,
        }}},
        "required": ["claims"],
        "additionalProperties": False,
    })
    for name, item in _ITEMS.items()
}
"""The reply each claim format's prompt asks for: {"claims": [...]} with one object per claim."""


REPLY_TOKENS_BASE = 48
"""Reply tokens an extraction may take beyond one per character it is shown (the JSON around the claims)."""


def reply_tokens(piece_chars: int) -> int:
    """The reply tokens an extraction of ``piece_chars`` characters may take: one per character (about four per
    token of the response, room for claims that repeat their subject) and ``REPLY_TOKENS_BASE``."""
    return REPLY_TOKENS_BASE + piece_chars


class ReplyFormatError(ValueError):
    """An extraction reply that does not follow the format the prompt asked for."""


_FENCE = re.compile(r"^\s*```[\w-]*\s*\n(?P<body>.*?)\n\s*```\s*$", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[\]}])")


def load_json_reply(reply: str) -> Any:
    """The JSON value of an LLM reply, after the safe repairs; raises ReplyFormatError when there is none."""
    text = reply.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group("body").strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        first_error = error
    starts = [index for index in (text.find("{"), text.find("[")) if index >= 0]
    if not starts:
        raise ReplyFormatError(f"reply is not JSON: {first_error}")
    start = min(starts)
    end = text.rfind("}" if text[start] == "{" else "]")
    candidate = _TRAILING_COMMA.sub(r"\1", text[start : end + 1])
    try:
        return json.loads(candidate)
    except json.JSONDecodeError as error:
        raise ReplyFormatError(f"reply is not JSON: {error}") from error


def _sentence_numbers(item: dict[str, Any], sentence_count: int, where: str) -> list[int]:
    """The 0-based sentence ids of one claim item from its 1-based "sentences" field."""
    value = item.get("sentences", [])
    values = value if isinstance(value, list) else [value]
    ids: list[int] = []
    for number in values:
        if isinstance(number, str) and number.strip().isdigit():
            number = int(number)
        if isinstance(number, bool) or not isinstance(number, int):
            raise ReplyFormatError(f"{where}: sentence number {number!r} is not an integer")
        if not 1 <= number <= sentence_count:
            raise ReplyFormatError(f"{where}: sentence number {number} is not in 1..{sentence_count}")
        if number - 1 not in ids:
            ids.append(number - 1)
    return sorted(ids)


def _claim_from_item(item: Any, claim_format: ClaimFormat, sentence_count: int, where: str) -> Claim:
    if claim_format == "triplet":
        parts = item.get("triplet") if isinstance(item, dict) else item
        if not (isinstance(parts, list) and len(parts) == 3 and all(isinstance(part, str) for part in parts)):
            raise ReplyFormatError(f"{where}: a triplet must be a list of three strings, got {parts!r}")
        triplet = tuple(part.strip() for part in parts)
        if not all(triplet):
            raise ReplyFormatError(f"{where}: the triplet {parts!r} has an empty part")
        ids = _sentence_numbers(item, sentence_count, where) if isinstance(item, dict) else []
        claim = Claim(text="", kind="triplet", triplet=triplet, sentence_ids=ids)
        return claim.model_copy(update={"text": claim.render()})
    text = item.get("claim") if isinstance(item, dict) else item
    if not isinstance(text, str) or not text.strip():
        raise ReplyFormatError(f"{where}: a claim must be a non-empty string, got {text!r}")
    ids = _sentence_numbers(item, sentence_count, where) if isinstance(item, dict) else []
    return Claim(text=text.strip(), kind="fact", sentence_ids=ids)


def parse_claims(reply: str, sentence_count: int, claim_format: ClaimFormat = "triplet") -> list[Claim]:
    """The claims of one extraction reply (without spans); raises ReplyFormatError saying what is wrong.

    Exact duplicate claims are merged, keeping the union of their sentence ids.
    """
    value = load_json_reply(reply)
    items = value.get("claims") if isinstance(value, dict) else value
    if not isinstance(items, list):
        raise ReplyFormatError('reply must be {"claims": [...]} or a JSON list of claims')
    return merged_duplicates(
        [
            _claim_from_item(item, claim_format, sentence_count, f"claim {number}")
            for number, item in enumerate(items, start=1)
        ]
    )


def merged_duplicates(claims: Sequence[Claim]) -> list[Claim]:
    """``claims`` with exact duplicates (same triplet, or same text) merged into the first, which gets the union of
    their sentence ids."""
    merged: dict[tuple[str, ...], Claim] = {}
    for claim in claims:
        key = claim.triplet if claim.triplet is not None else (claim.text,)
        if key in merged:
            ids = sorted(set(merged[key].sentence_ids) | set(claim.sentence_ids))
            merged[key] = merged[key].model_copy(update={"sentence_ids": ids})
        else:
            merged[key] = claim
    return list(merged.values())


def numbered_sentences(text: str, spans: Sequence[Span]) -> str:
    """The sentences of ``text`` as the prompt shows them: "[1] ...", one per line."""
    return "\n".join(
        f"[{number}] {' '.join(text[span.start : span.end].split())}" for number, span in enumerate(spans, 1)
    )


class TripletExtractor:
    """Extracts claim-triplets (or atomic claims, ``claim_format="atomic"``) from responses with an LLM.

    ``client`` is an LLMClient; ``prompt`` overrides the prompt name (a file in factscope/prompts with
    ``$question`` and ``$sentences`` placeholders); ``max_tokens`` bounds each reply (None: ``reply_tokens`` of the
    characters the prompt shows); ``piece_chars`` (at least
    ``MIN_PIECE_CHARS``) is the most characters of a response one prompt shows: a longer response is sent in
    pieces cut at sentence starts, one prompt each (see ``factscope.claims.prompt_pieces``).
    """

    def __init__(
        self,
        client: LLMClient,
        *,
        claim_format: ClaimFormat = "triplet",
        prompt: str | None = None,
        max_tokens: int | None = None,
        piece_chars: int = PROMPT_PIECE_CHARS,
    ) -> None:
        if claim_format not in PROMPTS:
            raise ValueError(f"claim_format must be one of {sorted(PROMPTS)}, got {claim_format!r}")
        self.client = client
        self.claim_format: ClaimFormat = claim_format
        self.template = Template(load_prompt(prompt or PROMPTS[claim_format]))
        self.max_tokens = max_tokens
        self.piece_chars = checked_piece_chars(piece_chars)
        self.name = f"llm-{claim_format}:{client.config.model}"
        self.progress: ProgressCallback | None = None
        """Receives the progress of the LLM calls when set (the CLI sets it to draw a bar)."""

    def prompt_for(self, text: str, piece: PromptPiece, question: str | None) -> str:
        """The filled prompt for one piece of a response: its parts numbered from 1, and the question."""
        return self.template.safe_substitute(
            question=" ".join(question.split()) if question else "(not given)",
            sentences=numbered_sentences(text, piece.parts),
        )

    def reply_limit(self, piece: PromptPiece) -> int:
        """The most tokens the reply about ``piece`` may take: ``max_tokens``, else ``reply_tokens`` of its
        characters."""
        return self.max_tokens or reply_tokens(sum(part.end - part.start for part in piece.parts))

    def extract(
        self, texts: Sequence[str], questions: Sequence[str | None] | None = None
    ) -> list[Extraction]:
        """One Extraction per text, in order; texts with no sentences are abstentions with no LLM call.

        A text longer than ``piece_chars`` costs one call per piece; its claims come in the order of the pieces.
        """
        aligned = check_questions(texts, questions)
        sentences_of = [sentence_spans(text) for text in texts]
        asked: list[tuple[int, PromptPiece]] = []
        conversations = []
        for index, (text, question) in enumerate(zip(texts, aligned, strict=True)):
            for piece in prompt_pieces(text, sentences_of[index], self.piece_chars):
                asked.append((index, piece))
                conversations.append([{"role": "user", "content": self.prompt_for(text, piece, question)}])
        limits = [self.reply_limit(piece) for _, piece in asked]
        with stage(self.progress, f"extracting {self.claim_format} claims", len(conversations)) as bar:
            replies = (
                self.client.chat_many(
                    conversations, on_done=bar.advance, reply_format=REPLY_FORMATS[self.claim_format],
                    max_tokens=limits,
                )
                if conversations else []
            )
        answered: list[list[tuple[PromptPiece, ChatReply]]] = [[] for _ in texts]
        for (index, piece), reply in zip(asked, replies, strict=True):
            answered[index].append((piece, reply))
        return [
            self._extraction(text, pieces, sentences)
            for text, pieces, sentences in zip(texts, answered, sentences_of, strict=True)
        ]

    def _extraction(
        self, text: str, answered: list[tuple[PromptPiece, ChatReply]], sentences: list[Span]
    ) -> Extraction:
        """The claims of one text from the replies to its pieces, each aligned to its words in its sentences.

        ``raw`` holds the reply (the pieces' replies, joined by :data:`REPLY_SEPARATOR`); when a piece failed, the
        Extraction is failed, its ``raw`` holds the failed pieces' raw replies and its ``error`` their reasons, each
        named by its piece when there are several, and the other pieces' claims are kept."""
        claims: list[Claim] = []
        replies: list[str | None] = []
        failed_replies: list[str | None] = []
        errors: list[str] = []
        for number, (piece, reply) in enumerate(answered, start=1):
            try:
                claims.extend(self._piece_claims(reply, piece))
                replies.append(reply.text)
            except _PieceFailure as failure:
                where = (
                    f"piece {number} of {len(answered)} ({piece.describe()}): " if len(answered) > 1 else ""
                )
                errors.append(f"{where}{failure}")
                failed_replies.append(failure.raw)
        located = [
            claim.model_copy(update=dict(aligned_spans(text, claim, sentences)))
            for claim in merged_duplicates(claims)
        ]
        if errors:
            return Extraction(
                claims=located, failed=True, raw=_joined(failed_replies), error="; ".join(errors)
            )
        return Extraction(claims=located, raw=_joined(replies))

    def _piece_claims(self, reply: ChatReply, piece: PromptPiece) -> list[Claim]:
        """The claims of one piece's reply, with the response's sentence ids; raises _PieceFailure."""
        if reply.failed:
            raise _PieceFailure(f"LLM call failed: {reply.error}", reply.raw)
        try:
            claims = parse_claims(reply.text or "", len(piece.parts), self.claim_format)
        except ValueError as error:
            cut = (
                f" (the reply was cut off at max_tokens={self.reply_limit(piece)}; raise max_tokens)"
                if reply.truncated else ""
            )
            raise _PieceFailure(f"{error}{cut}", reply.text) from error
        return [
            claim.model_copy(
                update={"sentence_ids": sorted({piece.sentence_ids[i] for i in claim.sentence_ids})}
            )
            for claim in claims
        ]


def _joined(raws: list[str | None]) -> str | None:
    """One raw reply as it is; several joined by :data:`REPLY_SEPARATOR`; none as None."""
    if len(raws) <= 1:
        return raws[0] if raws else None
    return REPLY_SEPARATOR.join(raw or "" for raw in raws)


class _PieceFailure(Exception):
    """A piece whose call failed or whose reply could not be read, with the raw reply."""

    def __init__(self, reason: str, raw: str | None) -> None:
        super().__init__(reason)
        self.raw = raw


class AtomicClaimExtractor(TripletExtractor):
    """The sub-sentence format: atomic claims (Claim kind "fact") instead of triplets."""

    def __init__(self, client: LLMClient, **options: Any) -> None:
        super().__init__(client, claim_format="atomic", **options)
