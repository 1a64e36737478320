"""What a server is started with: where it keeps its data, its components, its limits and its API key."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from factscope.checkers.defaults import DEFAULT_CHECKER
from factscope.grounding.spec import DEFAULT_FACT_EXTRACTOR
from factscope.refchecker.spec import DEFAULT_EXTRACTOR
from factscope.retrieve.web_settings import WebSettings

if TYPE_CHECKING:
    from factscope.checkers.segmented import CheckMode


@dataclass(frozen=True)
class Limits:
    """Request size limits: a request over one is refused with 413 (size, count) or 422 (a field)."""

    max_body_bytes: int = 2_000_000
    """Body of a JSON request."""
    max_upload_bytes: int = 64_000_000
    """Body of an upload (a job's input file)."""
    max_records: int = 64
    """Records of one synchronous request; larger inputs go through the jobs API."""
    max_field_chars: int = 100_000
    """Characters of any one text of a record."""


@dataclass(frozen=True)
class Components:
    """The components each system runs with, by spec (as the CLI options name them); built once, on first use."""

    check_extractor: str = DEFAULT_EXTRACTOR
    check_checker: str = DEFAULT_CHECKER
    check_retriever: str | None = None
    """A search service ('web:serper', 'web:brave', 'wikipedia') that finds evidence for /v1/check records without
    references, as ``web`` says (None: such records are checked against nothing)."""
    web: WebSettings = field(default_factory=WebSettings)
    ground_extractor: str = DEFAULT_FACT_EXTRACTOR
    ground_presence: str = "bi"
    attribute_checker: str = DEFAULT_CHECKER
    knowledge_checker: str = DEFAULT_CHECKER
    knowledge_corpus: Path | None = None
    knowledge_lm: str | None = None
    mode: CheckMode = "exact"
    """exact, or fast: every system's model checks read each claim or fact against its most relevant segments or
    windows only (check's and knowledge's checkers, ground's presence model, attribute's checker)."""
    llm: Any = None
    """An ``LLMClient`` for the components that need one (None: such components cannot be built)."""


@dataclass(frozen=True)
class ServeConfig:
    """Everything ``create_app`` needs."""

    data_dir: Path
    components: Components = field(default_factory=Components)
    limits: Limits = field(default_factory=Limits)
    api_key: str | None = None
    """When set, every request must carry it (``Authorization: Bearer KEY`` or ``X-API-Key``)."""
    batch_wait_ms: float = 5.0
    """How long the micro-batcher waits for more single-record requests before running a batch."""
    batch_records: int = 32
    """The most records the micro-batcher puts in one model batch."""
    job_batch_size: int = 16
    """Records per batch of a job (the progress and resume step)."""
    job_lease_seconds: float = 30.0
    """How long a server's lease on a running job lasts without being renewed (it is renewed every third of it):
    after a crash, another server on the same data folder resumes the job this long after the last renewal."""
