"""Every system's summary comes from mergeable totals: the totals of any split of a run's rows, each part in its own
order, merged in any order, give exactly (==) the summary of the whole file in file order; and a run that writes a
results file hands back a lazy reader of that file whose in-memory summary is the run's."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from factscope import attribute, check, ground, knowledge
from factscope.checkers.base import CheckTask
from factscope.claims.registry import make_extractor
from factscope.conner.data import KnowledgeRecord
from factscope.conner.evaluator import KnowledgeEvaluator
from factscope.conner.scores import Factuality, KnowledgeScores, SentenceEvidence
from factscope.conner.totals import KnowledgeTotals
from factscope.conner.totals import summarize as summarize_knowledge
from factscope.core.runs.results import ResultRows
from factscope.core.schema import LABELS, Claim, Extraction, Label, Record, Verdict
from factscope.grounding.data import GroundExample
from factscope.grounding.presence import WindowedPresence
from factscope.grounding.task import DEFAULT_FACTORS, FactJudgement, GroundResult, GroundTotals
from factscope.grounding.task import summarize as summarize_ground
from factscope.kalma.answers import AnswerRecord
from factscope.kalma.scores import AttributionScore, CitationIssue
from factscope.kalma.totals import AttributionTotals
from factscope.kalma.totals import summarize as summarize_attribution
from factscope.kg.graph import KnowledgeGraph, Triple
from factscope.metrics.attribution import AnswerCitationCounts, AnswerNACounts
from factscope.metrics.geval import ASPECTS
from factscope.metrics.hallucination import summarize_response
from factscope.refchecker.system import CHECK
from factscope.refchecker.task import CheckResult, CheckTotals, ClaimResult

ROWS = 90


def _check_rows(rng: random.Random) -> list[CheckResult]:
    rows = []
    for index in range(ROWS):
        labels = [rng.choice([*LABELS, None]) for _ in range(rng.randrange(7))]
        failed = rng.random() < 0.1
        claims = [
            ClaimResult(
                claim=Claim(text=f"claim {n}"),
                verdict=Verdict(label=label) if label is not None else Verdict(label=None, failed=True, error="x"),
            )
            for n, label in enumerate(labels)
        ]
        rows.append(
            CheckResult(
                id=f"r{index}",
                response="a response",
                setting=rng.choice([None, "zero", "noisy", "accurate"]),
                claims=[] if failed else claims,
                extraction_failed=failed,
                abstained=not labels and rng.random() < 0.5,
                summary=None if failed else summarize_response(labels),
            )
        )
    return rows


def _ground_rows(rng: random.Random) -> list[GroundResult]:
    def judgements() -> list[FactJudgement]:
        return [
            FactJudgement(fact="a fact", score=rng.random(), present=rng.choice([True, False, None]))
            for _ in range(rng.randrange(4))
        ]

    rows = []
    for index in range(ROWS):
        failed = rng.random() < 0.1
        precision = None if failed or rng.random() < 0.1 else rng.random()
        recall = None if failed or rng.random() < 0.2 else rng.random()
        metadata = {"pop": rng.choice(["high", "low", None]), "has_multi": rng.choice([True, False, None]),
                    "has_answer": rng.choice([True, False]), "source": rng.choice(["wiki", "news"])}
        rows.append(
            GroundResult(
                id=f"g{index}",
                question="a question",
                response="a response",
                precision=precision,
                recall=recall,
                f1=rng.random() if precision is not None and recall is not None else None,
                answer_correct=rng.choice([True, False, None]),
                response_facts=judgements(),
                gold_facts=judgements(),
                metadata=metadata,
                failed=failed,
            )
        )
    return rows


def _attribution_rows(rng: random.Random) -> list[AttributionScore]:
    rows = []
    for index in range(ROWS):
        citations = rng.randrange(7)
        correct = rng.randrange(citations + 1)
        knowledge_count = rng.randrange(6)
        removed = rng.choice([0, 1, 2])
        geval = None
        if rng.random() < 0.7:
            geval = {}
            for aspect in ASPECTS:
                if rng.random() < 0.9:
                    value = rng.choice([1, 2, 3, 4, 5, None])
                    geval[aspect] = {"score": value, "weighted": rng.uniform(1, 5) if rng.random() < 0.8 else None,
                                     "failed": value is None}
        sentences = rng.randrange(4)
        na_precise = rng.randrange(sentences + 1)
        rows.append(
            AttributionScore(
                id=f"a{index}",
                removed=removed,
                counts=AnswerCitationCounts(citations, correct, rng.randrange(correct + 1), knowledge_count,
                                            rng.randrange(knowledge_count + 1)),
                alignment=[rng.choice([True, False, None]) for _ in range(rng.randrange(5))],
                na=AnswerNACounts(sentences, na_precise, removed, rng.randrange(removed + 1), rng.randrange(2))
                if removed
                else None,
                geval=geval,
                issues=[CitationIssue(raw="[Q1]", sentence=0, reason="no relation")] * rng.randrange(3),
            )
        )
    return rows


REASONS = ("no relevance model", "the record has no 'answer'", "needs factuality")


def _knowledge_rows(rng: random.Random) -> list[KnowledgeScores]:
    def maybe(low: float, high: float) -> float | None:
        return rng.uniform(low, high) if rng.random() < 0.8 else None

    rows = []
    for index in range(ROWS):
        consistent = rng.random()
        inconsistent = rng.uniform(0, 1 - consistent)
        row = KnowledgeScores(
            id=f"k{index}",
            factuality=Factuality(consistent=consistent, non_verified=1 - consistent - inconsistent,
                                  inconsistent=inconsistent) if rng.random() < 0.8 else None,
            relevance=maybe(0, 1),
            coherence_sentence=maybe(-9, 0),
            coherence_paragraph=maybe(0, 1),
            informativeness=maybe(0, 1),
            helpfulness=maybe(-1, 1),
            validity=maybe(0, 1),
            q_know=maybe(0, 1),
            sentences=[SentenceEvidence(sentence="s", failed_checks=rng.choice([0, 0, 0, 1]))],
        )
        for metric in ("relevance", "validity", "q_know"):
            if getattr(row, metric) is None:
                row.not_computed[metric] = rng.choice(REASONS)
        rows.append(row)
    return rows


def _check_summary(totals: CheckTotals) -> Any:
    return (
        totals.overall.rates(),
        {setting: rates.rates() for setting, rates in sorted(totals.by_setting.items())},
        totals.declined,
        totals.claims,
        totals.extraction_failures,
        totals.check_failures,
    )


SYSTEMS: dict[str, tuple[Callable[[random.Random], Sequence[Any]], Callable[[], Any], Callable[[Any], Any]]] = {
    "check": (_check_rows, CheckTotals, _check_summary),
    "ground": (_ground_rows, lambda: GroundTotals((*DEFAULT_FACTORS, "source")), lambda t: t.summary()),
    "attribute": (_attribution_rows, AttributionTotals, lambda t: (t.summary(), t.failed)),
    "attribute zero": (_attribution_rows, lambda: AttributionTotals("zero"), lambda t: (t.summary(), t.failed)),
    "knowledge": (_knowledge_rows, KnowledgeTotals, lambda t: (t.summary(), t.failed)),
}


def _totals(new_totals: Callable[[], Any], rows: Sequence[Any]) -> Any:
    totals = new_totals()
    for row in rows:
        totals.add(row)
    return totals


def _shards(rows: Sequence[Any], rng: random.Random) -> list[list[Any]]:
    """Three parts of ``rows``: every third row from the first, from the second reversed, the rest shuffled."""
    parts = [list(rows[start::3]) for start in range(3)]
    parts[1].reverse()
    rng.shuffle(parts[2])
    return parts


@pytest.mark.parametrize("system", sorted(SYSTEMS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_totals_merged_over_shards_equal_the_totals_of_the_whole_file_exactly(system, seed):
    make_rows, new_totals, summary_of = SYSTEMS[system]
    rng = random.Random(f"{system}:{seed}")
    rows = make_rows(rng)
    whole = summary_of(_totals(new_totals, rows))
    parts = [_totals(new_totals, part) for part in _shards(rows, rng)]
    for order in ([0, 1, 2], [2, 0, 1], [1, 2, 0]):
        merged = new_totals()
        for position in order:
            merged.merge(parts[position])
        assert summary_of(merged) == whole
    # merging into a part's own totals, as an engine folding shard results does, gives the same
    folded = _totals(new_totals, _shards(rows, random.Random(seed))[2])
    for part in _shards(rows, random.Random(seed))[:2]:
        folded.merge(_totals(new_totals, part))
    assert summary_of(folded) == whole


def test_the_generated_rows_make_plain_float_sums_depend_on_the_split():
    """Adding plain per-shard float sums, as a naive merge would, changes the total for the rows above, so the
    exact equality of the merged summaries is a property of the totals, not of the data."""
    differs = []
    for seed in (0, 1, 2):
        rows = _ground_rows(random.Random(f"ground:{seed}"))
        for measure in ("precision", "recall", "f1"):
            values = [value for row in rows if (value := getattr(row, measure)) is not None]
            parts = _shards(values, random.Random(seed))
            differs.append(sum(sum(part) for part in parts) != sum(values))
    assert sum(differs) >= 3


def test_totals_kept_differently_refuse_to_merge():
    with pytest.raises(ValueError, match="factors"):
        GroundTotals(("pop",)).merge(GroundTotals(("has_multi",)))
    with pytest.raises(ValueError, match="empty_answers"):
        AttributionTotals("skip").merge(AttributionTotals("zero"))


def test_the_most_common_reason_a_metric_was_not_computed_is_reported_whatever_the_order():
    def row(index: int, reason: str) -> KnowledgeScores:
        return KnowledgeScores(id=str(index), not_computed={"relevance": reason})

    rows = [row(0, "b"), row(1, "a"), row(2, "b"), row(3, "a"), row(4, "c"), row(5, "b")]
    assert summarize_knowledge(rows).not_computed == {"relevance": "b"}
    assert summarize_knowledge(rows[::-1]).not_computed == {"relevance": "b"}
    # a tie goes to the reason first in alphabetical order
    assert summarize_knowledge(rows[:4]).not_computed == summarize_knowledge(rows[3::-1]).not_computed == {
        "relevance": "a"
    }


class _EntailsWhenContained:
    """Entailment when the claim's text (without its full stop) occurs in a reference, else Neutral."""

    name = "contains"

    def check(self, tasks: list[CheckTask]) -> list[Verdict]:
        return [
            Verdict(label=Label.ENTAILMENT if any(t.claim.rstrip(".") in r for r in t.references) else Label.NEUTRAL,
                    probs=(0.8, 0.15, 0.05) if any(t.claim.rstrip(".") in r for r in t.references) else (0.1, 0.7, 0.2))
            for t in tasks
        ]


