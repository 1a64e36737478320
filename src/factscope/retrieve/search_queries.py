"""Search queries for a response or for each of its claims. With an LLM, the query is written by it with
RefChecker's prompt (``prompts/web_query.txt``, from its ``google_retriever.py``); without one, the claim is
its own query, and a response is searched by its question, else by its first sentence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from factscope.core.prompts import load_prompt
from factscope.core.text import split_sentences

if TYPE_CHECKING:
    from factscope.llm.client import LLMClient

MAX_QUERY_CHARS = 300
"""A query longer than this is cut at a word boundary (search APIs refuse or truncate long queries)."""


@dataclass(frozen=True)
class QueryRequest:
    """What queries are written from: the text to search for (a response or a claim) and its question."""

    text: str
    question: str | None = None


@dataclass(frozen=True)
class WrittenQuery:
    """A search query, and why the LLM did not write it when it did not (``error``)."""

    query: str
    error: str | None = None


class QueryWriter:
    """Writes one search query per request: by ``llm`` with RefChecker's prompt when given, else from the text."""

    def __init__(self, llm: LLMClient | None = None, *, prompt: str = "web_query") -> None:
        self.llm = llm
        self.template = load_prompt(prompt).rstrip("\n")

    def result_settings(self) -> dict[str, str | None]:
        """What decides the queries: the LLM's model (None: the rule)."""
        return {"llm": self.llm.config.model if self.llm is not None else None}

    def write(self, requests: Sequence[QueryRequest], *, claims: bool) -> list[WrittenQuery]:
        """One query per request; ``claims`` says the texts are claims (searched as they are without an LLM).
        A failed or empty LLM reply gives the rule's query, with the reason in ``WrittenQuery.error``."""
        if self.llm is None:
            return [WrittenQuery(shorten(_rule_query(request, claims=claims))) for request in requests]
        conversations = [[{"role": "user", "content": self.template.replace("{text}", r.text)}] for r in requests]
        replies = self.llm.chat_many(conversations, max_tokens=64) if conversations else []
        queries = []
        for request, reply in zip(requests, replies):
            lines = (reply.text or "").strip().splitlines()
            written = lines[0].strip().strip('"') if lines else ""
            if written:
                queries.append(WrittenQuery(shorten(written)))
                continue
            error = reply.error if reply.failed else "the LLM wrote no query"
            queries.append(WrittenQuery(shorten(_rule_query(request, claims=claims)), error=error))
        return queries


def _rule_query(request: QueryRequest, *, claims: bool) -> str:
    if claims or not (request.question or "").strip():
        sentences = [request.text] if claims else split_sentences(request.text)
        return (sentences[0] if sentences else request.text).strip()
    return str(request.question).strip()


def shorten(query: str) -> str:
    """``query`` on one line, cut to at most MAX_QUERY_CHARS at a word boundary."""
    flat = " ".join(query.split())
    if len(flat) <= MAX_QUERY_CHARS:
        return flat
    return flat[:MAX_QUERY_CHARS].rsplit(" ", 1)[0]
