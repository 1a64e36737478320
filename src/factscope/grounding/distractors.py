"""Distractor settings of Truly Ground (the *-Dist versions): retrieved passages that are similar to the question
but are not its gold documents are added to the input contexts, up to a token budget.

Distractors are taken in retrieval rank order (the most distracting first) until the next one would overrun the
budget. Gold documents are excluded by title (the ``Title: X`` line of a gold context) and by text (a hit whose
text is contained in a gold context, or contains one). ``gold_position`` says where the gold contexts go:
``end`` (after the distractors, the paper's best position), ``beginning``, ``middle`` (after half of the
distractors) or ``random`` (each gold context at a random slot, seeded per question so runs repeat).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, get_args

from factscope.core.options.metadata import about
from factscope.core.options.validation import ValidatedOptions
from factscope.core.seeds import SEED_MAX
from factscope.grounding.data import GroundExample, context_title
from factscope.retrieve.corpus import Corpus, Hit, Retriever, RetrieverName, make_retriever

GoldPosition = Literal["end", "beginning", "middle", "random"]
GOLD_POSITIONS: tuple[GoldPosition, ...] = get_args(GoldPosition)


def word_count(text: str) -> int:
    """Whitespace tokens: the default token count of the budget."""
    return len(text.split())


def _normalised(text: str) -> str:
    return " ".join(text.lower().split())


def is_gold(hit: Hit, gold_contexts: Sequence[str]) -> bool:
    """True when the hit is one of the gold documents (same title, or text overlapping a gold context)."""
    titles = {_normalised(t) for t in (context_title(c) for c in gold_contexts) if t}
    if hit.title and _normalised(hit.title) in titles:
        return True
    text = _normalised(hit.text)
    return any(text in _normalised(c) or _normalised(c) in text for c in gold_contexts if c.strip())


def format_context(hit: Hit) -> str:
    """A hit in the paper's context format ``Title: X \\n\\n text`` (plain text when it has no title)."""
    return f"Title: {hit.title} \n\n {hit.text}" if hit.title else hit.text


def select_distractors(
    hits: Sequence[Hit],
    gold_contexts: Sequence[str],
    budget: int,
    count_tokens: Callable[[str], int] = word_count,
) -> list[str]:
    """Non-gold hits in rank order, formatted, while their total token count stays within ``budget``."""
    chosen: list[str] = []
    used = 0
    seen: set[str] = set()
    for hit in hits:
        if hit.doc_id in seen or is_gold(hit, gold_contexts):
            continue
        context = format_context(hit)
        tokens = count_tokens(context)
        if used + tokens > budget:
            break
        chosen.append(context)
        seen.add(hit.doc_id)
        used += tokens
    return chosen


def place_gold(
    gold: Sequence[str], distractors: Sequence[str], position: GoldPosition, rng: random.Random | None = None
) -> list[str]:
    """The input contexts with the gold contexts at ``position`` among the distractors."""
    gold, distractors = list(gold), list(distractors)
    if position == "beginning":
        return gold + distractors
    if position == "end":
        return distractors + gold
    if position == "middle":
        half = len(distractors) // 2
        return distractors[:half] + gold + distractors[half:]
    if position == "random":
        rng = rng or random.Random(0)
        contexts = list(distractors)
        for context in gold:
            contexts.insert(rng.randint(0, len(contexts)), context)
        return contexts
    raise ValueError(f"unknown gold position {position!r}; use one of {', '.join(GOLD_POSITIONS)}")


@dataclass(frozen=True)
class DistractorSettings(ValidatedOptions):
    """How distractors are drawn from a corpus (the paper's Dist setting): the ``retriever`` finds ``depth``
    passages per question, those that are not gold fill ``budget`` whitespace tokens, and the gold contexts go
    at ``gold_position`` (``seed`` draws a random one)."""

    retriever: RetrieverName = field(default="dense", metadata=about("distractor retriever"))
    budget: int = field(default=1000, metadata=about("distractor budget in whitespace tokens", min=0))
    gold_position: GoldPosition = field(default="end", metadata=about("where the gold contexts go"))
    depth: int = field(default=40, metadata=about(
        "passages retrieved per question before filtering (the paper: 40)", min=1
    ))
    seed: int = field(default=0, metadata=about("seed of the random gold position", min=0, max=SEED_MAX))

    def describe(self) -> str:
        """The settings in a few words, for a summary."""
        return f"{self.retriever}, {self.budget} tokens, gold at {self.gold_position}"


def add_corpus_distractors(
    examples: Sequence[GroundExample], corpus: str | Path, settings: DistractorSettings
) -> list[GroundExample]:
    """``add_distractors`` with the passages of ``corpus`` (JSONL {id, title, text} or a folder of .txt) found
    by ``settings``' retriever."""
    found = make_retriever(settings.retriever, Corpus.from_path(corpus))
    return add_distractors(
        examples, found, budget=settings.budget, gold_position=settings.gold_position, depth=settings.depth,
        seed=settings.seed,
    )


def add_distractors(
    examples: Sequence[GroundExample],
    retriever: Retriever,
    *,
    budget: int = 1000,
    gold_position: GoldPosition = "end",
    depth: int = 40,
    seed: int = 0,
    count_tokens: Callable[[str], int] = word_count,
) -> list[GroundExample]:
    """Copies of ``examples`` with distractors added (the paper retrieves the top 40 per question).

    Each copy's metadata gains ``distractors`` (how many were added) and ``gold_position``.
    """
    if gold_position not in GOLD_POSITIONS:
        raise ValueError(f"unknown gold position {gold_position!r}; use one of {', '.join(GOLD_POSITIONS)}")
    results = retriever.search_many([example.question for example in examples], depth) if examples else []
    updated = []
    for example, hits in zip(examples, results):
        distractors = select_distractors(hits, example.contexts, budget, count_tokens)
        rng = random.Random(f"{seed}:{example.id}")
        contexts = place_gold(example.contexts, distractors, gold_position, rng)
        metadata = {**example.metadata, "distractors": len(distractors), "gold_position": gold_position}
        updated.append(replace(example, contexts=contexts, metadata=metadata))
    return updated
