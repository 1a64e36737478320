"""KaLMA's scoring run: citation quality, text-citation alignment, [NA] quality and (optionally) G-Eval text
quality of attributed answers, as a ``Pipeline`` any engine runs (``attribution_pipeline``) or in this process
(``score``).

The graphs each question is answered over come from ``factscope.kalma.graphs``, the answers from
``factscope.kalma.generation``; ``factscope.kalma.answers`` reads answers files,
``factscope.kalma.hypotheses`` turns citations into NLI pairs, ``factscope.kalma.text_quality`` asks a judge
for G-Eval scores, ``factscope.kalma.scores`` makes one answer's row and ``factscope.kalma.totals`` the
dataset figures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from factscope.checkers.base import Checker
from factscope.core.files.manifest import SettingValue
from factscope.core.runs.loop import (
    Pipeline,
    RunRows,
)
from factscope.core.runs.result import RunResult
from factscope.kalma.answers import AnswerRecord
from factscope.kalma.hypotheses import (
    DEFAULT_HYPOTHESIS,
    alignment_pairs,
    entailment_decisions,
    na_pairs,
)
from factscope.kalma.scores import AttributionScore, score_crashed, score_failed, score_row
from factscope.kalma.spec import check_template
from factscope.kalma.text_quality import judge_text_quality
from factscope.kalma.totals import AttributionFigures, AttributionTotals
from factscope.kg.citations import parse_answer
from factscope.metrics.attribution import Matching
from factscope.metrics.ratios import EmptyPolicy


class AttributionRun(RunResult[AttributionScore]):
    """A whole scoring run: the figures per number of removed triples, the counts, and every row in the results
    file (earlier runs' included when resuming, read lazily; left out of ``model_dump``). ``failed``: rows with a
    failed checker or judge call, or of an answer that could not be scored (``score_failed``)."""

    summary: dict[str, AttributionFigures]
    checker: str

    def headline(self) -> list[tuple[str, object]]:
        """Citation correctness, micro F1 and alignment per number of removed triples."""
        return [
            (f"{group} {name}", figures.get(key))
            for group, figures in self.summary.items()
            for name, key in (("correctness", "correctness"), ("micro F1", "micro_f1"), ("alignment", "alignment_value"))
        ]


def attribution_pipeline(checker: Checker, *, judge: Any = None, weighted: bool = False,
                         template: str = DEFAULT_HYPOTHESIS, empty_answers: EmptyPolicy = "skip",
                         matching: Matching = "normalized", settings: Mapping[str, SettingValue] | None = None
                         ) -> Pipeline[AnswerRecord, AttributionScore, AttributionTotals]:
    """KaLMA's scoring as a pipeline any engine runs: check the citations' entailment, judge text quality (with
    ``judge``) and score each batch of answers; its totals keep ``empty_answers``.
    ``template`` shapes the NLI hypothesis of a citation (see DEFAULT_HYPOTHESIS); ``matching`` says how citations
    are read and compared (``normalized``, factscope's, or ``paper``, KaLMA's released scoring); ``judge`` (an LLM
    client) adds G-Eval text quality. ``factscope.attribute`` runs it."""
    check_template(template)

    def batch_rows(batch: Sequence[AnswerRecord]) -> list[AttributionScore]:
        pairs = []
        for record in batch:
            parsed = parse_answer(record.answer)
            pairs += alignment_pairs(parsed, record.graph, template)
            pairs += na_pairs(parsed, record.removed, record.graph, template)
        decisions = entailment_decisions(checker, pairs)
        judged = judge_text_quality(batch, judge, weighted=weighted) if judge is not None else None
        return [score_row(record, decisions, judged[index] if judged else None, template, matching)
                for index, record in enumerate(batch)]

    return Pipeline(
        system="attribute score",
        stage_name="scoring answers",
        row_type=AttributionScore,
        key=lambda record: record.id,
        process=batch_rows,
        new_totals=lambda: AttributionTotals(empty_answers),
        components={"checker": checker, "judge": judge},
        settings={"weighted": weighted, "template": template, "matching": matching, **(settings or {})},
        failed=score_failed,
        crashed=score_crashed,
    )


def attribution_run(produced: RunRows[AttributionScore], totals: AttributionTotals, *, checker: str
                    ) -> AttributionRun:
    """The typed result of a scoring run from its rows and totals."""
    return AttributionRun(results=produced.results, failed=totals.failed, summary=totals.summary(),
                          **produced.counts(), checker=checker)

