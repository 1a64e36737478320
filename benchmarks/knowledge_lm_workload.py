"""What the embedded-LM speed benchmarks (``in_process_llm``, ``local_lm_speed``) ask of the causal LM: four chat
prompts, and the (context, continuation) pairs CONNER scores for the six shipped knowledge records
(``examples/knowledge/records.jsonl``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

KNOWLEDGE_RECORDS = Path(__file__).resolve().parent.parent / "examples" / "knowledge" / "records.jsonl"
PROMPTS = [
    "Who wrote the song The Glory of Love?",
    "When was the Eiffel Tower completed?",
    "Name the first person to walk on the Moon.",
    "What is the capital of France?",
]


def knowledge_records() -> list[Any]:
    """The shipped knowledge records."""
    from factscope.conner.data import read_knowledge_records

    return [record for _, record in read_knowledge_records(KNOWLEDGE_RECORDS)]


def conner_pairs(lm: Any, records: list[Any]) -> list[tuple[str, str]]:
    """The (context, continuation) pairs CONNER asks ``lm`` to score for ``records``, in the order asked, repeats
    included; ``lm`` scores them once on the way (its cache then holds them)."""
    from factscope.conner.evaluator import KnowledgeEvaluator

    pairs: list[tuple[str, str]] = []

    class Recording:
        name = lm.name

        def logprobs(self, asked: list[tuple[str, str]]) -> Any:
            pairs.extend(asked)
            return lm.logprobs(asked)

    KnowledgeEvaluator(lm=Recording()).score(records)
    return pairs
