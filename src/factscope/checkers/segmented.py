"""A Checker over any PairScorer: long references are cut into token segments, and verdicts merged."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from factscope.checkers.base import CheckTask, PairScorer
from factscope.checkers.claim_decision import ClaimDecision
from factscope.checkers.decision import LabelDecision
from factscope.checkers.escalation import Escalation, ScoredWindow, escalation
from factscope.checkers.evidence import best_sentence
from factscope.checkers.merge import merge_passage_labels
from factscope.checkers.options import CheckerOptions, CheckMode
from factscope.checkers.pruning import FastSettings, RoundScorer, SegmentRanker
from factscope.checkers.relevance import content_stems, stem_overlap
from factscope.checkers.segmented_settings import (
    MismatchCheck,
    claim_decision_at,
    relevance_floor,
    value_check_of,
    warn_of_fast_mode,
    window_layout,
)
from factscope.core.bounded_cache import BoundedCache
from factscope.core.schema import LABELS, Label, Rule, Span, Verdict
from factscope.core.text import segment_spans, window_spans
from factscope.hf.encoders import TextEncoder

CACHED_REFERENCES = 4_096
"""References whose segments a checker keeps, and segments whose content stems it keeps."""


@dataclass(frozen=True)
class Candidate:
    """One segment of one reference that a claim is checked against; ``relevance`` is None when not filtered."""

    reference: int
    segment: int
    span: Span
    text: str
    relevance: float | None

    def where(self) -> str:
        """'reference R, segment S', numbered from 1."""
        return f"reference {self.reference + 1}, segment {self.segment + 1}"


@dataclass(frozen=True)
class Judgement:
    """The model's probabilities and label for one candidate, and whether the candidate is relevant enough."""

    candidate: Candidate
    probs: tuple[float, float, float]
    label: Label
    relevant: bool

    def prob(self, label: Label) -> float:
        """The probability of ``label``."""
        return self.probs[LABELS.index(label)]