def _assert_lazy(results: object, output: object, ids: list[str]) -> None:
    assert isinstance(results, ResultRows) and not isinstance(results, list)
    assert results.path == output
    assert [row.id for row in results] == ids and len(results) == len(ids)


def test_a_check_run_with_output_reads_its_results_from_the_file(tmp_path):
    records = [
        Record(id=f"r{i}", response=f"Owls hunt at dusk. Owls eat {i} mice.", references=["Owls hunt at dusk."],
               setting="zero" if i % 2 else "noisy")
        for i in range(7)
    ]
    output = tmp_path / "checked.jsonl"
    run = check(records, extractor=make_extractor("sentences"), checker=_EntailsWhenContained(), output=output,
                batch_size=3)
    _assert_lazy(run.results, output, [r.id for r in records])
    held = CHECK.summarize(list(run.results), seconds=run.seconds)
    unnamed = {"seconds", "extractor", "checker"}
    assert held.model_dump(exclude=unnamed) == run.model_dump(exclude=unnamed)
    again = check(records, extractor=make_extractor("sentences"), checker=_EntailsWhenContained(), output=output)
    assert (again.new_records, again.resumed_records) == (0, len(records))
    assert again.model_dump(exclude={"seconds", "new_records", "resumed_records"}) == run.model_dump(
        exclude={"seconds", "new_records", "resumed_records"}
    )


