"""What a check run is made of and set to (``CheckSpec``): the one place its options and their defaults are
declared, which the Python API, the command line and the server take theirs from. Light to import: the types of
ready components are named for the type checker only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from factscope.checkers.defaults import DEFAULT_CHECKER
from factscope.checkers.options import CheckedWithOptions, CheckerOptions
from factscope.core.options.metadata import about
from factscope.core.options.rules import CountsWhen
from factscope.retrieve.retriever_names import EvidenceRetrieverName, names_search_service
from factscope.retrieve.web_settings import WebSettings

if TYPE_CHECKING:
    from factscope.checkers.base import Checker
    from factscope.claims.base import Extractor
    from factscope.core.files.manifest import SettingValue
    from factscope.retrieve.corpus import Retriever
    from factscope.retrieve.retriever_names import RetrieveFor
    from factscope.retrieve.web_evidence import WebEvidence

CHECK_BATCH_SIZE = 32
"""The default batch of a run: records per extraction / checking batch."""

DEFAULT_CORPUS_RETRIEVER = "bm25"
"""The retriever over `corpus` of a check run that names none."""

DEFAULT_EXTRACTOR = "rules"
"""The claim extractor of a check run that names none: RefChecker-style triplets by rules, offline."""


def extractor_catalogue() -> str:
    """The claim extractors a spec string may name, plugins included (``EXTRACTORS``' catalogue)."""
    from factscope.claims.registry import EXTRACTORS

    return EXTRACTORS.catalogue()


def checker_catalogue() -> str:
    """The checkers a spec string may name, plugins included (``CHECKERS``' catalogue)."""
    from factscope.checkers.registry import CHECKERS

    return CHECKERS.catalogue()


def retrieves(values: Mapping[str, Any]) -> bool:
    """Whether the run retrieves passages: from `corpus`, or from a search service named as `retriever`."""
    return values["corpus"] is not None or names_search_service(values["retriever"])


@dataclass(frozen=True)
class CheckSpec(CheckedWithOptions):
    """The components and settings of a check run.

    ``extractor`` and ``checker`` are spec strings ('rules', 'embedded', 'nli:MODEL', 'llm', ...) or ready objects;
    ``checker_settings`` (a CheckerOptions, or a mapping of its fields) go whole to ``make_checker`` with a spec.
    Records without references (every record with ``retrieve_for='all'``) are checked against the top
    ``retrieve_k`` passages of ``retriever``: a ready retriever, a retriever name ('bm25', the default with a
    corpus, 'dense', 'hybrid') over the passages of ``corpus`` (whose fingerprint the results file's manifest records; a name without a corpus
    retrieves nothing), or a search service ('web:serper', 'web:brave', 'wikipedia') that finds each claim's
    passages as ``web`` says; with ``query_llm`` the LLM writes its search queries (RefChecker's prompt).
    Records without references stop a run that retrieves nothing for them (``MissingReferences``), unless
    ``allow_missing_references``: their claims could only be Neutral. ``settings`` are further manifest settings
    (an agreement run's mode).
    """

    extractor: str | Extractor = field(default=DEFAULT_EXTRACTOR, metadata=about(
        "claim extractor: ", catalogue=extractor_catalogue, option_type=str, recorded_by="extractor"
    ))
    checker: str | Checker = field(default=DEFAULT_CHECKER, metadata=about(
        "claim checker: ", catalogue=checker_catalogue, option_type=str, recorded_by="checker"
    ))
    checker_settings: CheckerOptions = field(default_factory=CheckerOptions)
    corpus: Path | None = field(default=None, metadata=about(
        "JSONL or folder of .txt: passages to retrieve for records without references"
    ))
    retriever: str | Retriever | WebEvidence | None = field(default=None, metadata=about(
        "bm25 (the default with `corpus`), dense or hybrid over `corpus`; web:serper (key in SERPER_API_KEY), "
        "web:brave (BRAVE_API_KEY) or wikipedia, searched per record",
        option_type=EvidenceRetrieverName, recorded_by="retriever",
        counts_when=CountsWhen(retrieves, "with `corpus`, or as web:serper, web:brave or wikipedia"),
    ))
    retrieve_k: int = field(default=5, metadata=about(
        "passages retrieved per record (`corpus`) or per claim (a web retriever)", flag="--top-k", min=1,
        counts_when=CountsWhen(retrieves, "with `corpus` or a web retriever (passages retrieved)"),
    ))
    retrieve_for: RetrieveFor = field(default="missing", metadata=about(
        "missing (records without references) or all (after a record's own)",
        recorded_by="retriever", counts_when=CountsWhen(retrieves, "with `corpus` or a web retriever"),
    ))
    web: WebSettings = field(default_factory=WebSettings)
    query_llm: bool = False
    abstention_detection: bool = field(default=True, metadata=about(
        "drop sentences that decline to answer (\"I don't know.\")",
        flag="--abstention-detection/--no-abstention-detection", per_request=True,
    ))
    allow_missing_references: bool = field(default=False, metadata=about(
        "go on when some records have no references (their claims can only be Neutral)",
        flag="--allow-missing-references", per_request=True, changes_results=False,
    ))
    settings: Mapping[str, SettingValue] = field(default_factory=dict)