class SegmentedChecker:
    """Checks claims against references of any length with a (premise, hypothesis) model, as its ``options`` say
    (a ``CheckerOptions``, whose fields are named below; None: the defaults).

    Each reference is split into segments of at most ``max_tokens`` tokens (RefChecker: 200), or, with
    ``window_sentences=k``, into every window of k consecutive sentences (each at most ``max_tokens``; with
    ``min_window_sentences=j`` every window of j to k sentences); with
    ``max_tokens=0`` each reference is one segment, as RefChecker checks NQ's references (the model's tokenizer
    then cuts what is over its own maximum input length). Every (segment, claim) pair of the whole batch is
    scored in one deduplicated, length-sorted call. A segment's label is decided by ``threshold`` (default: the
    argmax of its probabilities; with a threshold, P(Entailment) >= threshold, see ``checkers.decision``).

    A verdict is decided in five steps, each recorded in its ``rule`` and ``reason``:

    1. relevance (``relevance="lexical"``): a segment counts only when at least ``min_relevance`` of the claim's
       content words occur in it; when no segment does, the verdict is Neutral;
    2. the merge of RefChecker A.3 over the counted segments of all references: any Entailment wins, else any
       Contradiction, else Neutral; the deciding segment is the one of that label with the highest probability;
    3. the value check (the one ``mismatch`` names, or ``value_check``, a check of one's own, in its place): an
       Entailment whose evidence sentence bears another number, date or entity than the claim becomes
       Contradiction (the evidence states another value) or Neutral;
    4. ``min_confidence``: an Entailment or Contradiction of the model whose probability is under it becomes
       Neutral;
    5. the claim decision (the one saved at ``decision``, none by default, see ``checkers.claim_decision``): a
       logistic decision fitted on labelled pairs says whether the claim is supported, from
       :func:`claim_measurements`; a claim it calls supported becomes Entailment (decided by its best entailing
       window), one it does not call supported loses an Entailment (Neutral). Its P(supported) is the verdict's
       ``support``.

    Exact mode scores, by default (``exact_scoring="decisive"``), only the segments that can decide a label: those
    over the relevance floor (a claim with none meets its most relevant segment alone, whose probabilities its
    Neutral verdict keeps). Its verdicts are those of ``exact_scoring="every"``, which scores every segment:
    label, probabilities, deciding segment and evidence; only the relevance rule's note that a segment under the
    floor would have decided otherwise (rule ``relevance`` over a model label) needs ``every``.

    With ``fast`` (:class:`~factscope.checkers.pruning.FastSettings`) the checker takes the pruning path: each claim
    is scored only against its most relevant counted segments, in rounds that stop at a confident entailment
    (``encoder`` ranks by cosine for its dense and hybrid relevance); its label can differ from exact mode's only
    where a segment left unscored would have decided it. The options' ``mode`` 'fast' is deprecated: it warns and
    checks as exact mode. ``name`` names the checker in its verdicts (default: the scorer's name).

    The verdict keeps the deciding segment's probabilities and span, and as evidence the sentence of that segment
    with the highest word overlap with the claim (offsets in the original reference).
    """

    def __init__(
        self,
        scorer: PairScorer,
        options: CheckerOptions | None = None,
        *,
        name: str | None = None,
        value_check: MismatchCheck | None = None,
        fast: FastSettings | None = None,
        encoder: TextEncoder | None = None,
    ) -> None:
        chosen = options or CheckerOptions()
        warn_of_fast_mode(chosen)
        self.scorer = scorer
        self.decision = LabelDecision(chosen.threshold)
        self.claim_decision = claim_decision_at(chosen.decision)
        self.max_tokens = chosen.max_tokens
        self.window_sentences, self.min_window_sentences = window_layout(chosen)
        self.exact_scoring = chosen.exact_scoring
        self.name = name or scorer.name
        self.relevance = chosen.relevance
        self.min_relevance = relevance_floor(chosen)
        self.min_confidence = chosen.min_confidence
        self._mismatch = value_check or value_check_of(chosen.mismatch)
        self.mismatch_check = _qualified_name(self._mismatch) if self._mismatch is not None else None
        self._segments: BoundedCache[str, list[tuple[str, Span]]] = BoundedCache(CACHED_REFERENCES)
        self._stems: BoundedCache[str, frozenset[str]] = BoundedCache(CACHED_REFERENCES)
        self.mode: CheckMode = "exact" if fast is None else "fast"
        self.fast = fast
        self._ranker = SegmentRanker(fast, encoder) if fast is not None else None

    def segments(self, reference: str) -> list[tuple[str, Span]]:
        """The segments of one reference with their character spans in it (the ``CACHED_REFERENCES`` most recent
        references' are kept)."""
        cached = self._segments.get(reference)
        if cached is None:
            cached = [(reference[span.start : span.end], span) for span in self._spans(reference)]
            self._segments.put(reference, cached)
        return cached

    def _spans(self, reference: str) -> list[Span]:
        if self.window_sentences:
            return window_spans(
                reference, self.window_sentences, self.scorer.count_tokens, self.max_tokens, self.min_window_sentences
            )
        if self.max_tokens:
            return segment_spans(reference, self.scorer.count_tokens, self.max_tokens)
        if not reference.strip():
            return []
        return [Span(start=len(reference) - len(reference.lstrip()), end=len(reference.rstrip()))]

    def check(self, tasks: Sequence[CheckTask]) -> list[Verdict]:
        """One verdict per task, all pairs scored together."""
        if self.mode == "fast":
            return self._check_fast(tasks, [self.candidates(task) for task in tasks])
        return [self.decide(task, judged) for task, judged in zip(tasks, self.judgements(tasks))]

    def judgements(self, tasks: Sequence[CheckTask]) -> list[list[Judgement]]:
        """Exact mode's judgements of each task's scored candidates, all pairs scored in one call."""
        scored = [self._scored(self.candidates(task)) for task in tasks]
        premises = [candidate.text for candidates in scored for candidate in candidates]
        hypotheses = [task.claim for task, candidates in zip(tasks, scored) for _ in candidates]
        probs = self.scorer.score(premises, hypotheses) if premises else np.zeros((0, len(LABELS)))
        judged = []
        row = 0
        for candidates in scored:
            judged.append([self._judge(candidate, probs[row + i]) for i, candidate in enumerate(candidates)])
            row += len(candidates)
        return judged

    def _scored(self, candidates: Sequence[Candidate]) -> list[Candidate]:
        """The candidates of one claim that exact mode scores: every one with ``exact_scoring="every"``, else those
        over the relevance floor, or with none over it the most relevant one alone (its probabilities are the
        Neutral verdict's, as with every)."""
        if self.exact_scoring == "every":
            return list(candidates)
        counted = [candidate for candidate in candidates if self._counts(candidate)]
        if counted or not candidates:
            return counted
        return [candidates[_closest(candidates, [False] * len(candidates))]]

    def _check_fast(self, tasks: Sequence[CheckTask], selected: list[list[Candidate]]) -> list[Verdict]:
        """Fast mode: each claim's counted candidates are ranked by relevance, pruned to the top k and scored in
        rounds that stop at a confident entailment (``checkers.pruning``); a claim whose pruned label could differ
        from exact mode's is escalated to every counted candidate (``checkers.escalation``); the verdict is decided
        as in exact mode from the scored candidates, with its ``fast_path``."""
        assert self.fast is not None and self._ranker is not None
        claims = [task.claim for task in tasks]
        texts = [[candidate.text for candidate in candidates] for candidates in selected]
        counted = [[self._counts(candidate) for candidate in candidates] for candidates in selected]
        kept = self._ranker.keep(claims, texts, counted)
        settings = replace(self.fast, stop_probability=max(self.fast.stop_probability, self.min_confidence))
        scored = RoundScorer(self.scorer, settings).score(claims, texts, kept)
        closest = {
            number: _closest(candidates, counts)
            for number, (candidates, counts, found) in enumerate(zip(selected, counted, scored))
            if candidates and not found.indices
        }
        found_closest: dict[int, np.ndarray] = {}
        if closest:
            premises = [selected[number][index].text for number, index in closest.items()]
            found_closest = dict(zip(closest, self.scorer.score(premises, [claims[number] for number in closest])))
        probs: list[dict[int, np.ndarray]] = [
            {closest[number]: found_closest[number]} if number in closest else dict(zip(found.indices, found.probs))
            for number, found in enumerate(scored)
        ]
        pruned = [
            self.decide(task, [self._judge(candidates[index], p) for index, p in sorted(probs[number].items())])
            for number, (task, candidates) in enumerate(zip(tasks, selected))
        ]
        escalated = [
            number
            for number, candidates in enumerate(selected)
            if self.fast.escalate
            and self._escalation(candidates, counted[number], probs[number], pruned[number]) is not None
        ]
        self._score_the_rest(claims, selected, counted, probs, escalated)
        verdicts = []
        for number, (task, candidates) in enumerate(zip(tasks, selected)):
            if number not in escalated:
                verdicts.append(pruned[number].model_copy(update={"fast_path": "pruned"}))
                continue
            judged = [self._judge(candidates[index], p) for index, p in sorted(probs[number].items())]
            verdicts.append(self.decide(task, judged).model_copy(update={"fast_path": "exact"}))
        return verdicts

    def _escalation(
        self,
        candidates: Sequence[Candidate],
        counts: Sequence[bool],
        probs: dict[int, np.ndarray],
        pruned: Verdict,
    ) -> Escalation | None:
        """Why one claim's pruned verdict must give way to exact scoring, or None (``checkers.escalation``)."""
        assert self.fast is not None
        scored = [ScoredWindow(p, candidates[index].relevance) for index, p in probs.items() if counts[index]]
        unscored = [
            candidate.relevance for index, candidate in enumerate(candidates) if counts[index] and index not in probs
        ]
        label = merge_passage_labels(self.decision(window.probs) for window in scored)
        overruled = label is Label.ENTAILMENT and pruned.rule in ("mismatch", "min-confidence")
        return escalation(label, scored, unscored, self.decision, self.fast.exact_margin, overruled=overruled)

    def _score_the_rest(
        self,
        claims: Sequence[str],
        selected: Sequence[Sequence[Candidate]],
        counted: Sequence[Sequence[bool]],
        probs: list[dict[int, np.ndarray]],
        escalated: Sequence[int],
    ) -> None:
        """Score every counted candidate of the ``escalated`` claims that is not scored yet (one deduplicated call)
        and add them to ``probs``."""
        wanted = [
            (number, index)
            for number in escalated
            for index, counts in enumerate(counted[number])
            if counts and index not in probs[number]
        ]
        pairs = list(dict.fromkeys((selected[number][index].text, claims[number]) for number, index in wanted))
        if not pairs:
            return
        found = dict(zip(pairs, self.scorer.score([p for p, _ in pairs], [h for _, h in pairs])))
        for number, index in wanted:
            probs[number][index] = found[(selected[number][index].text, claims[number])]

    def _counts(self, candidate: Candidate) -> bool:
        """Whether a candidate passes the relevance floor (counts in the merge)."""
        return candidate.relevance is None or candidate.relevance >= self.min_relevance

    def candidates(self, task: CheckTask) -> list[Candidate]:
        """The segments of every reference of ``task`` that its claim is scored against, with their relevance."""
        claim_stems = content_stems(task.claim) if self.relevance == "lexical" else frozenset()
        found = []
        for index, reference in enumerate(task.references):
            for number, (text, span) in enumerate(self.segments(reference)):
                relevance = stem_overlap(claim_stems, self._segment_stems(text)) if self.relevance == "lexical" else None
                found.append(Candidate(index, number, span, text, relevance))
        return found

    def _segment_stems(self, text: str) -> frozenset[str]:
        stems = self._stems.get(text)
        if stems is None:
            stems = content_stems(text)
            self._stems.put(text, stems)
        return stems

    def _judge(self, candidate: Candidate, p: np.ndarray) -> Judgement:
        relevant = self._counts(candidate)
        probs = (float(p[0]), float(p[1]), float(p[2]))
        return Judgement(candidate, probs, self.decision(p), relevant)

    def decide(self, task: CheckTask, judged: Sequence[Judgement]) -> Verdict:
        """The verdict of one task from the judgements of its candidates: relevance, merge, value check,
        minimum confidence and the claim decision."""
        verdict = self.decide_without_claim_decision(task, judged)
        if self.claim_decision is not None and judged:
            verdict = self._claim_decided(task, judged, verdict, self.claim_decision)
        return verdict

    def decide_without_claim_decision(self, task: CheckTask, judged: Sequence[Judgement]) -> Verdict:
        """The verdict of one task before the claim decision: relevance, merge, value check, minimum confidence
        (what a claim decision is fitted on)."""
        if not judged:
            return Verdict(label=Label.NEUTRAL, rule="model", reason="no reference text to check against")
        relevant = [j for j in judged if j.relevant]
        if not relevant:
            closest = max(judged, key=lambda j: j.candidate.relevance or 0.0)
            reason = (
                f"no segment shares enough of the claim's content words: at best {closest.candidate.relevance:.0%} "
                f"({closest.candidate.where()}), under the floor {self.min_relevance:.0%}"
            )
            return self._explained(task, Label.NEUTRAL, closest, "relevance", reason)
        label = merge_passage_labels(j.label for j in relevant)
        deciding = _strongest(relevant, label)
        unfiltered = merge_passage_labels(j.label for j in judged)
        rule: Rule = "model"
        reason = _model_reason(label, deciding)
        if unfiltered != label:
            overruled = _strongest([j for j in judged if not j.relevant], unfiltered)
            rule = "relevance"
            reason = (
                f"{overruled.candidate.where()} says {unfiltered.value} (P={overruled.prob(unfiltered):.2f}) but "
                f"shares only {overruled.candidate.relevance:.0%} of the claim's content words, under the floor "
                f"{self.min_relevance:.0%}; {reason}"
            )
        verdict = self._explained(task, label, deciding, rule, reason)
        if label == Label.ENTAILMENT and self._mismatch is not None:
            verdict = self._value_checked(task, verdict, deciding)
        if verdict.rule != "mismatch" and label != Label.NEUTRAL and deciding.prob(label) < self.min_confidence:
            verdict = verdict.model_copy(
                update={
                    "label": Label.NEUTRAL,
                    "rule": "min-confidence",
                    "reason": f"{_model_reason(label, deciding)}, under the minimum confidence "
                    f"{self.min_confidence:.2f}",
                }
            )
        return verdict

    def _claim_decided(
        self, task: CheckTask, judged: Sequence[Judgement], verdict: Verdict, decision: ClaimDecision
    ) -> Verdict:
        """The verdict after the claim decision: Entailment when it calls the claim supported, else not Entailment."""
        support = decision.probability(claim_measurements(task, judged, verdict))
        supported = support >= decision.threshold
        said = f"P(supported) {support:.2f} {'>=' if supported else '<'} {decision.threshold:.2f} (claim decision)"
        if supported == (verdict.label == Label.ENTAILMENT):
            return verdict.model_copy(update={"support": support})
        if not supported:
            update = {"label": Label.NEUTRAL, "rule": "decision", "reason": f"{said}; {verdict.reason}"}
            return verdict.model_copy(update={**update, "support": support})
        pool = [j for j in judged if j.relevant] or list(judged)
        best = max(pool, key=lambda j: j.prob(Label.ENTAILMENT))
        reason = f"{said}; best window: {_model_reason(Label.ENTAILMENT, best)}"
        return self._explained(task, Label.ENTAILMENT, best, "decision", reason).model_copy(
            update={"support": support}
        )

    def _explained(self, task: CheckTask, label: Label, deciding: Judgement, rule: Rule, reason: str) -> Verdict:
        reference = task.references[deciding.candidate.reference]
        sentence = best_sentence(task.claim, reference, within=deciding.candidate.span)
        return Verdict(
            label=label,
            probs=deciding.probs,
            evidence=reference[sentence.start : sentence.end] if sentence else None,
            evidence_reference=deciding.candidate.reference,
            evidence_span=sentence,
            segment_span=deciding.candidate.span,
            rule=rule,
            reason=reason,
        )

    def _value_checked(self, task: CheckTask, verdict: Verdict, deciding: Judgement) -> Verdict:
        """The verdict after the value check of its evidence sentence: unchanged, or Contradiction / Neutral.

        The whole deciding reference is the context: a value it states anywhere is borne (a summary gathers facts
        from all of a document, and with the deciding segment alone as context right verdicts turn wrong).
        """
        if self._mismatch is None or verdict.evidence is None or verdict.evidence_span is None:
            return verdict
        reference = task.references[deciding.candidate.reference]
        found = self._mismatch(task.claim, verdict.evidence, context=reference)
        if found is None:
            return verdict
        if found.evidence_span is not None:
            shift = verdict.evidence_span.start
            moved = Span(start=found.evidence_span.start + shift, end=found.evidence_span.end + shift)
            found = found.model_copy(update={"evidence_span": moved})
        if found.evidence_value is not None:
            label, reason = Label.CONTRADICTION, (
                f"{found.kind} {found.claim_value} in the claim, {found.evidence_value} in the evidence"
            )
        else:
            label, reason = Label.NEUTRAL, f"{found.kind} {found.claim_value} in the claim is not in the evidence"
        return verdict.model_copy(update={"label": label, "rule": "mismatch", "reason": reason, "mismatch": found})