class _SentenceFacts:
    """Each sentence of a response is one fact."""

    name = "sentences"

    def extract(self, texts, questions=None):
        return [Extraction(claims=[Claim(text=s.strip() + ".") for s in t.split(".") if s.strip()]) for t in texts]


class _Contains(WindowedPresence):
    """1.0 when the fact (without its full stop) is in the window, else 0.0."""

    name = "contains"
    threshold = 0.5

    def __init__(self) -> None:
        super().__init__(window=None)

    def score_pairs(self, pairs):
        return np.array([1.0 if f.rstrip(".") in w else 0.0 for f, w in pairs])


def test_a_ground_run_with_output_reads_its_results_from_the_file(tmp_path):
    examples = [
        GroundExample(f"g{i}", "Q?", ["Owls hunt at dusk. Owls nest in barns."], ["Owls hunt at dusk."],
                      answer="dusk", response="Owls hunt at dusk." if i % 3 else f"Owls sleep {i} hours.",
                      metadata={"pop": "high" if i % 2 else "low", "has_multi": i % 4 == 0})
        for i in range(8)
    ]
    output = tmp_path / "ground.jsonl"
    run = ground(examples, extractor=_SentenceFacts(), presence=_Contains(), output=output, batch_size=3)
    _assert_lazy(run.results, output, [e.id for e in examples])
    assert "results" not in run.model_dump()
    assert summarize_ground(list(run.results), ["pop", "has_multi"]) == run.summary
    assert [b.factor for b in run.summary.by_factor] == ["pop", "has_multi"]
    again = ground(examples, extractor=_SentenceFacts(), presence=_Contains(), output=output)
    assert (again.new_records, again.summary) == (0, run.summary)


