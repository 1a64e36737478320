"""What a server is started with: where it listens, where it keeps its data, its components, its limits and its
API key. Each setting is declared once, with its help and range (``factscope.core.options.metadata.about``):
`factscope serve` offers every such field as an option. The components come from the systems' specs
(``factscope.serve.components``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from factscope.core.options.metadata import about
from factscope.core.options.validation import ValidatedOptions
from factscope.serve.components import Components, ServerComponents


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
class ServeConfig(ValidatedOptions):
    """Everything ``create_app`` needs."""

    data_dir: Path = field(default=Path(".factscope/serve"), metadata=about(
        "folder of the jobs database, uploaded inputs and results"
    ))
    components: ServerComponents = field(default_factory=Components)
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