def claim_measurements(task: CheckTask, judged: Sequence[Judgement], verdict: Verdict) -> dict[str, float]:
    """What a claim decision reads of one claim (``checkers.claim_decision.feature_row``): whether the verdict
    before the claim decision is Entailment or Contradiction; over its counted windows (all judged windows when
    none counts), the highest P(Entailment) and P(Contradiction), the share the model labels Entailment and the
    best relevance; the words of its references and of the claim; 1 when the value check decided the verdict."""
    pool = [j for j in judged if j.relevant] or list(judged)
    return {
        "entailed": 1.0 if verdict.label is Label.ENTAILMENT else 0.0,
        "contradicted": 1.0 if verdict.label is Label.CONTRADICTION else 0.0,
        "entailment": max((j.prob(Label.ENTAILMENT) for j in pool), default=0.0),
        "contradiction": max((j.prob(Label.CONTRADICTION) for j in pool), default=0.0),
        "entailing_share": sum(j.label == Label.ENTAILMENT for j in pool) / len(pool) if pool else 0.0,
        "reference_words": float(sum(len(reference.split()) for reference in task.references)),
        "claim_words": float(len(task.claim.split())),
        "relevance": max((1.0 if j.candidate.relevance is None else j.candidate.relevance for j in pool), default=0.0),
        "mismatch": 1.0 if verdict.rule == "mismatch" else 0.0,
    }


