"""factscope: check what language models write against knowledge.

One entry point per system, each of the same shape: input (a file path, or records), the components by name or
as objects, an optional results file (written as the run goes, resumed on a rerun) and an optional progress
callback (nothing is drawn without one); ``retry_failed=True`` processes again, and replaces in place, the rows
of the results file marked failed; each returns its typed run result with the per-record results and the
dataset summary.

- ``factscope.check``: claim-level hallucination checking (RefChecker) -> ``CheckRun``
- ``factscope.ground``: grounding precision / recall / F1 (Truly Ground) -> ``GroundRun``
- ``factscope.attribute``: knowledge-graph citation quality (KaLMA) -> ``AttributionRun``
- ``factscope.knowledge``: CONNER's knowledge-quality metrics -> ``KnowledgeRun``
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from factscope.core.version import __version__

if TYPE_CHECKING:
    from factscope.conner.data import KnowledgeRecord
    from factscope.conner.task import KnowledgeRun
    from factscope.core.run import ProgressCallback
    from factscope.grounding.data import GroundExample
    from factscope.grounding.task import GroundRun
    from factscope.kalma.answers import AnswerRecord
    from factscope.kalma.task import AttributionRun
    from factscope.refchecker.task import CheckRun

__all__ = ["__version__", "attribute", "check", "ground", "knowledge"]


def check(
    records: str | Path | Iterable[Any],
    *,
    extractor: Any = "rules",
    checker: Any = "embedded",
    llm: Any = None,
    output: str | Path | None = None,
    progress: ProgressCallback | None = None,
    retry_failed: bool = False,
    checker_settings: dict[str, Any] | None = None,
    **options: Any,
) -> CheckRun:
    """Extract claims from responses and check them against references (RefChecker).

    ``records`` is a JSON / JSONL path, or an iterable of ``Record`` objects or dicts in the input format
    (``response``, ``references`` or ``reference``, optional ``id``, ``question``, ``setting``). ``extractor`` and
    ``checker`` are spec strings ('rules', 'embedded', 'nli:MODEL', 'llm', ...) or ready objects; ``llm`` is an
    ``LLMClient`` for the LLM ones; ``checker_settings`` go to ``make_checker`` with a spec (``max_tokens``,
    ``relevance``, ``min_relevance``, ``min_confidence``, ``mismatch``, ...). Bad records in a file are skipped; bad
    dicts raise InputError. A file is streamed: with ``output``, memory does not grow with its length, and the
    run's ``results`` read the results file lazily. Remaining ``options`` go to ``factscope.refchecker.task.check`` (retriever,
    retrieve_k, batch_size).
    """
    from factscope.checkers.registry import make_checker
    from factscope.claims.registry import make_extractor
    from factscope.core.schema import Record
    from factscope.refchecker.data import CheckRecords, parse_record
    from factscope.refchecker.task import check as run_check

    loaded: Iterable[Record]
    if isinstance(records, (str, Path)):
        loaded = CheckRecords(records)
    else:
        loaded = [
            item if isinstance(item, Record) else parse_record(item, path="<records>", line=index)
            for index, item in enumerate(records, start=1)
        ]
    return run_check(
        loaded,
        extractor=make_extractor(extractor, llm=llm) if isinstance(extractor, str) else extractor,
        checker=make_checker(checker, llm=llm, **(checker_settings or {})) if isinstance(checker, str) else checker,
        output=output,
        progress=progress,
        retry_failed=retry_failed,
        **options,
    )


def ground(
    dataset: str | Path | Iterable[GroundExample],
    *,
    responses: str | Path | None = None,
    metadata: str | Path | None = None,
    extractor: Any = None,
    presence: Any = None,
    llm: Any = None,
    output: str | Path | None = None,
    progress: ProgressCallback | None = None,
    retry_failed: bool = False,
    **options: Any,
) -> GroundRun:
    """Grounding precision (response facts found in the contexts), recall (gold facts found in the response)
    and their F1 per record, with breakdowns by factor (Truly Ground).

    ``dataset`` is a dataset file (the paper's layout or generic JSONL) or ``GroundExample`` objects; with a path,
    ``metadata`` adds the factor fields and ``responses`` attaches the responses (JSONL of ``{id, response}`` or
    the paper's prediction files). ``extractor`` is an Extractor (default: offline clause facts); ``presence`` a
    presence spec ('bi-nli', 'bi', 'cross', 'nli:embedded', 'llm', ...) or a ready model (default: the
    offline ``DEFAULT_PRESENCE`` of factscope.grounding.presence). Remaining ``options`` go to
    ``factscope.grounding.task.ground`` (batch_size, factors, no_response_facts, no_gold_facts).

    A dataset file is read into memory (the paper's layout is one JSON document, and the metadata and responses
    files are joined to it by id); with ``output``, the run's ``results`` read the results file lazily and the
    summary comes from running totals.
    """
    from factscope.grounding.data import attach_responses, load_dataset
    from factscope.grounding.presence import make_presence
    from factscope.grounding.task import ground as run_ground

    if isinstance(dataset, (str, Path)):
        loaded = load_dataset(dataset, metadata)
        if responses is not None:
            attach_responses(loaded, responses)
        examples = [example for example in loaded.examples if example.response is not None]
    else:
        examples = list(dataset)
    return run_ground(
        examples,
        extractor=extractor,
        presence=make_presence(presence, llm=llm) if isinstance(presence, str) else presence,
        output=output,
        progress=progress,
        retry_failed=retry_failed,
        **options,
    )


def attribute(
    answers: str | Path | Iterable[AnswerRecord],
    *,
    checker: Any = "embedded",
    llm: Any = None,
    judge: Any = None,
    output: str | Path | None = None,
    progress: ProgressCallback | None = None,
    retry_failed: bool = False,
    checker_settings: dict[str, Any] | None = None,
    **options: Any,
) -> AttributionRun:
    """Citation correctness, precision, recall and F1 (micro and macro), text-citation alignment and [NA]
    quality of answers that cite a knowledge graph (KaLMA).

    ``answers`` is an answers file (the output of ``factscope attribute generate`` or the user's own records)
    or ``AnswerRecord`` objects; rows whose generation failed are left out. ``checker`` decides alignment and
    [NA] (a spec string or a ready Checker; ``checker_settings`` go to ``make_checker`` with a spec); ``judge``
    (an LLMClient) adds G-Eval text quality. Remaining ``options`` go to ``factscope.kalma.task.score``
    (batch_size, template, empty_answers, weighted). A file is streamed (``AnswerRecords``): with ``output``,
    memory does not grow with its length, and the run's ``results`` read the results file lazily.
    """
    from factscope.checkers.registry import make_checker
    from factscope.kalma.answers import AnswerRecords
    from factscope.kalma.task import score

    records: Iterable[AnswerRecord] = AnswerRecords(answers) if isinstance(answers, (str, Path)) else list(answers)
    return score(
        records,
        make_checker(checker, llm=llm, **(checker_settings or {})) if isinstance(checker, str) else checker,
        judge=judge,
        output=output,
        progress=progress,
        retry_failed=retry_failed,
        **options,
    )


def knowledge(
    records: str | Path | Iterable[KnowledgeRecord],
    *,
    evaluator: Any = None,
    output: str | Path | None = None,
    progress: ProgressCallback | None = None,
    batch_size: int = 16,
    retry_failed: bool = False,
    **components: Any,
) -> KnowledgeRun:
    """CONNER's metrics of generated knowledge: factuality, relevance, coherence, informativeness, helpfulness,
    validity and Q_know, per record and as dataset means.

    ``records`` is a knowledge file (JSON / JSONL, or CONNER's own files) or ``KnowledgeRecord`` objects.
    ``evaluator`` is a ready ``KnowledgeEvaluator``; without one it is assembled from ``components`` by
    ``factscope.conner.evaluator_setup.make_evaluator`` (corpus, checker, relevance, coherence, lm, llm, ...).
    A metric that a missing part would compute is left out and explained, never zero. A JSONL file is streamed
    (``KnowledgeRecords``; bad records are skipped): with ``output``, the run's ``results`` read the results file
    lazily, and only the knowledge texts the helpfulness baselines are drawn from stay in memory (with a causal LM).
    """
    from factscope.conner.data import KnowledgeRecords
    from factscope.conner.evaluator_setup import make_evaluator
    from factscope.conner.task import knowledge as run_knowledge

    loaded: Iterable[KnowledgeRecord] = KnowledgeRecords(records) if isinstance(records, (str, Path)) else list(records)
    return run_knowledge(
        loaded,
        evaluator if evaluator is not None else make_evaluator(**components),
        output=output,
        batch_size=batch_size,
        progress=progress,
        retry_failed=retry_failed,
    )
