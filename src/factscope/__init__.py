"""factscope: check what language models write against knowledge.

One entry point per system, each of the same shape and each built from its system's definition (see
``factscope.engines.parts``): input (a file path, or records), the components by spec or as objects, an optional
results file (written as the run goes, resumed on a rerun) and an optional progress callback (nothing is drawn
without one); ``retry_failed=True`` processes again, and replaces in place, the rows of the results file marked
failed; each returns its typed run result (a ``RunResult``: ``results``, ``new_records``, ``resumed_records``,
``seconds``, ``failed``) with the per-record results and the dataset summary.

- ``factscope.check``: claim-level hallucination checking (RefChecker) -> ``CheckRun``
- ``factscope.ground``: grounding precision / recall / F1 (Truly Ground) -> ``GroundRun``
- ``factscope.attribute``: knowledge-graph citation quality (KaLMA) -> ``AttributionRun``
- ``factscope.knowledge``: CONNER's knowledge-quality metrics -> ``KnowledgeRun``

The writers, which make the inputs of those systems (or check agreement with human labels) with an LLM, take the
same shape: their input, ``llm``, an optional results file (resumed on a rerun, refused when it was made from other
input or settings), ``progress``, ``overwrite`` and ``retry_failed``; each runs the writer its command runs
(``factscope.engines.writer.Writer``) and returns its typed result.

- ``factscope.generate_responses``: a response per question, for ``ground`` -> ``GenerationRun``
- ``factscope.generate_answers``: answers that cite a knowledge graph, for ``attribute`` -> ``AnswerGenerationRun``
- ``factscope.make_questions``: questions evolved from seed paragraphs (BioKaLMA) -> ``EvolutionRun``
- ``factscope.generate_knowledge`` and ``factscope.select_knowledge``: knowledge for queries, for ``knowledge``;
  the best of sampled candidates by Q_know -> ``KnowledgeGenerationRun``
- ``factscope.agree``: agreement of a checker with human labels (RefChecker's annotations) -> ``AgreementReport``

``acheck``, ``aground``, ``aattribute`` and ``aknowledge`` are the same calls for asyncio code: awaited, run in a
worker thread, cancellable between steps (``factscope.core.runs.off_loop``); pass them an ``AsyncLLMClient``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, Unpack

from factscope.checkers.options import CheckerOptions, checker_options
from factscope.conner.demonstrations import DemonstrationSettings
from factscope.conner.generation import CandidateSampling, GenerationSettings
from factscope.conner.generation_run import KnowledgeGenerationSettings
from factscope.conner.spec import KNOWLEDGE_BATCH_SIZE, KnowledgeSpec
from factscope.core.display.notebook import use_html_view
from factscope.core.errors import ConfigError
from factscope.core.runs.off_loop import off_the_loop
from factscope.core.version import __version__
from factscope.grounding.generation import ResponseGenerationSettings
from factscope.grounding.spec import GROUND_BATCH_SIZE, GroundSpec
from factscope.grounding.supplied_facts import AtomicFactsFile
from factscope.kalma.generation_settings import AnswerGenerationSettings, EvolutionSettings
from factscope.kalma.spec import ATTRIBUTE_BATCH_SIZE, AttributeSpec
from factscope.refchecker.agree import AgreeSettings
from factscope.refchecker.spec import CHECK_BATCH_SIZE, CheckSpec
from factscope.retrieve.web_settings import WebSettings

if TYPE_CHECKING:
    from factscope.checkers.base import Checker
    from factscope.checkers.options import CheckMode
    from factscope.claims.base import Extractor
    from factscope.conner.coherence import ParagraphCoherence
    from factscope.conner.data import KnowledgeRecord, KnowledgeTask
    from factscope.conner.evaluator import KnowledgeEvaluator
    from factscope.conner.generation import GenerationMode
    from factscope.conner.generation_run import KnowledgeGenerationRun
    from factscope.conner.relevance import RelevanceModel
    from factscope.conner.task import KnowledgeRun
    from factscope.core.files.tables import Table
    from factscope.core.runs.loop import ProgressCallback
    from factscope.core.schema import Record
    from factscope.engines.ray import RayOptions
    from factscope.engines.system import Engine, RunOptions, System
    from factscope.grounding.data import GroundExample
    from factscope.grounding.distractors import DistractorSettings
    from factscope.grounding.generation import GenerationRun
    from factscope.grounding.presence import PresenceModel
    from factscope.grounding.presence_rounds import PresenceMode
    from factscope.grounding.task import GroundRun
    from factscope.hf.causal_lm import TokenLogProbs
    from factscope.kalma.answers import AnswerRecord
    from factscope.kalma.generation import AnswerGenerationRun
    from factscope.kalma.generation_settings import RetrieveMode
    from factscope.kalma.graphs import GenerationItem
    from factscope.kalma.question_evolution import EvolutionRun, EvolutionSeed
    from factscope.kalma.task import AttributionRun
    from factscope.llm.client import LLMClient
    from factscope.metrics.attribution import Matching
    from factscope.metrics.conner import Aggregation, EvidenceAggregation, SentenceRanking
    from factscope.metrics.ratios import EmptyPolicy
    from factscope.refchecker.agree import AgreementInputs, AgreementReport, AgreeMode
    from factscope.refchecker.annotations import ModelSource
    from factscope.refchecker.task import CheckRun
    from factscope.retrieve.corpus import Retriever
    from factscope.retrieve.web_evidence import WebEvidence
    from factscope.retrieve.web_retrievers import EvidenceRetrieverName, RetrieveFor

_SpecT = TypeVar("_SpecT")

__all__ = [
    "__version__", "aattribute", "acheck", "agree", "aground", "aknowledge", "attribute", "check", "generate_answers",
    "generate_knowledge", "generate_responses", "ground", "knowledge", "make_questions", "select_knowledge",
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


def generate_responses(
    dataset: str | Path | Iterable[GroundExample],
    *,
    llm: LLMClient,
    output: str | Path | None = None,
    metadata: str | Path | None = None,
    max_tokens: int = ResponseGenerationSettings.max_tokens,
    batch_size: int = ResponseGenerationSettings.batch_size,
    corpus: str | Path | None = ResponseGenerationSettings.corpus,
    distractors: DistractorSettings | None = None,
    progress: ProgressCallback | None = None,
    overwrite: bool = False,
    retry_failed: bool = False,
) -> GenerationRun:
    """A response per question of ``dataset`` with ``llm``, for ``ground`` to judge (`factscope ground generate`).

    ``dataset`` is a dataset file (the Truly Ground layout with its ``metadata`` file, or generic JSONL) or
    ``GroundExample`` objects; each response is at most ``max_tokens`` long. With ``corpus`` (JSONL of
    ``{id, title, text}`` or a folder of .txt), passages that ``distractors`` (a ``DistractorSettings``) find
    there are added to each question's contexts (the paper's Dist setting). A failed call is reported in
    ``failed_calls`` and not written, so a rerun tries it again.
    """
    from factscope.grounding.distractors import DistractorSettings
    from factscope.grounding.generation import ResponseWriter

    settings = ResponseGenerationSettings(
        max_tokens=max_tokens, batch_size=batch_size, corpus=_path(corpus), distractors=distractors or DistractorSettings()
    )
    return ResponseWriter(metadata).write(
        settings, dataset, llm=llm, output=output, progress=progress, overwrite=overwrite, retry_failed=retry_failed
    )


def generate_answers(
    questions: str | Path | Iterable[GenerationItem],
    *,
    llm: LLMClient,
    output: str | Path | None = None,
    graph: str | Path | None = AnswerGenerationSettings.graph,
    retrieve: RetrieveMode = AnswerGenerationSettings.retrieve,
    remove: int = AnswerGenerationSettings.remove,
    retrieval_accuracy: float = AnswerGenerationSettings.retrieval_accuracy,
    seed: int = AnswerGenerationSettings.seed,
    sparql_endpoint: str = AnswerGenerationSettings.sparql_endpoint,
    sparql_cache: str | Path = AnswerGenerationSettings.sparql_cache,
    sparql_interval: float = AnswerGenerationSettings.sparql_interval,
    temperature: float | None = AnswerGenerationSettings.temperature,
    minimum: str | Path | None = AnswerGenerationSettings.minimum,
    progress: ProgressCallback | None = None,
    overwrite: bool = False,
    retry_failed: bool = False,
) -> AnswerGenerationRun:
    """Answers that cite a knowledge graph, one per question, with ``llm`` (KaLMA's one-shot prompt; `factscope
    attribute generate`), for ``attribute`` to score.

    ``questions`` is a questions file (the BioKaLMA layout, or JSON / JSONL records ``{id, question, minimum,
    graph?}``). Each question's graph: its gold graph (``retrieve='none'``: the one-hop subgraphs in ``graph`` of
    its minimum-set entities, plus its own), or one retrieved from ``graph`` (``'local'``) or Wikidata
    (``'wikidata'``, at ``sparql_endpoint``, cached in ``sparql_cache``). ``remove`` minimum-set triples are taken
    out of each graph and ``1 - retrieval_accuracy`` of the graphs swapped for irrelevant ones (``seed`` draws
    both); ``minimum`` names a file of gold minimum sets that replace the records' own. A failed call is written,
    marked failed, and generated again with ``retry_failed``.
    """
    from factscope.kalma.generation import AnswerWriter

    settings = AnswerGenerationSettings(
        graph=_path(graph), retrieve=retrieve, remove=remove, retrieval_accuracy=retrieval_accuracy, seed=seed,
        sparql_endpoint=sparql_endpoint, sparql_cache=Path(sparql_cache), sparql_interval=sparql_interval,
        temperature=temperature, minimum=_path(minimum),
    )
    return AnswerWriter().write(
        settings, questions, llm=llm, output=output, progress=progress, overwrite=overwrite, retry_failed=retry_failed
    )


def make_questions(
    seeds: str | Path | Iterable[EvolutionSeed],
    *,
    llm: LLMClient,
    output: str | Path | None = None,
    graph: str | Path | None = EvolutionSettings.graph,
    rounds: int = EvolutionSettings.rounds,
    seed: int = EvolutionSettings.seed,
    progress: ProgressCallback | None = None,
    overwrite: bool = False,
    retry_failed: bool = False,
) -> EvolutionRun:
    """Questions evolved from seed paragraphs with ``llm`` (BioKaLMA's evolutionary question generation; `factscope
    attribute make-questions`): a questions file for ``generate_answers``.

    ``seeds`` is a file of records ``{id, paragraph, qids}`` (entities taken from ``graph``) or ``{id, paragraph,
    graph}``. Round 1 labels each paragraph with graph knowledge and writes a question; each of the other
    ``rounds`` injects one more triple (chosen with ``seed``) and rewrites it. A reply that cannot be read ends
    that seed's evolution: its row is marked failed, and evolved again with ``retry_failed``.
    """
    from factscope.kalma.question_evolution import QuestionWriter

    settings = EvolutionSettings(graph=_path(graph), rounds=rounds, seed=seed)
    return QuestionWriter().write(
        settings, seeds, llm=llm, output=output, progress=progress, overwrite=overwrite, retry_failed=retry_failed
    )


def generate_knowledge(
    queries: str | Path | Iterable[KnowledgeRecord],
    *,
    llm: LLMClient,
    output: str | Path | None = None,
    mode: GenerationMode = GenerationSettings.mode,
    task: KnowledgeTask | None = KnowledgeGenerationSettings.task,
    train: str | Path | None = DemonstrationSettings.train,
    shots: int = DemonstrationSettings.shots,
    select_from: int | None = DemonstrationSettings.select_from,
    answer: bool = DemonstrationSettings.answer,
    scoring: KnowledgeSpec | None = None,
    seed: int = GenerationSettings.seed,
    batch_size: int = KnowledgeGenerationSettings.batch_size,
    progress: ProgressCallback | None = None,
    overwrite: bool = False,
    retry_failed: bool = False,
) -> KnowledgeGenerationRun:
    """Knowledge for each query with ``llm``, with CONNER's prompts (`factscope knowledge generate`); its output is
    an input of ``knowledge``.

    ``queries`` is a file of records ``{id, query, task?, gold_answer?}`` (``task`` for those that name none) or
    ``KnowledgeRecord`` objects. ``mode='few'`` prompts with ``shots`` examples of ``train`` per task: random ones
    (drawn with ``seed``), or with ``select_from`` the best of that many by Q_know, scored by the evaluator of
    ``scoring`` (a ``KnowledgeSpec``: its ``corpus``, ``lm``, ...). ``answer`` also generates an answer from the
    knowledge. A failed generation is written, marked failed, and generated again with ``retry_failed``.
    """
    return _write_knowledge(
        queries, llm, GenerationSettings(mode=mode, seed=seed),
        DemonstrationSettings(train=_path(train), shots=shots, select_from=select_from, answer=answer),
        task, scoring, batch_size, output, progress, overwrite, retry_failed,
    )


def select_knowledge(
    queries: str | Path | Iterable[KnowledgeRecord],
    *,
    llm: LLMClient,
    scoring: KnowledgeSpec,
    output: str | Path | None = None,
    candidates: int = CandidateSampling.candidates,
    top_p: float = CandidateSampling.top_p,
    temperature: float = CandidateSampling.temperature,
    mode: GenerationMode = GenerationSettings.mode,
    task: KnowledgeTask | None = KnowledgeGenerationSettings.task,
    train: str | Path | None = DemonstrationSettings.train,
    shots: int = DemonstrationSettings.shots,
    answer: bool = DemonstrationSettings.answer,
    seed: int = GenerationSettings.seed,
    batch_size: int = KnowledgeGenerationSettings.batch_size,
    progress: ProgressCallback | None = None,
    overwrite: bool = False,
    retry_failed: bool = False,
) -> KnowledgeGenerationRun:
    """Knowledge selection (CONNER section 5; `factscope knowledge select`): ``candidates`` knowledge texts sampled
    per query with ``llm`` (``top_p``, ``temperature``, seeded from ``seed``), the one with the best Q_know kept.

    ``scoring`` is the ``KnowledgeSpec`` of the Q_know evaluator: Q_know needs all four of its parts, so give its
    ``corpus``, and its ``lm`` unless factscope[lm] is installed. The other arguments are ``generate_knowledge``'s.
    """
    sampling = CandidateSampling(candidates=candidates, top_p=top_p, temperature=temperature)
    return _write_knowledge(
        queries, llm, sampling.settings(GenerationSettings(mode=mode, seed=seed)),
        DemonstrationSettings(train=_path(train), shots=shots, answer=answer),
        task, scoring, batch_size, output, progress, overwrite, retry_failed,
    )


def _write_knowledge(
    queries: str | Path | Iterable[KnowledgeRecord],
    llm: LLMClient,
    generation: GenerationSettings,
    demonstrations: DemonstrationSettings,
    task: KnowledgeTask | None,
    scoring: KnowledgeSpec | None,
    batch_size: int,
    output: str | Path | None,
    progress: ProgressCallback | None,
    overwrite: bool,
    retry_failed: bool,
) -> KnowledgeGenerationRun:
    """A knowledge-generation run of ``generate_knowledge`` or ``select_knowledge``."""
    from factscope.conner.generation_run import KnowledgeWriter, selection_spec

    settings = KnowledgeGenerationSettings(
        generation=generation, demonstrations=demonstrations, task=task, batch_size=batch_size
    )
    chosen = selection_spec(scoring or KnowledgeSpec(), generation, demonstrations)
    return KnowledgeWriter(chosen).write(
        settings, queries, llm=llm, output=output, progress=progress, overwrite=overwrite, retry_failed=retry_failed
    )


def agree(
    human: Iterable[str | Path] | AgreementInputs,
    *,
    input: Iterable[str | Path] | None = None,
    checker: str | Checker = CheckSpec.checker,
    extractor: str | Extractor = CheckSpec.extractor,
    mode: AgreeMode = AgreeSettings.mode,
    llm: LLMClient | None = None,
    checker_settings: CheckerOptions | Mapping[str, Any] | None = None,
    allow_missing_references: bool = CheckSpec.allow_missing_references,
    model_from: ModelSource = AgreeSettings.model_from,
    model_field: str = AgreeSettings.model_field,
    model: Iterable[str] | None = AgreeSettings.model,
    batch_size: int = AgreeSettings.batch_size,
    output: str | Path | None = AgreeSettings.output,
    report: str | Path | None = AgreeSettings.report,
    progress: ProgressCallback | None = None,
    overwrite: bool = False,
    retry_failed: bool = False,
) -> AgreementReport:
    """How well a checker's labels agree with human labels (RefChecker's annotations; `factscope agree`).

    ``human`` are RefChecker's annotation files (or an ``AgreementInputs`` already read); ``input`` the records
    with the questions and references, by id; ``model`` entries ``NAME=FILE`` name the model of a file (else its
    name says it, ``model_from``). ``mode='checker'`` checks the annotated triplets with ``checker`` (a spec
    string or a ready Checker; ``checker_settings`` go to ``make_checker``); ``'pipeline'`` extracts claims anew
    with ``extractor``. The rows go to ``output`` (default: agree-MODE.jsonl here), and with ``report`` the
    figures, the confusion matrix and every claim's labels to that file as JSON.
    """
    from factscope.refchecker.agree import AgreementInputs, AgreementWriter

    settings = AgreeSettings(
        input=[Path(path) for path in input] if input is not None else None, model_from=model_from,
        model_field=model_field, model=list(model) if model is not None else None, mode=mode, batch_size=batch_size,
        output=_path(output), report=_path(report),
    )
    spec = CheckSpec(
        extractor=extractor, checker=checker, checker_settings=checker_options(checker_settings),
        allow_missing_references=allow_missing_references,
    )
    unused = settings.unused_llm(spec) if llm is not None else None
    if unused is not None:
        raise ConfigError(unused)
    inputs = human if isinstance(human, AgreementInputs) else [Path(path) for path in human]
    return AgreementWriter(spec).write(
        settings, inputs, llm=llm, output=settings.results_file, progress=progress, overwrite=overwrite,
        retry_failed=retry_failed,
    )


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