def _strongest(judged: Sequence[Judgement], label: Label) -> Judgement:
    """The judgement of ``label`` with the highest probability for it (the first on a tie)."""
    return max((j for j in judged if j.label == label), key=lambda j: j.prob(label))


def _model_reason(label: Label, deciding: Judgement) -> str:
    where, p = deciding.candidate.where(), deciding.prob(label)
    if label == Label.ENTAILMENT:
        return f"entailed by {where} (P={p:.2f})"
    if label == Label.CONTRADICTION:
        return f"contradicted by {where} (P={p:.2f})"
    return f"no segment entails or contradicts it; most neutral: {where} (P={p:.2f})"


def _qualified_name(check: object) -> str:
    """'module.name' of a function or of a callable object's class, with a partial's keywords: how a results
    manifest names the check."""
    if isinstance(check, partial):
        keywords = ", ".join(f"{key}={value!r}" for key, value in sorted(check.keywords.items()))
        return f"{_qualified_name(check.func)}({keywords})"
    named = check if hasattr(check, "__qualname__") else type(check)
    return f"{getattr(named, '__module__', '?')}.{getattr(named, '__qualname__', type(check).__name__)}"


def _closest(candidates: Sequence[Candidate], counts: Sequence[bool]) -> int:
    """The candidate fast mode scores alone when its ranking keeps none (no segment over the relevance floor, or
    none that the ranking scores above zero): the most relevant of those the checker counts, whose label then
    decides, else the most relevant of all, whose verdict is Neutral by the relevance rule with that segment's
    probabilities, as in exact mode."""
    pool = [index for index, counted in enumerate(counts) if counted] or list(range(len(candidates)))
    return max(pool, key=lambda index: candidates[index].relevance or 0.0)
