"""The fixed choice sets of command-line options, as Enums (typer lists them in --help and rejects others)."""

from __future__ import annotations

from enum import Enum


class RetrieverName(str, Enum):
    """Passage retrievers over a user corpus."""

    bm25 = "bm25"
    dense = "dense"
    hybrid = "hybrid"


class LLMCheckMode(str, Enum):
    """How the LLM checker batches claims: all claims of a record in one call, or one call per claim."""

    joint = "joint"
    single = "single"


class LLMPassages(str, Enum):
    """How the LLM checker is shown a record's passages: one call each, together numbered from 1, or together in
    the exact text of RefChecker's evaluation (numbered from 0)."""

    each = "each"
    together = "together"
    refchecker = "refchecker"


class RelevanceFilter(str, Enum):
    """Which segments of the references count for a model checker's merge: those that share enough of the claim's
    content words, or all."""

    lexical = "lexical"
    off = "off"


class AgreeMode(str, Enum):
    """What `agree` measures: the checker on the annotated triplets, or extraction and checking together."""

    checker = "checker"
    pipeline = "pipeline"


class ModelSource(str, Enum):
    """Where `agree` reads an annotation file's model name: its file name, or a field of each record."""

    stem = "stem"
    field = "field"


class EmptyPolicy(str, Enum):
    """What a ratio with an empty denominator counts as: left out of the average, or zero."""

    skip = "skip"
    zero = "zero"


class GoldPosition(str, Enum):
    """Where the gold contexts go among distractors."""

    end = "end"
    beginning = "beginning"
    middle = "middle"
    random = "random"


class AgreementStatistic(str, Enum):
    """Statistics a presence threshold can be calibrated for."""

    pearson = "pearson"
    accuracy = "accuracy"
    macro_f1 = "macro-f1"
    kappa = "kappa"


class RetrieveMode(str, Enum):
    """Where each KaLMA question's graph comes from."""

    none = "none"
    local = "local"
    wikidata = "wikidata"


class CitationMatching(str, Enum):
    """How KaLMA citations are read and compared: factscope's normalised reading, or the paper's released scoring."""

    normalized = "normalized"
    paper = "paper"


class SentenceAggregation(str, Enum):
    """How CONNER's factuality aggregates the knowledge's sentences (eq. 1: min)."""

    min = "min"
    mean = "mean"
    max = "max"


class EvidenceAggregation(str, Enum):
    """How CONNER's factuality aggregates a sentence's evidence passages (eq. 1: max)."""

    max = "max"
    mean = "mean"


class SentenceRanking(str, Enum):
    """How CONNER's min and max rank sentences: by entailment probability, or by argmax label."""

    entailment = "entailment"
    label = "label"


class KnowledgeTaskName(str, Enum):
    """The downstream task of CONNER records that name none: span answers (qa) or open-ended ones (dialogue)."""

    qa = "qa"
    dialogue = "dialogue"


class GenerationModeName(str, Enum):
    """CONNER's knowledge-generation prompts: zero-shot (Table 11) or few-shot (Table 12 examples)."""

    zero = "zero"
    few = "few"


class CheckingMode(str, Enum):
    """How many segments a model checker scores per claim: all (exact) or the most relevant ones (fast)."""

    exact = "exact"
    fast = "fast"


class MismatchChoice(str, Enum):
    """Which values of a claim the value check compares with its evidence."""

    values = "values"
    all = "all"
    off = "off"


class Device(str, Enum):
    """Where models run: auto (a CUDA GPU when present), cpu or cuda."""

    auto = "auto"
    cpu = "cpu"
    cuda = "cuda"


class TrainingMethod(str, Enum):
    """How `train-checker` trains: fine-tuning a cross-encoder, or RepC (a head on a frozen encoder)."""

    finetune = "finetune"
    repc = "repc"


class RepCFeatures(str, Enum):
    """RepC features: the pair encoded jointly, the two sentences apart, or both."""

    pair = "pair"
    sentence = "sentence"
    both = "both"


class RepCClassifier(str, Enum):
    """RepC's shallow classifier."""

    logreg = "logreg"
    svm = "svm"
    mlp = "mlp"
    knn = "knn"
