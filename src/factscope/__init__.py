"""factscope: check what language models write against knowledge.

One entry point per system, each of the same shape and each built from its system's definition (see
``factscope.core.system``): input (a file path, or records), the components by spec or as objects, an optional
results file (written as the run goes, resumed on a rerun) and an optional progress callback (nothing is drawn
without one); ``retry_failed=True`` processes again, and replaces in place, the rows of the results file marked
failed; each returns its typed run result (a ``RunResult``: ``results``, ``new_records``, ``resumed_records``,
``seconds``, ``failed``) with the per-record results and the dataset summary.

- ``factscope.check``: claim-level hallucination checking (RefChecker) -> ``CheckRun``
- ``factscope.ground``: grounding precision / recall / F1 (Truly Ground) -> ``GroundRun``
- ``factscope.attribute``: knowledge-graph citation quality (KaLMA) -> ``AttributionRun``
- ``factscope.knowledge``: CONNER's knowledge-quality metrics -> ``KnowledgeRun``

``acheck``, ``aground``, ``aattribute`` and ``aknowledge`` are the same calls for asyncio code: awaited, run in a
worker thread, cancellable between steps (``factscope.core.off_loop``); pass them an ``AsyncLLMClient``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, Unpack

from factscope.checkers.options import CheckerOptions, checker_options
from factscope.conner.spec import KNOWLEDGE_BATCH_SIZE, KnowledgeSpec
from factscope.core.display import use_html_view
from factscope.core.errors import ConfigError
from factscope.core.off_loop import off_the_loop
from factscope.core.version import __version__
from factscope.grounding.spec import GROUND_BATCH_SIZE, GroundSpec
from factscope.grounding.supplied_facts import AtomicFactsFile
from factscope.kalma.spec import ATTRIBUTE_BATCH_SIZE, AttributeSpec
from factscope.refchecker.spec import CHECK_BATCH_SIZE, CheckSpec
from factscope.retrieve.web_settings import WebSettings

if TYPE_CHECKING:
    from factscope.checkers.base import Checker
    from factscope.checkers.segmented import CheckMode
    from factscope.claims.base import Extractor
    from factscope.conner.coherence import ParagraphCoherence
    from factscope.conner.data import KnowledgeRecord
    from factscope.conner.evaluator import KnowledgeEvaluator
    from factscope.conner.relevance import RelevanceModel
    from factscope.conner.task import KnowledgeRun
    from factscope.core.run import ProgressCallback
    from factscope.core.schema import Record
    from factscope.core.tables import Table
    from factscope.engines.ray import RayOptions
    from factscope.engines.system import Engine, RunOptions, System
    from factscope.grounding.data import GroundExample
    from factscope.grounding.presence import PresenceModel
    from factscope.grounding.presence_rounds import PresenceMode
    from factscope.grounding.task import GroundRun
    from factscope.hf.causal_lm import TokenLogProbs
    from factscope.kalma.answers import AnswerRecord
    from factscope.kalma.task import AttributionRun
    from factscope.llm.client import LLMClient
    from factscope.metrics.attribution import Matching
    from factscope.metrics.conner import Aggregation, EvidenceAggregation, SentenceRanking
    from factscope.metrics.ratios import EmptyPolicy
    from factscope.refchecker.task import CheckRun
    from factscope.retrieve.corpus import Retriever
    from factscope.retrieve.web_evidence import WebEvidence
    from factscope.retrieve.web_retrievers import EvidenceRetrieverName, RetrieveFor

_SpecT = TypeVar("_SpecT")

__all__ = [
    "__version__", "aattribute", "acheck", "aground", "aknowledge", "attribute", "check", "ground", "knowledge",
]


def check(
    records: str | Path | Table | Iterable[Record | dict[str, Any]],
    *,
    extractor: str | Extractor = CheckSpec.extractor,
    checker: str | Checker = CheckSpec.checker,
    llm: LLMClient | None = None,
    output: str | Path | None = None,
    progress: ProgressCallback | None = None,
    retry_failed: bool = False,
    checker_settings: CheckerOptions | Mapping[str, Any] | None = None,
    retriever: str | Retriever | WebEvidence | None = CheckSpec.retriever,
    corpus: str | Path | None = CheckSpec.corpus,
    retrieve_k: int = CheckSpec.retrieve_k,
    retrieve_for: RetrieveFor = CheckSpec.retrieve_for,
    web: WebSettings | None = None,
    query_llm: bool = CheckSpec.query_llm,
    abstention_detection: bool = CheckSpec.abstention_detection,
    allow_missing_references: bool = CheckSpec.allow_missing_references,
    batch_size: int = CHECK_BATCH_SIZE,
    overwrite: bool = False,
    engine: Engine = "local",
    ray: RayOptions | None = None,
) -> CheckRun:
    """Extract claims from responses and check them against references (RefChecker).

    ``records`` is a JSON / JSONL, Parquet or CSV path, a table (a pandas DataFrame or a ``datasets.Dataset``,
    one row a record), or an iterable of ``Record`` objects or dicts in the input format (``response``,
    ``references`` or ``reference``, optional ``id``, ``question``, ``setting``). ``extractor`` and
    ``checker`` are spec strings ('rules', 'embedded', 'nli:MODEL', 'llm', ...) or ready objects; ``llm`` is an
    ``LLMClient`` for the LLM ones; ``checker_settings`` (a ``CheckerOptions``, or a mapping of its fields:
    ``max_tokens``, ``relevance``, ``mode``, ...) go to ``make_checker`` with a spec. Records without references are
    checked against ``retrieve_k`` passages of ``retriever`` (a ready one, or 'bm25', 'dense', 'hybrid' over
    ``corpus``), or against each claim's top ``retrieve_k`` passages found on the web or in Wikipedia
    ('web:serper', 'web:brave', 'wikipedia', searched as ``web`` says; with ``query_llm`` the ``llm`` writes the
    queries); ``retrieve_for='all'`` adds retrieved passages to records that have references. Records without
    references stop a run that retrieves nothing for them (``MissingReferences``, an InputError), unless
    ``allow_missing_references``: their claims could only be Neutral. Bad records in a file are skipped; bad dicts
    raise InputError. A file is streamed: with
    ``output``, memory does not grow with its length, and the run's ``results`` read the results file lazily.
    ``engine='ray'`` runs it on a Ray cluster with the settings ``ray`` (see ``System.execute``).
    """
    from factscope.refchecker.system import CHECK

    spec = CheckSpec(
        extractor=extractor, checker=checker, checker_settings=checker_options(checker_settings),
        corpus=_path(corpus), retriever=retriever, retrieve_k=retrieve_k, retrieve_for=retrieve_for,
        web=web or WebSettings(), query_llm=query_llm, abstention_detection=abstention_detection,
        allow_missing_references=allow_missing_references,
    )
    return CHECK.run(spec, records, **_run_options(
        CHECK, spec, llm=llm, output=output, batch_size=batch_size, progress=progress, overwrite=overwrite,
        retry_failed=retry_failed, engine=engine, ray=ray,
    ))


def ground(
    dataset: str | Path | Table | Iterable[GroundExample],
    *,
    responses: str | Path | None = None,
    metadata: str | Path | None = None,
    extractor: str | Extractor = GroundSpec.extractor,
    presence: str | PresenceModel = GroundSpec.presence,
    llm: LLMClient | None = None,
    output: str | Path | None = None,
    progress: ProgressCallback | None = None,
    retry_failed: bool = False,
    batch_size: int = GROUND_BATCH_SIZE,
    factors: Iterable[str] | None = GroundSpec.factors,
    no_response_facts: EmptyPolicy = GroundSpec.no_response_facts,
    no_gold_facts: EmptyPolicy = GroundSpec.no_gold_facts,
    threshold: float | None = GroundSpec.threshold,
    window: int | None = GroundSpec.window,
    stride: int = GroundSpec.stride,
    min_window: int | None = GroundSpec.min_window,
    mode: PresenceMode = GroundSpec.mode,
    atomic_facts: str | Path | AtomicFactsFile | None = None,
    overwrite: bool = False,
    engine: Engine = "local",
    ray: RayOptions | None = None,
) -> GroundRun:
    """Grounding precision (response facts found in the contexts), recall (gold facts found in the response)
    and their F1 per record, with breakdowns by factor (Truly Ground).

    ``dataset`` is a dataset file (the paper's layout, or generic JSONL, Parquet or CSV), a table (a DataFrame or
    a ``Dataset`` of generic records, each with its response) or ``GroundExample`` objects; with a path,
    ``metadata`` adds the factor fields and ``responses`` attaches the responses (JSONL of ``{id, response}`` or
    the paper's prediction files), and records without a response are left out. ``extractor`` is an extractor
    spec or object (default: offline clause facts); ``presence`` a presence spec ('bi-nli', 'bi', 'cross',
    'nli:embedded', 'llm', ...) or a ready model (default: the offline ``DEFAULT_PRESENCE`` of
    factscope.grounding.spec); a presence spec is built with ``threshold`` (default: the model's own), ``window``
    and ``min_window`` (sentences per window; default: the model's own), ``stride`` and ``mode``. ``factors``: the metadata fields of the breakdowns (default: the paper's
    factors the records have). ``mode`` 'fast' scores each fact only against its most relevant windows, stopping
    at the first that reaches the threshold (``factscope.grounding.presence_rounds``). ``atomic_facts``: a file of
    the responses' atomic facts (or an ``AtomicFactsFile``, which says how it is read) served instead of extracted,
    ``extractor`` extracting those of the responses it lacks.

    A generic JSONL dataset is streamed, its responses joined by id through an on-disk index (the paper's layout
    and a metadata file are single JSON documents, read whole); with ``output``, the run's ``results`` read the
    results file lazily and the summary comes from running totals. ``engine='ray'`` runs it on a Ray cluster with
    the settings ``ray``.
    """
    from factscope.grounding.system import GroundSystem

    spec = GroundSpec(
        extractor=extractor, presence=presence, threshold=threshold, window=window, stride=stride,
        min_window=min_window, mode=mode, factors=tuple(factors) if factors is not None else None,
        no_response_facts=no_response_facts, no_gold_facts=no_gold_facts,
    )
    facts = atomic_facts if isinstance(atomic_facts, AtomicFactsFile) else AtomicFactsFile(_path(atomic_facts))
    system = GroundSystem(metadata, responses, facts)
    return system.run(spec, dataset, **_run_options(
        system, spec, llm=llm, output=output, batch_size=batch_size, progress=progress, overwrite=overwrite,
        retry_failed=retry_failed, engine=engine, ray=ray,
    ))


def attribute(
    answers: str | Path | Table | Iterable[AnswerRecord],
    *,
    checker: str | Checker = AttributeSpec.checker,
    llm: LLMClient | None = None,
    judge: LLMClient | None = None,
    output: str | Path | None = None,
    progress: ProgressCallback | None = None,
    retry_failed: bool = False,
    checker_settings: CheckerOptions | Mapping[str, Any] | None = None,
    batch_size: int = ATTRIBUTE_BATCH_SIZE,
    template: str = AttributeSpec.template,
    empty_answers: EmptyPolicy = AttributeSpec.empty_answers,
    weighted: bool = AttributeSpec.weighted,
    matching: Matching = AttributeSpec.matching,
    overwrite: bool = False,
    minimum: str | Path | None = None,
    engine: Engine = "local",
    ray: RayOptions | None = None,
) -> AttributionRun:
    """Citation correctness, precision, recall and F1 (micro and macro), text-citation alignment and [NA]
    quality of answers that cite a knowledge graph (KaLMA).

    ``answers`` is an answers file (the output of ``factscope attribute generate`` or the user's own records;
    JSON / JSONL, Parquet or CSV), a table of such records (a DataFrame or a ``Dataset``) or ``AnswerRecord``
    objects; rows whose generation failed are left out. ``checker`` decides alignment and
    [NA] (a spec string or a ready Checker, an LLM one calling ``llm``; ``checker_settings`` go to
    ``make_checker`` with a spec); ``judge`` (an LLMClient) adds G-Eval text quality (``weighted``: also the
    probability-weighted score). ``template`` shapes the NLI hypothesis of a citation, ``empty_answers`` counts
    answers with no citations in macro precision, ``matching`` reads citations ('normalized' or 'paper').
    ``minimum`` names a file of gold minimum knowledge sets (KaLMA's JSON list of [question, [[qid, relation,
    value], ...]], or records {id?, question?, minimum}) that replace the answers' own sets. A file
    is streamed (``AnswerRecords``): with ``output``, memory does not grow with its length, and the run's
    ``results`` read the results file lazily.
    """
    from factscope.checkers.registry import make_checker
    from factscope.kalma.system import ATTRIBUTE, AttributeSystem

    options = checker_options(checker_settings)
    if isinstance(checker, str) and judge is not None and judge is not llm:
        checker, options = make_checker(checker, options=options, llm=llm), CheckerOptions()
    spec = AttributeSpec(
        checker=checker, checker_settings=options, geval=judge is not None, weighted=weighted, template=template,
        empty_answers=empty_answers, matching=matching,
    )
    system = ATTRIBUTE if minimum is None else AttributeSystem(Path(minimum))
    return system.run(spec, answers, **_run_options(
        system, spec, llm=judge if judge is not None else llm, output=output, batch_size=batch_size,
        progress=progress, overwrite=overwrite, retry_failed=retry_failed, engine=engine, ray=ray,
    ))


def knowledge(
    records: str | Path | Table | Iterable[KnowledgeRecord],
    *,
    evaluator: KnowledgeEvaluator | None = None,
    output: str | Path | None = None,
    progress: ProgressCallback | None = None,
    batch_size: int = KNOWLEDGE_BATCH_SIZE,
    retry_failed: bool = False,
    corpus: str | Path | None = KnowledgeSpec.corpus,
    retriever: EvidenceRetrieverName = KnowledgeSpec.retriever,
    evidence_k: int = KnowledgeSpec.evidence_k,
    aggregate: Aggregation = KnowledgeSpec.aggregate,
    evidence_aggregate: EvidenceAggregation = KnowledgeSpec.evidence_aggregate,
    rank_by: SentenceRanking = KnowledgeSpec.rank_by,
    hard: bool = KnowledgeSpec.hard,
    checker: str | Checker = KnowledgeSpec.checker,
    relevance: str | RelevanceModel = KnowledgeSpec.relevance,
    coherence: str | ParagraphCoherence = KnowledgeSpec.coherence,
    lm: str | TokenLogProbs | None = KnowledgeSpec.lm,
    baselines: int = KnowledgeSpec.baselines,
    weights: str = KnowledgeSpec.weights,
    seed: int = KnowledgeSpec.seed,
    mode: CheckMode = KnowledgeSpec.mode,
    llm: LLMClient | None = None,
    overwrite: bool = False,
    web: WebSettings | None = None,
    engine: Engine = "local",
    ray: RayOptions | None = None,
) -> KnowledgeRun:
    """CONNER's metrics of generated knowledge: factuality, relevance, coherence, informativeness, helpfulness,
    validity and Q_know, per record and as dataset means.

    ``records`` is a knowledge file (JSON / JSONL, Parquet, CSV, or CONNER's own files), a table of such records
    (a DataFrame or a ``Dataset``) or ``KnowledgeRecord`` objects.
    ``evaluator`` is a ready ``KnowledgeEvaluator``; without one it is assembled from the parts named as the
    command-line options are (``factscope.conner.evaluator_setup.make_evaluator``: corpus, checker, relevance,
    coherence, lm, llm, ...; ``mode`` 'fast' is deprecated: the checker
    warns and reads every segment that can decide, as in exact mode), where ``checker``, ``relevance``, ``coherence`` and ``lm`` may also be
    ready objects (a ``Checker``, ``RelevanceModel``, ``ParagraphCoherence``, ``TokenLogProbs``); the corpus's
    fingerprint goes into the results file's manifest. ``retriever`` 'web:serper', 'web:brave' or 'wikipedia'
    finds the evidence on the web or in Wikipedia instead of a corpus, as ``web`` says. A metric that a missing part would compute is left out and
    explained, never zero. A JSONL file is streamed
    (``KnowledgeRecords``; bad records are skipped): with ``output``, the run's ``results`` read the results file
    lazily, and only the knowledge texts the helpfulness baselines are drawn from stay in memory (with a causal LM).
    """
    from factscope.conner.system import KNOWLEDGE

    spec = KnowledgeSpec(
        evaluator=evaluator, corpus=_path(corpus) if evaluator is None else None, retriever=retriever,
        evidence_k=evidence_k, aggregate=aggregate, evidence_aggregate=evidence_aggregate, rank_by=rank_by,
        hard=hard, checker=checker, relevance=relevance, coherence=coherence, lm=lm, baselines=baselines,
        weights=weights, seed=seed, mode=mode, web=web or WebSettings(),
    )
    return KNOWLEDGE.run(spec, records, **_run_options(
        KNOWLEDGE, spec, llm=llm, output=output, batch_size=batch_size, progress=progress, overwrite=overwrite,
        retry_failed=retry_failed, engine=engine, ray=ray,
    ))


def _run_options(
    system: System[_SpecT, Any, Any, Any, Any], spec: _SpecT, **options: Unpack[RunOptions]
) -> RunOptions:
    """The run keywords of an API call, once an LLM that no component of ``spec`` would call is refused."""
    unused = system.unused_llm(spec) if options.get("llm") is not None else None
    if unused is not None:
        raise ConfigError(unused)
    return options


def _path(path: str | Path | None) -> Path | None:
    """``path`` as a Path (None stays None)."""
    return Path(path) if path is not None else None


acheck = off_the_loop(check)
aground = off_the_loop(ground)
aattribute = off_the_loop(attribute)
aknowledge = off_the_loop(knowledge)


def _notebook_html(result: object) -> str | None:
    """A result's report, as a notebook shows it (``factscope.reports.notebook``)."""
    from factscope.reports.notebook import notebook_html

    return notebook_html(result)


use_html_view(_notebook_html)
