"""Claim-triplets (RefChecker, section 4.1) and atomic claims from an LLM, tagged with their source sentences.

Each response is split into sentences (``factscope.core.text.sentence_spans``) and shown to the LLM as a numbered
list; the prompt (``extract_triplets`` or ``extract_triplets_atomic``, two in-context examples each) asks for
JSON ``{"claims": [{"triplet": [s, p, o], "sentences": [1]}]}`` (or ``{"claim": "...", ...}``). Sentence numbers
are mapped back to 0-based ``Claim.sentence_ids`` and character ``spans`` in the response.

Replies are parsed strictly. Safe repairs only: a surrounding code fence is removed, prose around one JSON
value is dropped, and trailing commas before ``]`` or ``}`` are removed. Anything else (a wrong shape, a triplet
without three non-empty parts, a sentence number outside the list) makes the text's Extraction failed with the
raw reply and the reason. ``{"claims": []}`` is an abstention: no claims and ``failed=False``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from string import Template
from typing import Any, Literal

from factscope.claims.base import check_questions
from factscope.core.prompts import load_prompt
from factscope.core.run import ProgressCallback, stage
from factscope.core.schema import Claim, Extraction, Span
from factscope.core.text import sentence_spans
from factscope.llm.client import ChatReply, LLMClient

ClaimFormat = Literal["triplet", "atomic"]

PROMPTS: dict[str, str] = {"triplet": "extract_triplets", "atomic": "extract_triplets_atomic"}


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
    claims: dict[tuple[str, ...], Claim] = {}
    for number, item in enumerate(items, start=1):
        claim = _claim_from_item(item, claim_format, sentence_count, f"claim {number}")
        key = claim.triplet if claim.triplet is not None else (claim.text,)
        if key in claims:
            merged = sorted(set(claims[key].sentence_ids) | set(claim.sentence_ids))
            claims[key] = claims[key].model_copy(update={"sentence_ids": merged})
        else:
            claims[key] = claim
    return list(claims.values())


def numbered_sentences(text: str, spans: Sequence[Span]) -> str:
    """The sentences of ``text`` as the prompt shows them: "[1] ...", one per line."""
    return "\n".join(
        f"[{number}] {' '.join(text[span.start : span.end].split())}" for number, span in enumerate(spans, 1)
    )


class TripletExtractor:
    """Extracts claim-triplets (or atomic claims, ``claim_format="atomic"``) from responses with an LLM.

    ``client`` is an LLMClient; ``prompt`` overrides the prompt name (a file in factscope/prompts with
    ``$question`` and ``$sentences`` placeholders); ``max_tokens`` bounds each reply.
    """

    def __init__(
        self,
        client: LLMClient,
        *,
        claim_format: ClaimFormat = "triplet",
        prompt: str | None = None,
        max_tokens: int | None = 1024,
    ) -> None:
        if claim_format not in PROMPTS:
            raise ValueError(f"claim_format must be one of {sorted(PROMPTS)}, got {claim_format!r}")
        self.client = client
        self.claim_format: ClaimFormat = claim_format
        self.template = Template(load_prompt(prompt or PROMPTS[claim_format]))
        self.max_tokens = max_tokens
        self.name = f"llm-{claim_format}:{client.config.model}"
        self.progress: ProgressCallback | None = None
        """Receives the progress of the LLM calls when set (the CLI sets it to draw a bar)."""

    def prompt_for(self, text: str, question: str | None) -> tuple[str, list[Span]]:
        """The filled prompt for one response, and the sentence spans it numbers."""
        spans = sentence_spans(text)
        filled = self.template.safe_substitute(
            question=" ".join(question.split()) if question else "(not given)",
            sentences=numbered_sentences(text, spans),
        )
        return filled, spans

    def extract(
        self, texts: Sequence[str], questions: Sequence[str | None] | None = None
    ) -> list[Extraction]:
        """One Extraction per text, in order; texts with no sentences are abstentions with no LLM call."""
        aligned = check_questions(texts, questions)
        prompts = [self.prompt_for(text, question) for text, question in zip(texts, aligned, strict=True)]
        asked = [index for index, (_, spans) in enumerate(prompts) if spans]
        conversations = [[{"role": "user", "content": prompts[index][0]}] for index in asked]
        params = {"max_tokens": self.max_tokens} if self.max_tokens else {}
        with stage(self.progress, f"extracting {self.claim_format} claims", len(conversations)) as bar:
            replies = (
                self.client.chat_many(conversations, on_done=bar.advance, **params) if conversations else []
            )
        results = [Extraction() for _ in texts]
        for index, reply in zip(asked, replies, strict=True):
            results[index] = self._extraction(reply, prompts[index][1])
        return results

    def _extraction(self, reply: ChatReply, spans: list[Span]) -> Extraction:
        if reply.failed:
            return Extraction(failed=True, raw=reply.raw, error=f"LLM call failed: {reply.error}")
        try:
            claims = parse_claims(reply.text or "", len(spans), self.claim_format)
        except ValueError as error:
            cut = (
                f" (the reply was cut off at max_tokens={self.max_tokens}; raise max_tokens)"
                if reply.truncated
                else ""
            )
            return Extraction(failed=True, raw=reply.text, error=f"{error}{cut}")
        located = [
            claim.model_copy(update={"spans": [spans[i] for i in claim.sentence_ids]}) for claim in claims
        ]
        return Extraction(claims=located, raw=reply.text)


class AtomicClaimExtractor(TripletExtractor):
    """The sub-sentence format: atomic claims (Claim kind "fact") instead of triplets."""

    def __init__(self, client: LLMClient, **options: Any) -> None:
        super().__init__(client, claim_format="atomic", **options)
