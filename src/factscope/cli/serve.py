"""`factscope serve`: the HTTP API, the jobs API and the web app."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from factscope.checkers.segmented import CheckMode
from factscope.cli.llm_options import LLMOptions, llm_options
from factscope.cli.web_options import web_options
from factscope.core.errors import ConfigError
from factscope.retrieve.web_retrievers import SearchServiceName
from factscope.retrieve.web_settings import WebSettings
from factscope.serve.config import Components, Limits, ServeConfig

HELP = """Serve the four systems over HTTP, with a web app to look at results.

Loads the chosen components once and serves: synchronous endpoints for small inputs (POST /v1/check, /v1/ground, /v1/attribute/score, /v1/knowledge/score; concurrent requests share model batches), a jobs API for files (POST /v1/jobs, progress, streamed results, cancel; jobs are kept in DATA-DIR and resumed after a restart), OpenAPI docs at /docs, and the web app at /.

Binds 127.0.0.1 by default. Any other address needs an API key (--api-key or FACTSCOPE_API_KEY), which every request must then carry as `Authorization: Bearer KEY` or `X-API-Key: KEY`.

Needs the serve extra: pip install 'factscope\\[serve]'.

Examples:

  factscope serve                                   # http://127.0.0.1:8000, offline models

  FACTSCOPE_API_KEY=... factscope serve --host 0.0.0.0 --data-dir /var/lib/factscope
"""

PANEL = "Components (built once, shared by every request)"
LIMITS = "Limits"


def register(app: typer.Typer) -> None:
    """Add the `serve` command."""
    app.command("serve", help=HELP)(llm_options(web_options(serve_command)))


def serve_command(
    host: Annotated[str, typer.Option(help="address to bind; other than loopback needs an API key")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="port")] = 8000,
    data_dir: Annotated[Path, typer.Option(help="folder of the jobs database, uploaded inputs and results")] = Path(
        ".factscope/serve"),
    api_key: Annotated[str | None, typer.Option(envvar="FACTSCOPE_API_KEY", show_envvar=True,
                                                help="key every request must carry")] = None,
    check_extractor: Annotated[str, typer.Option(help="claim extractor of /v1/check", rich_help_panel=PANEL)] = (
        Components.check_extractor),
    check_checker: Annotated[str, typer.Option(help="checker of /v1/check", rich_help_panel=PANEL)] = (
        Components.check_checker),
    check_retriever: Annotated[
        SearchServiceName | None,
        typer.Option(help="search service that finds evidence for /v1/check records without references (key "
                     "from SERPER_API_KEY or BRAVE_API_KEY; the web retrieval options apply)", rich_help_panel=PANEL),
    ] = None,
    ground_extractor: Annotated[str, typer.Option(help="fact extractor of /v1/ground", rich_help_panel=PANEL)] = (
        Components.ground_extractor),
    ground_presence: Annotated[str, typer.Option(help="presence model of /v1/ground", rich_help_panel=PANEL)] = (
        Components.ground_presence),
    attribute_checker: Annotated[str, typer.Option(help="alignment / \\[NA] checker of /v1/attribute/score",
                                                   rich_help_panel=PANEL)] = Components.attribute_checker,
    knowledge_checker: Annotated[str, typer.Option(help="factuality / validity checker of /v1/knowledge/score",
                                                   rich_help_panel=PANEL)] = Components.knowledge_checker,
    corpus: Annotated[Path | None, typer.Option(help="evidence corpus of /v1/knowledge/score (enables factuality)",
                                                rich_help_panel=PANEL)] = None,
    lm: Annotated[str | None, typer.Option("--lm", help="causal LM of /v1/knowledge/score (sentence coherence, "
                                                        "informativeness, helpfulness); default: the embedded LM "
                                                        "when factscope\\[lm] is installed; 'none'",
                                           show_default=False, rich_help_panel=PANEL)] = None,
    mode: Annotated[CheckMode, typer.Option("--mode", help="exact, or fast: every system's model checks read each "
                                                         "claim or fact against its most relevant segments or "
                                                         "windows only (see `check --mode`)",
                                            rich_help_panel=PANEL)] = Components.mode,
    warm: Annotated[bool, typer.Option(help="build every component before serving (else on first use)")] = True,
    max_body_bytes: Annotated[
        int, typer.Option(min=1, help="body of a JSON request", rich_help_panel=LIMITS)
    ] = Limits.max_body_bytes,
    max_upload_bytes: Annotated[
        int, typer.Option(min=1, help="body of a job's upload", rich_help_panel=LIMITS)
    ] = Limits.max_upload_bytes,
    max_records: Annotated[int, typer.Option(min=1, help="records per synchronous request",
                                             rich_help_panel=LIMITS)] = Limits.max_records,
    max_field_chars: Annotated[int, typer.Option(min=1, help="characters of any one text of a record",
                                                 rich_help_panel=LIMITS)] = Limits.max_field_chars,
    batch_wait_ms: Annotated[
        float,
        typer.Option(min=0.0, max=10000.0, help="milliseconds (0 to 10,000) that concurrent requests are gathered "
                     "into one model batch"),
    ] = ServeConfig.batch_wait_ms,
    batch_records: Annotated[int, typer.Option(min=1, help="most records of one model batch")] = (
        ServeConfig.batch_records),
    job_batch_size: Annotated[int, typer.Option(min=1, help="records per batch of a job")] = (
        ServeConfig.job_batch_size),
    job_lease_seconds: Annotated[
        float,
        typer.Option(min=1.0, max=3600.0, help="seconds (1 to 3,600) a server's lease on a running job lasts "
                     "unrenewed; servers sharing --data-dir take over a crashed one's jobs after it"),
    ] = ServeConfig.job_lease_seconds,
    *,
    endpoint: LLMOptions,
    web: WebSettings,
) -> None:
    try:
        import uvicorn

        from factscope.serve.app import create_app
    except ImportError as error:
        raise ConfigError(f"factscope serve needs the serve extra ({error.name} is missing): "
                          "pip install 'factscope[serve]'") from None
    from factscope.checkers.registry import CHECKERS
    from factscope.claims.registry import EXTRACTORS
    from factscope.conner.evaluator_setup import default_lm
    from factscope.grounding.presence import PRESENCE_MODELS
    from factscope.serve.security import require_key_off_loopback

    require_key_off_loopback(host, api_key)
    lm = default_lm(lm)
    needs_llm = (
        EXTRACTORS.needs_llm(check_extractor) or EXTRACTORS.needs_llm(ground_extractor)
        or any(CHECKERS.needs_llm(spec) for spec in (check_checker, attribute_checker, knowledge_checker))
        or PRESENCE_MODELS.needs_llm(ground_presence) or lm == "endpoint"
    )
    components = Components(
        check_extractor=check_extractor, check_checker=check_checker, check_retriever=check_retriever,
        web=web, ground_extractor=ground_extractor,
        ground_presence=ground_presence, attribute_checker=attribute_checker, knowledge_checker=knowledge_checker,
        knowledge_corpus=corpus, knowledge_lm=lm, mode=mode, llm=endpoint.build_if(needs_llm),
    )
    config = ServeConfig(
        data_dir=data_dir, components=components, api_key=api_key or None,
        limits=Limits(max_body_bytes=max_body_bytes, max_upload_bytes=max_upload_bytes, max_records=max_records,
                      max_field_chars=max_field_chars),
        batch_wait_ms=batch_wait_ms, batch_records=batch_records, job_batch_size=job_batch_size,
        job_lease_seconds=job_lease_seconds,
    )
    uvicorn.run(create_app(config, warm=warm), host=host, port=port, log_level="info", server_header=False)
