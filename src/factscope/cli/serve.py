"""`factscope serve`: the HTTP API, the jobs API and the web app (``factscope.serve``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import typer

from factscope.cli.llm_options import LLMOptions, llm_options
from factscope.cli.option_groups import add_field_options
from factscope.core.errors import ConfigError
from factscope.core.options.panels import EVIDENCE
from factscope.retrieve.web_settings import WebSettings
from factscope.serve.config import Components, Limits, ServeConfig, ServerComponents, Startup

HELP = """Serve the four systems over HTTP, with a web app to look at results.

Loads the chosen components once and serves an endpoint per system (POST /v1/check, /v1/ground,
/v1/attribute/score, /v1/knowledge/score), a jobs API for files (POST /v1/jobs; jobs kept in DATA-DIR resume
after a restart), OpenAPI docs at /docs and the web app at /. The serve guide describes each.

Needs the serve extra: pip install 'factscope\\[serve]'.

Examples:

  factscope serve                                   # http://127.0.0.1:8000, offline models
  FACTSCOPE_API_KEY=... factscope serve --host 0.0.0.0 --data-dir /var/lib/factscope
"""

PANEL = "Components (built once, shared by every request)"


def register(app: typer.Typer) -> None:
    """Add the `serve` command."""
    command = add_field_options(serve_command, Startup, "startup")
    command = add_field_options(command, ServeConfig, "config", after="port")
    command = add_field_options(command, Components, "components", panel=PANEL)
    command = add_field_options(command, Limits, "limits", panel="Limits")
    command = add_field_options(command, WebSettings, "web", panel=EVIDENCE)
    app.command("serve", help=HELP)(llm_options(command))


def serve_command(
    *,
    startup: Startup,
    config: ServeConfig,
    components: ServerComponents,
    limits: Limits,
    endpoint: LLMOptions,
    web: WebSettings,
) -> None:
    """Serve the four systems (see `factscope serve --help`)."""
    try:
        import uvicorn  # noqa: F401  (the serve extra's server, imported here to name the extra when missing)

        from factscope.serve.app import serve
    except ImportError as error:
        raise ConfigError(f"factscope serve needs the serve extra ({error.name} is missing): "
                          "pip install 'factscope[serve]'") from None
    from factscope.conner.evaluator_setup import default_lm

    lm: dict[str, Any] = {"knowledge_lm": default_lm(components.knowledge_lm)}  # as `factscope knowledge score`
    chosen = replace(components, web=web, **lm)
    chosen = replace(chosen, llm=endpoint.build_if(chosen.needs_llm()))
    serve(replace(config, components=chosen, limits=limits, api_key=config.api_key or None), startup)
