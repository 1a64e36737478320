"""G-Eval text quality of answers (KaLMA Tables 11-14): a judge scores each aspect from 1 to 5, and, with
log-probabilities, the probability-weighted score."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from factscope.core.prompts import load_prompt
from factscope.kalma.answers import AnswerRecord
from factscope.kg.citations import parse_answer
from factscope.llm.reply_format import ReplyFormat
from factscope.metrics.geval import ASPECTS, SCORES, parse_score, weighted_score

SCORE_FORMAT = ReplyFormat.one_of([str(score) for score in SCORES])
"""A G-Eval reply: one score from 1 to 5."""


def geval_prompt(aspect: str, record: AnswerRecord) -> str:
    """The G-Eval prompt of one aspect (KaLMA Tables 11-14) filled with the question and answer; the
    consistency prompt also gets the graph; citations are removed from the answer."""
    answer = " ".join(parse_answer(record.answer).sentences)
    return (load_prompt(f"geval_{aspect}").replace("{question}", record.question)
            .replace("{knowledge}", record.graph.flatten()).replace("{answer}", answer))


def continuation_logprob(prompt: str, reply: Any) -> float | None:
    """Log-probability of what follows ``prompt`` in an echoed completion (sum over its tokens)."""
    if reply.failed or not reply.tokens:
        return None
    offset = 0
    total = 0.0
    found = False
    for token, logprob in zip(reply.tokens, reply.token_logprobs):
        if offset >= len(prompt):
            if logprob is None:
                return None
            total += logprob
            found = True
        offset += len(token)
    return total if found else None


def judge_text_quality(records: Sequence[AnswerRecord], llm: Any, *, aspects: Sequence[str] = ASPECTS,
                       weighted: bool = False) -> list[dict[str, dict[str, Any]]]:
    """G-Eval scores per record and aspect: ``{"score", "raw", "failed", "error", "weighted"}`` (``raw``: the
    reply as it came, also when the call failed or the score could not be read; ``error``: why). With ``weighted``,
    also the probability-weighted score from the completions endpoint's log-probabilities of " 1" ... " 5"
    after the prompt (5 scoring calls per aspect; None where the endpoint gives no log-probabilities)."""
    prompts = [(r, a, geval_prompt(a, r)) for r in records for a in aspects]
    replies = llm.chat_many([[{"role": "user", "content": p}] for _, _, p in prompts], max_tokens=5,
                            reply_format=SCORE_FORMAT)
    out: list[dict[str, dict[str, Any]]] = [{} for _ in records]
    for index, ((_, aspect, prompt), reply) in enumerate(zip(prompts, replies)):
        score = None if reply.failed else parse_score(reply.text)
        raw = reply.text if not reply.failed else getattr(reply, "raw", None)
        error = reply.error if reply.failed else (None if score is not None else "no 1-5 score in the reply")
        cell: dict[str, Any] = {"score": score, "raw": raw, "failed": score is None, "error": error,
                                "weighted": None}
        out[index // len(aspects)][aspect] = cell
    if weighted:
        for (index, aspect), value in _weighted_scores(prompts, llm, aspects).items():
            out[index][aspect]["weighted"] = value
    return out


def _weighted_scores(prompts: Sequence[tuple[AnswerRecord, str, str]], llm: Any,
                     aspects: Sequence[str]) -> dict[tuple[int, str], float | None]:
    """Probability-weighted scores, the 5 scoring completions of every prompt run in parallel."""
    calls = [(position, s, f"{prompt} {s}") for position, (_, _, prompt) in enumerate(prompts) for s in SCORES]
    workers = max(1, getattr(getattr(llm, "config", None), "concurrency", 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        replies = list(pool.map(lambda call: llm.complete(call[2]), calls))
    logprobs: dict[int, dict[int, float | None]] = {}
    for (position, s, _), reply in zip(calls, replies):
        logprobs.setdefault(position, {})[s] = continuation_logprob(prompts[position][2], reply)
    return {(position // len(aspects), prompts[position][1]): weighted_score(values)
            for position, values in logprobs.items()}
