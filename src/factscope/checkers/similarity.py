"""The fast baseline checker: bi-encoder cosine between a claim and its closest reference sentence."""

from __future__ import annotations

from collections.abc import Sequence

from factscope.checkers.base import CheckTask
from factscope.checkers.defaults import DEFAULT_SIMILARITY_THRESHOLD
from factscope.core.schema import Label, Span, Verdict
from factscope.core.text import sentence_spans
from factscope.hf.encoders import BiEncoder


class SimilarityChecker:
    """Entailment when a reference sentence is at least ``threshold`` cosine-similar to the claim, else Neutral.

    Similarity cannot see contradictions: it never answers Contradiction. The verdict's ``score`` is the best
    cosine and its evidence that sentence. Default model: the packaged all-MiniLM-L6-v2.
    """

    def __init__(
        self, encoder: BiEncoder | None = None, *, threshold: float = DEFAULT_SIMILARITY_THRESHOLD
    ) -> None:
        self.encoder = encoder or BiEncoder()
        self.threshold = threshold
        self.name = f"similarity:{self.encoder.name}@{threshold}"

    def check(self, tasks: Sequence[CheckTask]) -> list[Verdict]:
        """One verdict per task."""
        sentences: list[list[tuple[int, str, Span]]] = []
        texts: list[str] = []
        for task in tasks:
            entries = []
            for index, reference in enumerate(task.references):
                for span in sentence_spans(reference):
                    entries.append((index, reference[span.start : span.end], span))
            sentences.append(entries)
            texts.append(task.claim)
            texts.extend(text for _, text, _ in entries)
        vectors = dict(zip(texts, self.encoder.encode(texts))) if texts else {}
        verdicts = []
        for task, entries in zip(tasks, sentences):
            if not entries:
                verdicts.append(Verdict(label=Label.NEUTRAL))
                continue
            claim = vectors[task.claim]
            scored = [(float(vectors[text] @ claim), index, text, span) for index, text, span in entries]
            score, index, text, span = max(scored, key=lambda item: item[0])
            label = Label.ENTAILMENT if score >= self.threshold else Label.NEUTRAL
            verdicts.append(
                Verdict(label=label, score=score, evidence=text, evidence_reference=index, evidence_span=span)
            )
        return verdicts