class _ValueInSentence:
    """The sentence entails 'relation: value' when it contains the value."""

    name = "value-in-sentence"

    def check(self, tasks: list[CheckTask]) -> list[Verdict]:
        return [
            Verdict(label=Label.ENTAILMENT if t.claim.split(": ", 1)[1].lower() in t.references[0].lower()
                    else Label.NEUTRAL)
            for t in tasks
        ]


def test_an_attribution_run_with_output_reads_its_results_from_the_file(tmp_path):
    triples = [Triple("Q1", "father", "Lord Byron"), Triple("Q1", "place of birth", "London")]
    answers = [
        "Her father was Lord Byron [Q1, father: Lord Byron].",
        "She was born in Paris [Q1, place of birth: London]. [NA]",
        "No citation here.",
        "Born in London [Q1, place of birth: London]. Her father was Lord Byron [Q1, father: Lord Byron].",
    ]
    records = [
        AnswerRecord(f"a{i}", "Who?", answer, KnowledgeGraph.from_triples(triples), triples,
                     removed=triples[:1] if i % 2 else [])
        for i, answer in enumerate(answers * 2)
    ]
    output = tmp_path / "scores.jsonl"
    run = attribute(records, checker=_ValueInSentence(), output=output, batch_size=3, empty_answers="zero")
    _assert_lazy(run.results, output, [r.id for r in records])
    assert "results" not in run.model_dump()
    assert summarize_attribution(list(run.results), empty_answers="zero") == run.summary
    assert set(run.summary) == {"removed=0", "removed=1"}
    again = attribute(records, checker=_ValueInSentence(), output=output, empty_answers="zero")
    assert (again.new_records, again.summary) == (0, run.summary)


def test_a_knowledge_run_with_output_reads_its_results_from_the_file(tmp_path):
    records = [
        KnowledgeRecord(id=f"k{i}", query="When do owls hunt?", knowledge="Owls hunt at dusk.",
                        answer="at dusk" if i % 2 else "at noon", gold_answer="at dusk" if i % 3 else None)
        for i in range(7)
    ]
    output = tmp_path / "knowledge.jsonl"
    run = knowledge(records, evaluator=KnowledgeEvaluator(checker=_EntailsWhenContained()), output=output, batch_size=3)
    _assert_lazy(run.results, output, [r.id for r in records])
    assert "results" not in run.model_dump()
    assert summarize_knowledge(list(run.results)) == run.summary
    assert run.summary.means["validity"].records == sum(1 for r in records if r.gold_answer)
    again = knowledge(records, evaluator=KnowledgeEvaluator(checker=_EntailsWhenContained()), output=output)
    assert (again.new_records, again.summary) == (0, run.summary)
