"""What a server is started with: where it listens, where it keeps its data, its components, its limits and its
API key. Each setting is declared once, with its help and range (``factscope.core.option_metadata.about``):
`factscope serve` offers every such field as an option."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from factscope.checkers.defaults import DEFAULT_CHECKER, DEFAULT_MODE
from factscope.core.option_metadata import about
from factscope.core.option_validation import ValidatedOptions
from factscope.grounding.spec import DEFAULT_FACT_EXTRACTOR, DEFAULT_PRESENCE
from factscope.refchecker.spec import DEFAULT_EXTRACTOR
from factscope.retrieve.web_settings import WebSettings

if TYPE_CHECKING:
    from factscope.checkers.segmented import CheckMode
    from factscope.retrieve.retriever_names import SearchServiceName


@dataclass(frozen=True)
class Startup(ValidatedOptions):
    """How a server starts: the address it binds, and whether it builds its components before serving."""

    host: str = field(default="127.0.0.1", metadata=about(
        "address to bind; other than loopback needs an API key"
    ))
    port: int = field(default=8000, metadata=about("port", min=1, max=65535))
    warm: bool = field(default=True, metadata=about(
        "build every component before serving (else on first use)", flag="--warm/--no-warm"
    ))


@dataclass(frozen=True)
class Limits(ValidatedOptions):
    """Request size limits: a request over one is refused with 413 (size, count) or 422 (a field)."""

    max_body_bytes: int = field(default=2_000_000, metadata=about("body of a JSON request", min=1))
    max_upload_bytes: int = field(default=64_000_000, metadata=about(
        "body of an upload (a job's input file)", min=1
    ))
    max_records: int = field(default=64, metadata=about(
        "records of one synchronous request; larger inputs go through the jobs API", min=1
    ))
    max_field_chars: int = field(default=100_000, metadata=about("characters of any one text of a record", min=1))


@dataclass(frozen=True)
class Components(ValidatedOptions):
    """The components each system runs with, by spec (as the CLI options name them); built once, on first use."""

    check_extractor: str = field(default=DEFAULT_EXTRACTOR, metadata=about("claim extractor of /v1/check"))
    check_checker: str = field(default=DEFAULT_CHECKER, metadata=about("checker of /v1/check"))
    check_retriever: SearchServiceName | None = field(default=None, metadata=about(
        "search service that finds evidence for /v1/check records without references (key from SERPER_API_KEY "
        "or BRAVE_API_KEY; the web retrieval settings apply); none: such records are checked against nothing"
    ))
    web: WebSettings = field(default_factory=WebSettings)
    ground_extractor: str = field(default=DEFAULT_FACT_EXTRACTOR, metadata=about("fact extractor of /v1/ground"))
    ground_presence: str = field(default=DEFAULT_PRESENCE, metadata=about("presence model of /v1/ground"))
    attribute_checker: str = field(default=DEFAULT_CHECKER, metadata=about(
        "alignment / \\[NA] checker of /v1/attribute/score"
    ))
    knowledge_checker: str = field(default=DEFAULT_CHECKER, metadata=about(
        "factuality / validity checker of /v1/knowledge/score"
    ))
    knowledge_corpus: Path | None = field(default=None, metadata=about(
        "evidence corpus of /v1/knowledge/score (enables factuality)", flag="--corpus"
    ))
    knowledge_lm: str | None = field(default=None, metadata=about(
        "causal LM of /v1/knowledge/score (sentence coherence, informativeness, helpfulness); default: the "
        "embedded LM when factscope\\[lm] is installed; 'none'", flag="--lm"
    ))
    mode: CheckMode = field(default=DEFAULT_MODE, metadata=about(
        "exact, or fast: every system's model checks read each claim or fact against its most relevant segments "
        "or windows only (check's and knowledge's checkers, ground's presence model, attribute's checker)"
    ))
    llm: Any = None
    """An ``LLMClient`` for the components that need one (None: such components cannot be built)."""

    def needs_llm(self) -> bool:
        """Whether any of these components needs an LLM client (an LLM extractor, checker or presence model, or
        the endpoint's completions as the causal LM)."""
        from factscope.checkers.registry import CHECKERS
        from factscope.claims.registry import EXTRACTORS
        from factscope.grounding.presence import PRESENCE_MODELS

        checkers = (self.check_checker, self.attribute_checker, self.knowledge_checker)
        return (
            any(EXTRACTORS.needs_llm(spec) for spec in (self.check_extractor, self.ground_extractor))
            or any(CHECKERS.needs_llm(spec) for spec in checkers)
            or PRESENCE_MODELS.needs_llm(self.ground_presence)
            or self.knowledge_lm == "endpoint"
        )


@dataclass(frozen=True)
class ServeConfig(ValidatedOptions):
    """Everything ``create_app`` needs."""

    data_dir: Path = field(default=Path(".factscope/serve"), metadata=about(
        "folder of the jobs database, uploaded inputs and results"
    ))
    components: Components = field(default_factory=Components)
    limits: Limits = field(default_factory=Limits)
    api_key: str | None = field(default=None, metadata=about(
        "key every request must carry (`Authorization: Bearer KEY` or `X-API-Key: KEY`)",
        envvar="FACTSCOPE_API_KEY",
    ))
    batch_wait_ms: float = field(default=5.0, metadata=about(
        "milliseconds (0 to 10,000) that concurrent single-record requests are gathered into one model batch",
        min=0.0, max=10000.0,
    ))
    batch_records: int = field(default=32, metadata=about("most records of one model batch", min=1))
    job_batch_size: int = field(default=16, metadata=about(
        "records per batch of a job (the progress and resume step)", min=1
    ))
    job_lease_seconds: float = field(default=30.0, metadata=about(
        "seconds (1 to 3,600) a server's lease on a running job lasts unrenewed (it is renewed every third of "
        "it); servers sharing `data_dir` take over a crashed one's jobs after it", min=1.0, max=3600.0,
    ))
