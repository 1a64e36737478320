"""A fake LLM's replies to each of factscope's prompts, in the shape each prompt asks for, so that an example that
calls an LLM runs end to end against the fake server (tests/support/fake_llm.py)."""

from __future__ import annotations

import json
import re
from typing import Any

from fake_llm import Logprobs

TRIPLETS = json.dumps({"claims": [{"triplet": ["Paris", "capital of", "France"], "sentences": [1]}]})
CLAIMS = json.dumps({"claims": [{"claim": "Paris is the capital of France.", "sentences": [1]}]})

_REPLIES = [
    ("into knowledge triplets", TRIPLETS),
    ("into atomic claims", CLAIMS),
    ("Break the sentence into atomic facts", "Fact 1: Paris is the capital of France."),
    ("Answer with a single word, one of Entailment", "Entailment"),
    ("Is the fact supported by the text?", "True"),
    ("Score (1-5):", "4"),
    (
        "Generated Answer:",
        (
            "Generated Answer: Paris is the capital of France [NA].\n"
            "Generated Question: What is the capital of France?"
        ),
    ),
    ("Wikipedia:", "Paris is the capital and most populous city of France."),
    ("Output:", "What is the capital of France?"),
]


def reply(request: dict[str, Any]) -> str | Logprobs:
    """The reply to one request: a chat prompt's reply by the prompt it carries; a completions request's, its prompt
    echoed with log-probabilities."""
    body = request
    if "prompt" in body:
        words = body["prompt"].split(" ")
        return Logprobs([words[0], *(" " + word for word in words[1:])], [None] + [-0.5] * (len(words) - 1))
    prompt = "\n".join(str(message["content"]) for message in body["messages"])
    joint = re.search(r"Answer with exactly (\d+) lines", prompt)
    if joint:
        return "\n".join(f"{number}. Entailment" for number in range(1, int(joint.group(1)) + 1))
    return next(
        (text for marker, text in _REPLIES if marker in prompt), "Paris is the capital of France [NA]."
    )
